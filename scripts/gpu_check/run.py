"""`gpu-check run DIR`: check and time every staged bundle on the GPU machine.

For each op of the suite (bench/ops.py, as staged):
  1. run the bundle once on generated inputs (seed 1), outputs and inputs saved as .npy;
  2. compare every output with a float64 reference computed from the same inputs
     (torch on the GPU when available, else NumPy on the CPU);
  3. time the bundle with the runner (--time --warmup W --runs R);
  4. time torch eager and torch.compile on the same inputs (CUDA events, L2 flushed).
For each example region bundle (examples/ and the lit inputs of test/Outline): run it twice
on the same inputs; the outputs must be NaN-free and bit-identical, and must agree with the
bundle's CPU reference (reference.so: the region as serial loops, see cpu_reference.py). Full logs and results.json go to
OUT; the table is printed last. Exit 1 if any check failed, 3 if there is no GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from . import compare, cpu_reference, report
from .manifest import load_ops
from .runner import Runner


class Session:
    """State shared by all ops of one run: options, runner, torch, log, deadline."""

    def __init__(self, args, stage: Path, out: Path, log):
        self.args, self.stage, self.out, self.log = args, stage, out, log
        self.manifest = json.loads((stage / "manifest.json").read_text())
        self.ops = load_ops(stage / self.manifest["ops_py"])
        runner_cmd = shlex.split(args.runner) if args.runner else [str(stage / self.manifest["runner"])]
        self.runner = Runner(runner_cmd, log, timeout_s=args.runner_timeout_s)
        self.deadline = time.monotonic() + args.budget_s
        self.work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="gpu-check-"))
        self.torch = None
        if not args.no_torch:
            from .torch_bench import TorchBench

            self.torch = TorchBench.create(log)

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()

    def note(self, message: str) -> None:
        """A progress line: to the log, and briefly to stderr."""
        self.log.write(message + "\n")
        self.log.flush()
        print(f"[gpu-check {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _merge_checks(checks: list[dict]) -> dict:
    """One record for all outputs of an op: ok iff all are, worst errors."""
    merged = {"ok": all(c.get("ok") for c in checks), "outputs": checks}
    for key in ("max_abs_err", "max_rel_err"):
        merged[key] = max((c.get(key, 0.0) for c in checks), default=0.0)
    errors = [c["error"] for c in checks if "error" in c]
    if errors:
        merged["error"] = "; ".join(errors)
    return merged


def _load_npy(paths: list[Path]):
    import numpy as np

    return [np.load(p) for p in paths]


def reference_outputs(s: Session, op, inputs) -> tuple[str, list]:
    if s.torch is not None:
        try:
            return "torch-cuda-f64", s.torch.reference(op, inputs)
        except Exception:  # noqa: BLE001 - fall back to NumPy, but say why in the log
            s.log.write("torch reference failed, using NumPy:\n" + traceback.format_exc())
    return "numpy-f64", op.numpy_ref(*inputs)


def check_outputs(s: Session, op, outputs, refs) -> dict:
    """Compares outputs (NumPy arrays or torch tensors) with refs, where the refs live."""
    if len(outputs) != len(refs):
        return {"ok": False, "error": f"{len(outputs)} outputs, reference has {len(refs)}"}
    if type(refs[0]).__module__.startswith("torch"):
        outputs = s.torch.to_device(outputs)
    else:
        outputs = [o.detach().cpu().numpy() if hasattr(o, "detach") else o for o in outputs]
    return _merge_checks([compare.check(o, r, op.tol.rtol, op.tol.atol) for o, r in zip(outputs, refs)])


def _work_dir(s: Session, entry: dict) -> Path:
    """Scratch space of one op or example (its .npy files), removed after it unless --keep-data."""
    return s.work / entry["name"].replace("/", "_")


def run_op(s: Session, entry: dict) -> dict:
    op = s.ops.op_by_name(s.manifest["size"], entry["name"])
    bundle = s.stage / entry["bundle"]
    work = _work_dir(s, entry)
    record = {"kind": "op", "name": op.name, "size": op.size, "bundle": entry["bundle"],
              "bytes": op.bytes, "flops": op.flops, "floor_us": op.floor_us,
              "tolerance": {"rtol": op.tol.rtol, "atol": op.tol.atol}}
    s.note(f"{op.name}: run + check")
    first = s.runner.run(bundle, work / "run1", seed=1)
    record["run"] = first.summary
    if not first.ok:
        record["check"] = {"ok": False, "error": f"runner: {first.error}"}
        return record
    inputs = _load_npy([work / "run1" / f"in{i}.npy" for i in range(len(op.inputs))])
    outputs = _load_npy([work / "run1" / f"out{i}.npy" for i in range(len(op.outputs))])
    record["reference"], refs = reference_outputs(s, op, inputs)
    record["check"] = check_outputs(s, op, outputs, refs)
    del outputs

    timed = s.runner.run(bundle, work / "timed", inputs=work / "run1",
                         time_runs=s.args.runs, warmup=s.args.warmup)
    record["default"] = timed.summary.get("time") if timed.ok else {"error": timed.error}
    record["default_us"] = timed.median_us
    if op.flops and timed.median_us:
        record["default_tflops"] = op.flops / timed.median_us / 1e6

    if s.torch is not None:
        compile_ok = not s.args.no_compile and s.remaining_s() > s.args.compile_reserve_s
        s.note(f"{op.name}: torch eager" + (" + compile" if compile_ok else ""))
        bench = s.torch.bench(op, inputs, refs, compile=compile_ok, warmup=s.args.warmup,
                              runs=s.args.runs, check=lambda o, r: check_outputs(s, op, o, r))
        if not compile_ok:
            bench["compile"] = {"error": "skipped (--no-compile or time budget)"}
        record["torch"] = bench
        record["eager_us"] = bench["eager"].get("median_us")
        record["compile_us"] = bench["compile"].get("median_us")
    return record


def run_example(s: Session, entry: dict) -> dict:
    bundle = s.stage / entry["bundle"]
    work = _work_dir(s, entry)
    record = {"kind": "example", "name": entry["name"], "size": "-", "bundle": entry["bundle"]}
    s.note(f"example {entry['name']}: two runs")
    a = s.runner.run(bundle, work / "a", seed=1)
    b = s.runner.run(bundle, work / "b", seed=1, time_runs=s.args.runs, warmup=s.args.warmup)
    record["runs"] = [a.summary, b.summary]
    if not (a.ok and b.ok):
        record["check"] = {"ok": False, "error": "runner: " + (a.error if not a.ok else b.error)}
        return record
    names = sorted(a.summary.get("outputs", {}))
    if not names or names != sorted(b.summary.get("outputs", {})):
        record["check"] = {"ok": False, "error": f"outputs {names} vs {sorted(b.summary.get('outputs', {}))}"}
        return record
    checks = {n: compare.identical(*_load_npy([work / "a" / f"{n}.npy", work / "b" / f"{n}.npy"]))
              for n in names}
    record["check"] = {"ok": all(c["ok"] for c in checks.values()),
                       "nan": sum(c["nan"] for c in checks.values()), "outputs": checks}
    if cpu_reference.available(bundle):
        record["reference"] = "cpu-loops"
        record["check"]["reference"] = check_against_cpu_reference(bundle, work / "a")
        record["check"]["ok"] = record["check"]["ok"] and record["check"]["reference"]["ok"]
    record["default"] = b.summary.get("time")
    record["default_us"] = b.median_us
    return record


def check_against_cpu_reference(bundle: Path, run_dir: Path) -> dict:
    """Runs the bundle's CPU reference on a GPU run's inputs and compares the outputs."""
    plan = json.loads((bundle / "plan.json").read_text())
    buffers = [b for b in plan["buffers"] if b["role"] in ("input", "output")]
    inputs = {b["name"]: _load_npy([run_dir / f"{b['name']}.npy"])[0]
              for b in buffers if b["role"] == "input"}
    refs = cpu_reference.run(bundle, plan, inputs)
    checks = {b["name"]: compare.agree(_load_npy([run_dir / f"{b['name']}.npy"])[0],
                                       refs[b["name"]], b["dtype"])
              for b in buffers if b["role"] == "output"}
    merged = _merge_checks(list(checks.values()))
    merged["outputs"] = checks
    return merged


def _guarded(s: Session, fn, entry: dict) -> dict:
    """Runs one op/example; an exception fails that row, not the session."""
    try:
        return fn(s, entry)
    except Exception as e:  # noqa: BLE001
        s.log.write(traceback.format_exc())
        return {"kind": "op" if fn is run_op else "example", "name": entry["name"],
                "size": s.manifest["size"], "check": {"ok": False, "error": f"{type(e).__name__}: {e}"}}
    finally:
        if not s.args.keep_data:
            shutil.rmtree(_work_dir(s, entry), ignore_errors=True)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="gpu-check run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", type=Path, help="the directory `gpu-check stage` wrote")
    p.add_argument("--out", type=Path, help="logs and results.json (default: $OUT, else DIR/results)")
    p.add_argument("--work", help="scratch directory for .npy data (default: a fresh temp dir)")
    p.add_argument("--keep-data", action="store_true", help="keep the .npy data in --work")
    p.add_argument("--runs", type=int, default=20, help="timed runs (default 20)")
    p.add_argument("--warmup", type=int, default=5, help="warm-up runs (default 5)")
    p.add_argument("--budget-s", type=float, default=330,
                   help="wall-clock budget; torch.compile is skipped once less than "
                        "--compile-reserve-s is left (default 330)")
    p.add_argument("--compile-reserve-s", type=float, default=90)
    p.add_argument("--runner-timeout-s", type=float, default=120)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--no-torch", action="store_true", help="NumPy references, no torch timings")
    p.add_argument("--only", help="comma-separated op/example names to run")
    p.add_argument("--runner", help="runner command line (default: DIR/bin/cuda-agent-run)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    stage = args.stage.resolve()
    out = args.out or (Path(os.environ["OUT"]) if os.environ.get("OUT") else stage / "results")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "log.txt", "w") as log:
        s = Session(args, stage, out, log)
        probe = s.runner.probe()
        results = {"stage": str(stage), "size": s.manifest["size"], "probe": probe.summary,
                   "torch": s.torch.describe() if s.torch else None,
                   "options": {k: v for k, v in vars(args).items() if k != "stage" and k != "out"}}
        if not probe.summary.get("gpu"):
            s.note(f"no GPU: {json.dumps(probe.summary)}")
            (out / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
            return 3
        only = set(args.only.split(",")) if args.only else None
        records = []
        for fn, key in ((run_op, "ops"), (run_example, "examples")):
            for entry in s.manifest[key]:
                if only is None or entry["name"] in only or entry.get("example") in only:
                    records.append(_guarded(s, fn, entry))
        if not args.work and not args.keep_data:
            shutil.rmtree(s.work, ignore_errors=True)
        results["records"] = records
        results["failed"] = [r["name"] for r in records if not r.get("check", {}).get("ok")]
        results["wall_s"] = args.budget_s - s.remaining_s()
        (out / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
        text = report.table(records)
        (out / "table.txt").write_text(text + "\n")
        log.write(text + "\n")
    print(f"results: {out / 'results.json'}  log: {out / 'log.txt'}  wall {results['wall_s']:.0f} s")
    if results["failed"]:
        print(f"FAILED checks: {', '.join(results['failed'])}")
    print(text)
    return 1 if results["failed"] else 0
