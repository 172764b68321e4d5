"""Calls the CPU references of agent-cpu-reference.mlir through ctypes and checks them
against NumPy. Exits nonzero (with a message) on any mismatch."""

import ctypes
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Inputs"))
from cpu_call import call  # noqa: E402


def main(path):
    library = ctypes.CDLL(path)
    rng = np.random.default_rng(0)

    x = rng.standard_normal((16, 100)).astype(np.float32)
    out = np.full((16, 100), np.nan, np.float32)
    call(library, "softmax", x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)

    a = rng.standard_normal((32, 48)).astype(np.float16)
    b = rng.standard_normal((48, 24)).astype(np.float16)
    bias = rng.standard_normal(24).astype(np.float32)
    out = np.full((32, 24), np.nan, np.float32)
    call(library, "matmul_bias_relu", a, b, bias, out)
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0.0)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    print("cpu reference ok")


if __name__ == "__main__":
    main(sys.argv[1])
