"""Writes a kernel database export (cuda-agent-db's JSON) whose kernels'
verification records carry the runner's offset trial, as a verifier that
ran it would have stored them: the kernel of every region whose hash
starts with PREFIX gets {"alignment": 64, "ok": ...}, or none (`none`: a
record from before the verifier ran the trial).

    iree_offset_trial.py IN.json OUT.json PREFIX=pass|fail|none ...
"""
import json
import sys

source, target, *marks = sys.argv[1:]
export = json.load(open(source))
for mark in marks:
    prefix, outcome = mark.split("=")
    kernels = [k for k in export["kernels"] if k["region_hash"].startswith(prefix)]
    assert kernels, f"no kernel of a region {prefix}..."
    for kernel in kernels:
        if outcome == "none":
            kernel["verification"].pop("offset_trial", None)
            continue
        trial = {"alignment": 64, "ok": outcome == "pass"}
        if outcome == "fail":
            trial["reason"] = ("mismatch in out0 at [0, 64] with every buffer at a 64-byte "
                               "(not 128-byte) aligned address, inputs of trial 4: got 0, "
                               "expected 1.5 (512 of 131072 elements off)")
        kernel["verification"]["offset_trial"] = trial
json.dump(export, open(target, "w"), indent=1)
