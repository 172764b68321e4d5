#!/usr/bin/env python3
"""Turns the verification fixtures into replay candidates for a region.

    to_replay.py HASH|OUTLINED.mlir OUTDIR [NAME | NAME=SOURCE.cu ...]

writes OUTDIR/HASH/<name>.cu (the fixture's k.cu) and OUTDIR/HASH/<name>.json
(its launch plan in the candidate contract's form: kernel, grid, block,
shared_bytes) for every fixture under candidates/ (or only the NAMEs given),
so that `--agent-lower="agent=replay replay-dir=OUTDIR"` proposes them for
the region of add_relu.mlir, whose hash is HASH (or is read from the
outlined module). NAME=SOURCE.cu adds SOURCE.cu as candidate NAME with a
one-thread launch of `add_relu`.
"""
import json
import os
import re
import shutil
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    region_hash, outdir, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    if os.path.isfile(region_hash):
        found = re.findall(r'hash = "([0-9a-f]{64})"', open(region_hash).read())
        if len(found) != 1:
            sys.exit(f"expected one region in {region_hash}, found {len(found)}")
        region_hash = found[0]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "candidates")
    names = names or sorted(os.listdir(here))
    dest = os.path.join(outdir, region_hash)
    os.makedirs(dest, exist_ok=True)
    for name in names:
        if "=" in name:
            name, source = name.split("=", 1)
            shutil.copy(source, os.path.join(dest, name + ".cu"))
            with open(os.path.join(dest, name + ".json"), "w") as f:
                json.dump({"launches": [{"kernel": "add_relu", "grid": [1], "block": [1]}]}, f)
            continue
        src = os.path.join(here, name)
        plan = json.load(open(os.path.join(src, "plan.json")))
        launches = [{"kernel": launch["kernel"], "grid": launch["grid"],
                     "block": launch["block"],
                     "shared_bytes": launch.get("shared_bytes", 0)}
                    for launch in plan["launches"]]
        contract = {"launches": launches}
        if plan.get("workspace_bytes"):
            contract["workspace_bytes"] = plan["workspace_bytes"]
        shutil.copy(os.path.join(src, "k.cu"), os.path.join(dest, name + ".cu"))
        with open(os.path.join(dest, name + ".json"), "w") as f:
            json.dump(contract, f)
    print(dest)


if __name__ == "__main__":
    main()
