"""The GPU side of scripts/verify-bench: times `cuda-agent-run --verify` on a staged region.

    python3 DIR/verify_bench.py DIR [--trials N] [--old RUNNER] [--timeout S]

DIR is what `scripts/verify-bench stage` wrote: jobs/jobs.json (one job: a reference bundle
and candidate bundles), bin/cuda-agent-run. Prints one row per candidate and writes
DIR/bench.json. Exit 1 when a candidate fails or the figures miss the budget (all
candidates within 30 s; each candidate's verifier time <= 20 x its kernel median + 1 s).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

TOTAL_BUDGET_S = 30.0


def kernel_seconds(entry: dict, trials: int, warmup: int, runs: int) -> float:
    """The kernel time inside one candidate's child: reference and candidate runs."""
    ref_us, cand_us = entry.get("ref_us") or 0.0, entry.get("cand_us") or 0.0
    # The runner takes fewer timed runs of slow plans; it says how many.
    timed = entry.get("ref_time") or {}
    warmup, runs = timed.get("warmup", warmup), timed.get("runs", runs)
    ref_runs = trials + warmup + runs           # one checked run per trial, then timing
    cand_runs = 2 * trials + warmup + runs + 1  # two per trial, timing, one after
    return (ref_us * ref_runs + cand_us * cand_runs) * 1e-6


def run_verify(runner: str, ref: Path, cands: list[Path], args: list[str],
               timeout: float | None) -> tuple[dict | None, float, int, str]:
    cmd = [runner, "--verify", str(ref), *map(str, cands), "--json", *args]
    print("$ " + " ".join(cmd), flush=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start, -9, f"killed after {timeout} s"
    wall = time.monotonic() - start
    try:
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary = None
    return summary, wall, proc.returncode, proc.stderr[-2000:]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stage", type=Path)
    p.add_argument("--trials", type=int, default=4)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--old", help="another runner binary to time on the first candidate")
    p.add_argument("--timeout", type=float, default=60.0, help="limit of the --old run")
    args = p.parse_args(argv)

    jobs_dir = args.stage / "jobs"
    job = json.loads((jobs_dir / "jobs.json").read_text())["jobs"][0]
    ref = jobs_dir / job["reference"]
    cands = [jobs_dir / (c["bundle"] if isinstance(c, dict) else c) for c in job["candidates"]]
    runner = str(args.stage / "bin" / "cuda-agent-run")
    flags = ["--trials", str(args.trials), "--time", "--warmup", str(args.warmup),
             "--runs", str(args.runs), "--timeout", "60"]
    summary, wall, code, stderr = run_verify(runner, ref, cands, flags, None)
    report = {"command": [runner, "--verify", "REF", f"{len(cands)} candidates", *flags],
              "wall_s": wall, "exit_code": code, "candidates": []}
    ok = summary is not None and code == 0
    if summary is None:
        print(f"no summary (exit {code}): {stderr}")
    else:
        print(f"{'candidate':<28} {'verdict':<8} {'child s':>8} {'ref us':>9} {'cand us':>9} "
              f"{'kernels s':>9} {'verifier s':>10} {'budget s':>9}")
        for entry in summary.get("candidates", []):
            child = entry.get("verify_s") or 0.0
            kernels = kernel_seconds(entry, args.trials, args.warmup, args.runs)
            own = child - kernels
            budget = 20 * (entry.get("cand_us") or 0.0) * 1e-6 + 1.0
            row = {"bundle": entry.get("bundle"), "verify": entry.get("verify"),
                   "reason": entry.get("reason"), "child_s": child,
                   "ref_us": entry.get("ref_us"), "cand_us": entry.get("cand_us"),
                   "kernel_s": kernels, "verifier_s": own, "budget_s": budget}
            report["candidates"].append(row)
            print(f"{Path(entry.get('bundle', '?')).name:<28} {entry.get('verify', '?'):<8} "
                  f"{child:8.2f} {entry.get('ref_us') or 0:9.0f} {entry.get('cand_us') or 0:9.0f} "
                  f"{kernels:9.2f} {own:10.2f} {budget:9.2f}")
            if entry.get("phase_s"):
                print("  phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in entry["phase_s"].items()))
                row["phase_s"] = entry["phase_s"]
            for parts in ("trial_phase_s", "timing_phase_s"):
                if entry.get(parts):
                    print(f"  {parts}: " + ", ".join(f"{k} {v:.3f}" for k, v in entry[parts].items()))
                    row[parts] = entry[parts]
            if entry.get("ref_time"):
                row["timed_runs"] = entry["ref_time"].get("runs")
                row["warmup"] = entry["ref_time"].get("warmup")
            if entry.get("verify") != "pass":
                print(f"  reason: {entry.get('reason')}")
                ok = False
            ok = ok and own <= budget
    print(f"all {len(cands)} candidates: {wall:.2f} s wall (budget {TOTAL_BUDGET_S:.0f} s)")
    ok = ok and wall <= TOTAL_BUDGET_S

    if args.old:
        old_flags = ["--trials", "1", "--time", "--timeout", str(args.timeout)]
        old, old_wall, old_code, old_err = run_verify(args.old, ref, cands[:1], old_flags,
                                                      args.timeout + 30)
        entry = (old or {}).get("candidates", [{}])[0]
        report["old"] = {"runner": args.old, "flags": old_flags, "wall_s": old_wall,
                         "exit_code": old_code, "verify": entry.get("verify"),
                         "reason": entry.get("reason")}
        print(f"old runner, 1 candidate, 1 trial: {old_wall:.2f} s wall, "
              f"{entry.get('verify')} {entry.get('reason') or ''}".rstrip())
    (args.stage / "bench.json").write_text(json.dumps(report, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
