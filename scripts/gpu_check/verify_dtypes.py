"""The GPU side of `scripts/verify-bench`'s dtype sweep: the verifier's kernels on every path.

    python3 DIR/verify_dtypes.py DIR/dtypes RUNNER

DIR/dtypes/<t> (t in f16, bf16, i32, f32) is a jobs directory `scripts/verify-bench stage`
lowered from a + b over 999x1001 elements of t: an odd count, so every kernel runs its scalar
tail after the 16-byte chunks and the input generation a Box-Muller pair cut short. Runs
`RUNNER --verify REF CANDS --json --trials 4 --time` per dtype and prints each candidate's
verdict, reason and per-trial errors. Exit 1 unless every candidate passes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DTYPES = ("f16", "bf16", "i32", "f32")


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, runner = Path(sys.argv[1]), sys.argv[2]
    status = 0
    for dtype in DTYPES:
        jobs = root / dtype
        job = json.loads((jobs / "jobs.json").read_text())["jobs"][0]
        ref = jobs / job["reference"]
        cands = [jobs / c["bundle"] for c in job["candidates"]]
        proc = subprocess.run([runner, "--verify", str(ref), *map(str, cands), "--json",
                               "--trials", "4", "--time"], capture_output=True, text=True)
        try:
            summary = json.loads(proc.stdout)
        except ValueError:
            print(f"{dtype}: no summary (exit {proc.returncode}): {proc.stderr[-2000:]}")
            status = 1
            continue
        if summary.get("status") != "ok":
            print(f"{dtype}: status {summary.get('status')}: {summary.get('error')}")
            status = 1
        for entry in summary.get("candidates", []):
            verdict = entry.get("verify")
            trials = [(t.get("distribution"), t.get("max_abs_err"), t.get("ok"))
                      for t in entry.get("trials", [])]
            print(f"{dtype} {Path(entry.get('bundle', '?')).name}: {verdict} "
                  f"{entry.get('reason') or ''} speedup={entry.get('speedup')} trials={trials}")
            if verdict != "pass":
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
