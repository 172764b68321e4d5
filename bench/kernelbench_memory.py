"""Memory-bound regions at KernelBench sizes on the GPU: the builtin agent's kernels verified and
timed by `cuda-agent-run --verify`, and the same ops under torch.compile, in one process run.

    python3 kernelbench_memory.py STAGE [--trials N] [--runs N] [--only NAME...] [--timeout S]

STAGE holds bin/cuda-agent-run and jobs/ (`cuda-agent-opt R.mlir --agent-outline`, then
`--agent-generate="samples=16 db=none verify=bundle:STAGE/jobs"` for each of
bench/mlir/kernelbench/*.mlir). Each job's candidates whose names are in CANDIDATES are verified
against the job's reference (the default lowering) and timed; then each op runs under
torch.compile (default mode) on inputs made on the device, timed by CUDA events (median).
Prints a table and writes STAGE/memory-bench.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# The region function of each op, the candidates to verify (those of these names that the job
# has), the torch op and its inputs' shapes.
OPS = {
    "relu": (["flat-v4-t256", "flat-v4-t512"], "relu", [(4096, 393216)]),
    "softmax": (["rows-g1024-b1024-v4", "cluster8-b1024-v4-staged",
                 "exchange16-b512-v4-staged", "exchange24-b256-v4-staged",
                 "exchange39-b256-v4-staged"],
                "softmax", [(4096, 393216)]),
    "sum_mid": (["sliced-s16", "sliced-s8-w8", "sliced-s16-w8", "sliced-s8-w16",
                 "sliced-s4-w16"], "sum_mid", [(128, 4096, 4095)]),
    "layernorm": (["cluster8-b1024-v4", "cluster8-b512-v4", "rows-g512-b512-v4"],
                          "layernorm", [(16, 64, 256, 256), (64, 256, 256), (64, 256, 256)]),
}


def verify(stage: Path, job: dict, names: list[str], trials: int, runs: int,
           timeout: int) -> dict:
    jobs = stage / "jobs"
    cands = [jobs / c["bundle"] for c in job["candidates"] if c["name"] in names]
    cmd = [str(stage / "bin" / "cuda-agent-run"), "--verify", str(jobs / job["reference"]),
           *map(str, cands), "--json", "--trials", str(trials), "--time", "--warmup", "2",
           "--runs", str(runs), "--timeout", str(timeout)]
    print("$ " + " ".join(cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary = {"error": proc.stderr[-3000:]}
    summary["wall_s"] = wall
    summary["exit_code"] = proc.returncode
    return summary


def torch_times(op: str, shapes: list, runs: int) -> dict:
    import torch
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda").manual_seed(0)
    xs = [torch.randn(s, device="cuda", generator=gen) for s in shapes]
    fns = {
        "relu": lambda x: torch.relu(x),
        "softmax": lambda x: torch.softmax(x, dim=1),
        "sum_mid": lambda x: torch.sum(x, dim=1),
        "layernorm": lambda x, w, b: F.layer_norm(x, x.shape[1:], w, b, 1e-5),
    }
    fn = torch.compile(fns[op])
    start = time.monotonic()
    fn(*xs)
    torch.cuda.synchronize()
    compile_s = time.monotonic() - start
    times = []
    for i in range(runs + 2):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn(*xs)
        b.record()
        torch.cuda.synchronize()
        if i >= 2:
            times.append(a.elapsed_time(b) * 1000.0)
    del xs
    torch.cuda.empty_cache()
    times.sort()
    return {"compile_us": times[len(times) // 2], "compile_min_us": times[0],
            "compile_s": compile_s, "runs": runs}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stage", type=Path)
    p.add_argument("--trials", type=int, default=2)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--only", nargs="*")
    p.add_argument("--timeout", type=int, default=120,
                   help="seconds per candidate's child (cuda-agent-run --timeout)")
    args = p.parse_args(argv)
    jobs = json.loads((args.stage / "jobs" / "jobs.json").read_text())["jobs"]
    report = {}
    for job in jobs:
        name = job["function"]
        if name not in OPS or (args.only and name not in args.only):
            continue
        names, op, shapes = OPS[name]
        entry = {"verify": verify(args.stage, job, names, args.trials, args.runs,
                                   args.timeout)}
        for c in entry["verify"].get("candidates", []):
            print(f"  {name:<20} {Path(c.get('bundle', '?')).name:<28} {c.get('verify')!s:<6} "
                  f"ref {c.get('ref_us') or 0:9.0f} us  cand {c.get('cand_us') or 0:9.0f} us  "
                  f"{c.get('reason') or ''}", flush=True)
        if "error" in entry["verify"]:
            print(f"  {name}: {entry['verify']['error']}", flush=True)
        try:
            entry["torch"] = torch_times(op, shapes, args.runs)
            print(f"  {name:<20} torch.compile {entry['torch']['compile_us']:9.0f} us "
                  f"(min {entry['torch']['compile_min_us']:.0f}, compile "
                  f"{entry['torch']['compile_s']:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - reported, the other ops still run
            entry["torch"] = {"error": repr(e)}
            print(f"  {name}: torch failed: {e!r}", flush=True)
        report[name] = entry
    (args.stage / "memory-bench.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
