"""Calls the CPU references of agent-split-long-reductions.mlir (the reductions
after the split) through ctypes and checks them against NumPy in float64. Exits
nonzero (with a message) on any mismatch."""

import ctypes
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Inputs"))
from cpu_call import call  # noqa: E402


def main(path):
    library = ctypes.CDLL(path)
    rng = np.random.default_rng(0)

    x = rng.standard_normal((1024, 1024)).astype(np.float32)
    out = np.full((), np.nan, np.float32)
    call(library, "sum_all", x, out)
    np.testing.assert_allclose(out, (x.astype(np.float64) ** 2).sum(), rtol=1e-5)

    x = rng.standard_normal((4, 65536)).astype(np.float32)
    x[2, 40000] = 100.0  # in the middle of a part
    init = np.full(4, -np.inf, np.float32)
    out = np.full(4, np.nan, np.float32)
    call(library, "row_max", x, init, out)
    np.testing.assert_array_equal(out, x.max(axis=1))

    x = rng.standard_normal((4, 3, 64, 64)).astype(np.float32)
    init = np.full(3, 0.5, np.float32)
    out = np.full(3, np.nan, np.float32)
    call(library, "channel_sums", x, init, out)
    np.testing.assert_allclose(out, 0.5 + x.astype(np.float64).sum(axis=(0, 2, 3)), rtol=1e-4,
                               atol=1e-3)

    x = rng.standard_normal((2, 65521)).astype(np.float32)
    init = np.zeros(2, np.float32)
    out = np.full(2, np.nan, np.float32)
    call(library, "prime_rows", x, init, out)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=1), rtol=1e-4, atol=1e-3)
    print("split reductions ok")


if __name__ == "__main__":
    main(sys.argv[1])
