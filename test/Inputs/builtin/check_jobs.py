#!/usr/bin/env python3
"""Checks that the builtin agent wrote compiled candidates for every
memory-bound, contraction and convolution region.

    check_jobs.py JOBS_DIR OUTLINED.mlir...

Every region that agent-outline found in the OUTLINED files (their
`cuda_agent.region` attributes) with kind elementwise, reduction,
contraction or convolution must have a job in JOBS_DIR/jobs.json with at
least one candidate whose bundle holds a cubin (candidates reach the jobs
only after NVRTC compiled them and their launch plan passed the checks);
regions of other kinds must not. Prints one line per region; exits 1 on a
miss.
"""
import json
import os
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    jobs_dir = sys.argv[1]
    jobs = {job["hash"]: job for job in json.load(open(os.path.join(jobs_dir, "jobs.json")))["jobs"]}
    ok, seen = True, 0
    for outlined in sys.argv[2:]:
        text = open(outlined).read()
        for region_hash, kind in re.findall(r'hash = "([0-9a-f]{64})", kind = "(\w+)"', text):
            seen += 1
            job = jobs.get(region_hash)
            covered = kind in ("elementwise", "reduction", "contraction", "convolution")
            cubins = [c for c in (job or {}).get("candidates", [])
                      if os.path.exists(os.path.join(jobs_dir, c["bundle"], "kernel.cubin"))]
            good = bool(cubins) if covered else job is None
            ok = ok and good
            print(f"{'ok  ' if good else 'MISS'} {kind:<12} {region_hash[:12]} "
                  f"{len(cubins)} compiled candidate(s): {', '.join(c['name'] for c in cubins)}")
    if seen == 0:
        print("no regions found")
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
