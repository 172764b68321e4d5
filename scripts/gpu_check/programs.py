"""The program corpus on the GPU: every whole-program bundle `gpu-check stage-programs` staged
(test/Programs/*.mlir, as lowered and as outlined first), run once on generated inputs (a
program with integer inputs on its staged ones) and compared with its CPU reference
(reference.so) on the same inputs; optionally timed.

    python3 -m gpu_check programs DIR [--out OUT] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from .run import check_against_cpu_reference
from .runner import Runner


def main(argv) -> int:
    p = argparse.ArgumentParser(prog="gpu-check programs", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", type=Path, help="the directory `gpu-check stage-programs` wrote")
    p.add_argument("--out", type=Path, default=None, help="results (default: $OUT, else DIR/results)")
    p.add_argument("--runs", type=int, default=0, help="timed runs per bundle (0: no timing)")
    args = p.parse_args(argv)
    out = args.out or Path(os.environ.get("OUT") or args.stage / "results")
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "programs.log", "w")
    runner = Runner([str(args.stage / "bin" / "cuda-agent-run")], log)
    probe = runner.probe()
    if not probe.summary.get("gpu"):
        print(f"no GPU: {probe.error}", file=sys.stderr)
        return 3
    results, failed = [], 0
    for bundle in sorted(args.stage.glob("bundles/*/*/plan.json")):
        bundle = bundle.parent
        name = f"{bundle.parent.name}/{bundle.name}"
        work = out / "work" / bundle.parent.name / bundle.name
        # A program with integer inputs carries them (`inputs/`, staged from its saved
        # data): the runner's seeded integers would index out of range.
        inputs = bundle.parent / "inputs"
        if inputs.is_dir():
            run = runner.run(bundle, work, inputs=inputs, time_runs=args.runs)
            for npy in inputs.glob("*.npy"):
                shutil.copy(npy, work / npy.name)
        else:
            run = runner.run(bundle, work, seed=1, time_runs=args.runs)
        record = {"name": name, "ok": False}
        if not run.ok:
            record["error"] = "runner: " + run.error
        else:
            check = check_against_cpu_reference(bundle, work)
            record.update(ok=bool(check["ok"]), check=check, median_us=run.median_us)
        failed += not record["ok"]
        results.append(record)
        time = f"{record['median_us']:.1f} us" if record.get("median_us") else ""
        print(f"{name:48s} {'ok' if record['ok'] else 'FAIL'} {time} {record.get('error', '')}",
              flush=True)
    (out / "programs.json").write_text(json.dumps({"device": probe.summary.get("devices"),
                                                   "results": results}, indent=1, default=str))
    print(f"{len(results) - failed}/{len(results)} whole-program bundles match their CPU reference")
    return 1 if failed else 0
