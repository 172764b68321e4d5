#!/usr/bin/env python3
"""Prints, for the jobs of an agent-generate run at each precision, how each
region of the OUTLINED files is keyed.

    check_precision_keys.py OUTLINED.mlir... JOBS_F32 JOBS_TF32

For each jobs directory (precision f32, then tf32) and each region (its
`cuda_agent.region` hash and kind): whether the job's hash (the key of the
kernel database, the decisions and the job folders) is the region's hash,
the reference plan's "precision", and the candidates' names. A region with
no job of its own hash must have exactly one job whose function is the
region's.
"""
import json
import os
import re
import sys


def main():
    outlined, dirs = sys.argv[1:-2], sys.argv[-2:]
    for precision, jobs_dir in zip(("f32", "tf32"), dirs):
        jobs = json.load(open(os.path.join(jobs_dir, "jobs.json")))["jobs"]
        for path in outlined:
            text = open(path).read()
            for name, region_hash, kind in re.findall(
                    r'func\.func private @(\w+)\(.*?hash = "([0-9a-f]{64})", kind = "(\w+)"', text):
                job = next((j for j in jobs if j["region"] == name), None)
                if job is None:
                    print(f"{precision} {kind}: NO JOB")
                    continue
                plan = json.load(open(os.path.join(jobs_dir, job["reference"], "plan.json")))
                same = "=" if job["hash"] == region_hash else "!="
                names = " ".join(c["name"] for c in job["candidates"][:3 if precision == "tf32" else 8])
                print(f"{precision} {kind}: key {same} region hash, precision {plan.get('precision', '-')}, "
                      f"candidates {names if kind == 'contraction' else ''}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
