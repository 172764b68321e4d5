"""Stages the corpus's IREE exports for a GPU run (scripts/iree-check stage).

Reads what test/Inputs/iree_corpus.py wrote into BUILD (per program: the export
compiled to <name>.vmfb, the manifest under iree/, and under work/ the
verification jobs of every region: the builtin agent's candidates, accepted
there by the stand-in runner) and writes, per program that compiled, OUT/<name>/:

  exported.vmfb          the export
  spec.vmfb              the program as written compiled with the export's
                         spec, when IREE replaced regions in it
  jobs/                  the regions' verification jobs (no results), which the
                         GPU run verifies with cuda-agent-run --jobs first
  in<i>.npy, ref<j>.npy  the inputs and the program's CPU reference outputs on
                         them (agent-cpu-reference, mlir-translate, clang: the
                         corpus's inputs and references of
                         test/Programs/Inputs/check_cpu_reference.py)
  program.json           the function, the tolerances, and per exported region
                         the job and the candidate whose cubins the export
                         embeds (found by their bytes)

    iree_corpus_stage.py --build BUILD --programs test/Programs --out OUT \
        --opt cuda-agent-opt --translate mlir-translate --clang clang

Prints one line per program staged or not.
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np


def candidate_of(region, iree_dir, job_dir):
    """The candidate of `job_dir` whose kernel objects are the cubins the export
    embeds for `region`, or None."""
    embedded = [(iree_dir / d["cubin"]).read_bytes() for d in region["dispatches"]]
    for candidate in sorted((job_dir / "candidates").iterdir()):
        plan = json.loads((candidate / "plan.json").read_text())
        objects = [(candidate / launch["object"]).read_bytes()
                   for launch in plan["launches"] if launch.get("object")]
        if objects == embedded:
            return candidate.name
    return None


def write_jobs(work, jobs, function, regions):
    """jobs/jobs.json with every exported region's job: the runner was called once per
    region, so work/jobs.json lists the last one only; the others are rebuilt from their
    directories (the reference's region.mlir carries the region's kind, flops and bytes)."""
    spec = json.loads((work / "jobs.json").read_text())
    kept = {job["hash"]: job for job in spec["jobs"]}
    function = next((job["function"] for job in spec["jobs"]), function)
    spec["jobs"] = []
    for hash_, name in regions:
        if hash_ in kept:
            spec["jobs"].append(kept[hash_])
            continue
        region = (work / hash_ / "reference" / "region.mlir").read_text()
        attribute = lambda key: re.search(key + r' = "?([\w.]+)', region).group(1)
        candidates = []
        for candidate in sorted((work / hash_ / "candidates").iterdir()):
            plan = json.loads((candidate / "plan.json").read_text())
            candidates.append({"agent": plan.get("agent", "builtin"), "model": plan.get("model", ""),
                               "bundle": f"{hash_}/candidates/{candidate.name}",
                               "name": candidate.name, "turn": 1})
        spec["jobs"].append({
            "hash": hash_, "function": function, "region": name,
            "kind": attribute("kind"), "flops": int(attribute("flops")),
            "bytes": int(attribute("bytes")), "reference": f"{hash_}/reference",
            "region_mlir": region, "candidates": candidates})
    (jobs / "jobs.json").write_text(json.dumps(spec, indent=1))


def stage_program(name, build, programs, out, tools, reference):
    source = build / name
    manifests = list((source / "iree").glob("*.iree.json"))
    if not (source / f"{name}.vmfb").exists() or not manifests:
        return f"{name}: not staged (no compiled export)"
    manifest = json.loads(manifests[0].read_text())
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(source / f"{name}.vmfb", target / "exported.vmfb")
    spec_regions = [r["function"] for r in manifest["regions"] if r.get("spec") == "matched"]
    if (source / f"{name}.spec.vmfb").exists():
        shutil.copy(source / f"{name}.spec.vmfb", target / "spec.vmfb")
    else:
        spec_regions = []
    regions = []
    for region in manifest["regions"]:
        entry = {"function": region["function"], "exported": region["exported"]}
        if region["exported"]:
            entry["job"] = region["hash"]
            entry["candidate"] = candidate_of(region, source / "iree", source / "work" / region["hash"])
        else:
            entry["reason"] = region["reason"]
        regions.append(entry)
    if any(r["exported"] for r in regions):
        shutil.copytree(source / "work", target / "jobs",
                        ignore=shutil.ignore_patterns("result.json", "*.cu", "region.mlir"))
        write_jobs(source / "work", target / "jobs", manifest["module"],
                   [(r["hash"], r["function"]) for r in manifest["regions"] if r["exported"]])

    function, inputs, expected = reference.program_case(name, programs, np.random.default_rng(0))
    outputs = reference.run(reference.build(tools, out / "_cpu", programs / f"{name}.mlir", False),
                            function, inputs, expected)
    for i, a in enumerate(inputs):
        np.save(target / f"in{i}.npy", np.ascontiguousarray(a))
    for i, a in enumerate(outputs):
        np.save(target / f"ref{i}.npy", a)
    rtol, atol = reference.TOLERANCES[reference.element_type(inputs)]
    (target / "program.json").write_text(json.dumps(
        {"function": function, "inputs": len(inputs), "outputs": len(outputs),
         "rtol": rtol, "atol": atol, "regions": regions, "spec_regions": spec_regions},
        indent=1))
    exported = sum(r["exported"] for r in regions)
    unmatched = [r["function"] for r in regions if r["exported"] and not r["candidate"]]
    note = f"; no candidate has the cubins of {unmatched}" if unmatched else ""
    return f"{name}: staged, {exported} of {len(regions)} regions exported{note}"


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--build", "--programs", "--out", "--opt", "--translate", "--clang"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    build, programs, out = Path(args.build), Path(args.programs), Path(args.out)
    sys.path.insert(0, str(programs / "Inputs"))
    import check_cpu_reference as reference
    out.mkdir(parents=True, exist_ok=True)
    (out / "_cpu").mkdir(exist_ok=True)
    tools = (args.opt, args.translate, args.clang)
    for program in sorted(p.name for p in build.iterdir() if (p / "iree").is_dir()):
        print(stage_program(program, build, programs, out, tools, reference), flush=True)
    shutil.rmtree(out / "_cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
