#!/usr/bin/env python3
"""Prints what the PTX of some candidates holds, for FileCheck.

    print_ptx_ops.py JOBS_DIR PREFIX OP...

For every job of JOBS_DIR/jobs.json (in function order) and each of its
candidates whose name starts with PREFIX: one line with the function, the
candidate, its bundle's chip, the PTX's `.target` and, for each OP, how many
PTX instructions start with it (`OP=N`).
"""
import json
import os
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    jobs_dir, prefix, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
    jobs = json.load(open(os.path.join(jobs_dir, "jobs.json")))["jobs"]
    for job in sorted(jobs, key=lambda j: j["function"]):
        for cand in job["candidates"]:
            if not cand["name"].startswith(prefix):
                continue
            plan = json.load(open(os.path.join(jobs_dir, cand["bundle"], "plan.json")))
            ptx = plan.get("ptx", "")
            target = re.search(r"^\.target (\S+)", ptx, re.M)
            lines = [l.strip() for l in ptx.splitlines()]
            counts = " ".join(f"{op}={sum(l.startswith(op) for l in lines)}" for op in ops)
            print(f"{job['function']} {cand['name']} chip={plan.get('chip')} "
                  f"target={target.group(1) if target else None} {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
