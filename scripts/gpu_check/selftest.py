"""`gpu-check self-test`: CPU-only checks (NumPy; torch and cuda-agent-opt when present).

  table       bench/ops.py is consistent for both sizes; bench/mlir/<size>/ is what
              bench/gen_mlir.py writes (and, where build/bin/cuda-agent-opt exists, each
              small file parses and outlines exactly one region)
  reference   each op's NumPy reference on small random inputs: output count, shapes,
              finiteness, and spot elements recomputed with plain Python loops
  torch-cpu   each op's torch function (float64, CPU) against the NumPy reference
              (skipped without torch)
  compare     the tolerance check catches a NaN and a perturbed element
  pipeline    `gpu-check run` end to end against gpu_check.fake_runner on fake bundles,
              once clean (exit 0) and once with one op corrupted (exit 1, that op failed)

Prints one line per test and 'N passed, N failed' last; exit 1 if any failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from . import compare, run
from .manifest import build_manifest, load_ops


# Spot checks: op name -> fn(inputs as float64 arrays, output index tuple) -> expected value,
# written with plain Python arithmetic, independently of the vectorized references.
def _gelu(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _softmax(x, idx):
    row = [float(v) for v in x[idx[0]]]
    top = max(row)
    return math.exp(row[idx[1]] - top) / math.fsum(math.exp(v - top) for v in row)


def _layernorm(x, g, b, idx):
    row = [float(v) for v in x[idx[0]]]
    mean = math.fsum(row) / len(row)
    var = math.fsum((v - mean) ** 2 for v in row) / len(row)
    return (row[idx[1]] - mean) / math.sqrt(var + 1e-5) * g[idx[1]] + b[idx[1]]


def _conv(x, w, idx):
    n, h, wo, f = idx
    kh, kw, c, _ = w.shape
    return math.fsum(x[n, h + i, wo + j, ch] * w[i, j, ch, f]
                     for i in range(kh) for j in range(kw) for ch in range(c))


SPOT = {
    "add_relu": lambda ins, i: max(ins[0][i] + ins[1][i], 0.0),
    "gelu_tanh": lambda ins, i: _gelu(ins[0][i]),
    "softmax_rows": lambda ins, i: _softmax(ins[0], i),
    "layernorm": lambda ins, i: _layernorm(*ins, i),
    "row_sum": lambda ins, i: math.fsum(ins[0][i[0]]),
    "transpose": lambda ins, i: ins[0][i[1], i[0]],
    "matmul_f32": lambda ins, i: math.fsum(ins[0][i[0], :] * ins[1][:, i[1]]),
    "matmul_f16_f32acc": lambda ins, i: math.fsum(ins[0][i[0], :] * ins[1][:, i[1]]),
    "matmul_f32_odd": lambda ins, i: math.fsum(ins[0][i[0], :] * ins[1][:, i[1]]),
    "bmm_f32": lambda ins, i: math.fsum(ins[0][i[0], i[1], :] * ins[1][i[0], :, i[2]]),
    "conv2d_nhwc_3x3": lambda ins, i: _conv(*ins, i),
    "conv2d_nhwc_3x3_f16": lambda ins, i: _conv(*ins, i),
}


class SelfTest:
    def __init__(self, repo: Path):
        self.repo = repo
        self.ops = load_ops(repo / "bench" / "ops.py")
        self.passed = self.failed = 0

    def record(self, name: str, error: str | None) -> None:
        if error:
            self.failed += 1
            print(f"FAIL {name}: {error}")
        else:
            self.passed += 1
            print(f"PASS {name}")

    def test(self, name: str, fn) -> None:
        """Runs fn(); an AssertionError or any exception fails `name`."""
        try:
            fn()
            self.record(name, None)
        except Exception as e:  # noqa: BLE001
            detail = str(e) or type(e).__name__
            if not isinstance(e, AssertionError):
                detail = traceback.format_exc(limit=3).strip().splitlines()[-1]
            self.record(name, detail)

    # -- table ----------------------------------------------------------------
    def check_table(self, size: str) -> None:
        sys.path.insert(0, str(self.repo / "bench"))
        import gen_mlir

        table = self.ops.ops(size)
        names = [o.name for o in table]
        assert len(set(names)) == len(names), f"duplicate op names {names}"
        assert set(names) == set(gen_mlir.BODIES), "ops.py and gen_mlir.py list different ops"
        assert set(names) == set(SPOT), "an op has no spot check in selftest.SPOT"
        for op in table:
            assert op.bytes > 0 and op.floor_us > 0, f"{op.name}: no bytes"
            assert op.tol.rtol > 0 and op.tol.atol > 0, f"{op.name}: bad tolerance"
            path = self.repo / "bench" / op.mlir_file
            assert path.is_file(), f"{path} missing (run bench/gen_mlir.py --size {size} --out ...)"
            assert path.read_text() == gen_mlir.render(op), \
                f"{path} is stale: rerun python3 bench/gen_mlir.py --size {size} --out {path.parent}"

    def check_mlir_tool(self) -> None:
        opt = self.repo / "build" / "bin" / "cuda-agent-opt"
        for op in self.ops.ops("small"):
            path = self.repo / "bench" / op.mlir_file
            out = subprocess.run([str(opt), "--agent-outline", str(path)], capture_output=True,
                                 text=True, timeout=60)
            assert out.returncode == 0, f"{path}: {out.stderr.strip()[-300:]}"
            regions = out.stdout.count("cuda_agent.region")
            assert regions == 1, f"{path}: --agent-outline found {regions} regions, expected 1"

    # -- references -------------------------------------------------------------
    def random_inputs(self, op, seed: int = 0):
        import numpy as np

        rng = np.random.default_rng(seed)
        return [rng.standard_normal(b.shape).astype(self.ops.NUMPY_DTYPES[b.dtype]) for b in op.inputs]

    def check_reference(self, op) -> None:
        import numpy as np

        inputs = self.random_inputs(op)
        outputs = op.numpy_ref(*inputs)
        assert len(outputs) == len(op.outputs), f"{len(outputs)} outputs, table says {len(op.outputs)}"
        for out, buf in zip(outputs, op.outputs):
            assert tuple(out.shape) == buf.shape, f"shape {out.shape} != {buf.shape}"
            assert np.isfinite(out).all(), "non-finite reference"
        ins64 = [np.asarray(x, dtype=np.float64) for x in inputs]
        rng = np.random.default_rng(1)
        for _ in range(8):
            idx = tuple(int(rng.integers(d)) for d in op.outputs[0].shape)
            want, got = float(SPOT[op.name](ins64, idx)), float(outputs[0][idx])
            assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), f"at {idx}: {got} != {want}"

    def check_torch_cpu(self, op) -> None:
        import torch

        inputs = self.random_inputs(op)
        args = op.prepare_torch([torch.from_numpy(x).to(torch.float64) for x in inputs])
        got = [t.detach().numpy() for t in op.torch_fn(*args)]
        for g, r in zip(got, op.numpy_ref(*inputs), strict=True):
            rec = compare.check(g, r, 1e-9, 1e-9)
            assert rec["ok"], f"torch vs numpy: {rec}"

    def check_compare(self) -> None:
        import numpy as np

        ref = np.random.default_rng(0).standard_normal((64, 64))
        out = ref.astype(np.float32)
        assert compare.check(out, ref, 1e-4, 1e-5)["ok"], "exact f32 rounding rejected"
        bad = out.copy()
        bad[5, 5] = np.nan
        assert not compare.check(bad, ref, 1e-4, 1e-5)["ok"], "NaN accepted"
        bad = out.copy()
        bad[1, 2] += 1e-2
        rec = compare.check(bad, ref, 1e-4, 1e-5)
        assert not rec["ok"] and rec["mismatches"] == 1, f"perturbation missed: {rec}"
        assert compare.identical(out, out.copy())["ok"] and not compare.identical(out, bad)["ok"]

    # -- pipeline ---------------------------------------------------------------------
    def make_fake_stage(self, stage: Path, corrupt: str | None) -> None:
        """Fake bundles for every small op plus one fake example region; manifest.json."""
        def bundle(path: Path, buffers: list, fake: dict) -> None:
            path.mkdir(parents=True)
            (path / "k.cubin").write_bytes(b"fake")
            plan = {"version": 1, "chip": "sm_90", "buffers": buffers, "fake": fake,
                    "launches": [{"kernel": "k", "object": "k.cubin", "grid": [1, 1, 1],
                                  "block": [1, 1, 1], "shared_bytes": 0, "args": []}]}
            (path / "plan.json").write_text(json.dumps(plan))

        def buf(name, b, role):
            return {"name": name, "shape": list(b.shape), "dtype": b.dtype, "role": role}

        ops_py = self.repo / "bench" / "ops.py"
        for op in self.ops.ops("small"):
            buffers = [buf(f"in{i}", b, "input") for i, b in enumerate(op.inputs)]
            buffers += [buf(f"out{i}", b, "output") for i, b in enumerate(op.outputs)]
            bundle(stage / "bundles" / op.name, buffers,
                   {"ops_py": str(ops_py), "size": "small", "op": op.name, "corrupt": op.name == corrupt})
        vec = self.ops.Buffer((64,))
        bundle(stage / "bundles" / "examples" / "demo" / "abc123",
               [buf("in0", vec, "input"), buf("out0", vec, "output")], {})
        manifest = build_manifest(stage, "small", self.ops, ["demo"])
        manifest["ops_py"] = str(ops_py)
        (stage / "manifest.json").write_text(json.dumps(manifest))

    def check_pipeline(self, corrupt: str | None) -> None:
        with tempfile.TemporaryDirectory(prefix="gpu-check-selftest-") as tmp:
            stage = Path(tmp) / "stage"
            self.make_fake_stage(stage, corrupt)
            fake = f"{sys.executable} {Path(__file__).with_name('fake_runner.py')}"
            argv = [str(stage), "--out", str(Path(tmp) / "out"), "--no-torch", "--runs", "2",
                    "--runner", fake]
            with contextlib.redirect_stdout(io.StringIO()) as stdout, \
                    contextlib.redirect_stderr(io.StringIO()):
                code = run.main(argv)
            results = json.loads((Path(tmp) / "out" / "results.json").read_text())
            want_failed = [corrupt] if corrupt else []
            assert results["failed"] == want_failed, \
                f"failed {results['failed']}, expected {want_failed}; exit {code}"
            assert code == (1 if corrupt else 0), f"exit code {code}"
            assert len(results["records"]) == len(self.ops.ops("small")) + 1, "rows missing"
            table = stdout.getvalue().strip().splitlines()
            assert table[-1].startswith("demo/abc123"), f"table not printed last: {table[-1:]}"

    def main(self) -> int:
        for size in self.ops.SIZES:
            self.test(f"table[{size}]", lambda size=size: self.check_table(size))
        opt = self.repo / "build" / "bin" / "cuda-agent-opt"
        if opt.exists():
            self.test("mlir[small] parse + outline", self.check_mlir_tool)
        else:
            print(f"SKIP mlir: no {opt}")
        for op in self.ops.ops("small"):
            self.test(f"reference[{op.name}]", lambda op=op: self.check_reference(op))
        try:
            import torch  # noqa: F401

            for op in self.ops.ops("small"):
                self.test(f"torch-cpu[{op.name}]", lambda op=op: self.check_torch_cpu(op))
        except ImportError:
            print("SKIP torch-cpu: torch is not installed")
        self.test("compare", self.check_compare)
        self.test("pipeline[clean]", lambda: self.check_pipeline(None))
        self.test("pipeline[corrupt]", lambda: self.check_pipeline("softmax_rows"))
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="gpu-check self-test", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[2],
                   help="repository root (default: two levels above this file)")
    args = p.parse_args(argv)
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("gpu-check self-test needs numpy (pip install numpy)", file=sys.stderr)
        return 2
    return SelfTest(args.repo.resolve()).main()
