"""Exports every whole program of test/Programs for IREE and compiles each
export with iree-compile for CUDA sm_90, listing the programs that fail with
the reason (iree-compile's first error). Each program whose spec.mlir claims
regions is compiled as written with the spec too, and the regions IREE
replaced (their dispatch functions imported) are compared with the claims;
it is compiled on to DIR/<name>/<name>.spec.vmfb for the GPU run.

The kernels are the builtin agent's, accepted by the stand-in runner
(Inputs/runner/fake-runner.py, FAKE_RUNNER=accept): this checks that the
exports compile, not that the kernels are right (the GPU run of
scripts/iree-check does that).

    iree_corpus.py --opt cuda-agent-opt --runner fake-runner.py \
                   --programs test/Programs --out DIR [--only NAME ...]

Prints one line per program (and one per region left to IREE's codegen,
with the export's reason), then the totals; writes DIR/corpus.json.
Exit 0 when every program was exported (iree-compile failures are listed,
not errors), 1 when cuda-agent-opt failed on one.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return re.sub(r"^.*?error: ", "", line).strip()[:240]
    return text.strip().splitlines()[-1][:240] if text.strip() else "no output"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--programs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--iree-compile", default="iree-compile")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    names = sorted(f[:-5] for f in os.listdir(args.programs) if f.endswith(".mlir"))
    if args.only:
        names = [n for n in names if n in args.only]
    env = dict(os.environ, FAKE_RUNNER="accept")

    def one(name):
        out = os.path.join(args.out, name)
        os.makedirs(out, exist_ok=True)
        lower = subprocess.run(
            [args.opt, os.path.join(args.programs, name + ".mlir"),
             f"--agent-lower=agent=builtin runner={args.runner} db=none jobs=1 "
             f"work-dir={out}/work export=iree:{out}/iree lower=false",
             "-o", os.devnull], capture_output=True, text=True, env=env)
        entry = {"program": name}
        if lower.returncode != 0:
            entry.update(status="export-failed", reason=first_error(lower.stderr))
            return entry
        manifest = [f for f in os.listdir(os.path.join(out, "iree")) if f.endswith(".iree.json")][0]
        regions = json.load(open(os.path.join(out, "iree", manifest)))["regions"]
        entry["regions"] = len(regions)
        entry["exported"] = sum(r["exported"] for r in regions)
        entry["spec_matched"] = sum(r.get("spec") == "matched" for r in regions)
        entry["left_to_iree"] = {r["function"]: r["reason"] for r in regions if not r["exported"]}
        module = os.path.join(out, "iree", manifest.replace(".iree.json", ".iree.mlir"))
        compile_ = subprocess.run(
            [args.iree_compile, module, "@" + os.path.join(out, "iree", "sm90.flags"),
             "-o", os.path.join(out, name + ".vmfb")], capture_output=True, text=True)
        if compile_.returncode == 0:
            entry["status"] = "compiled"
        else:
            entry.update(status="iree-compile-failed", reason=first_error(compile_.stderr))
        claimed = sorted(r["function"] for r in regions if r.get("spec") == "matched")
        if claimed:
            # The program as written, with the spec: to the end of preprocessing (the
            # regions IREE replaced have their dispatch functions imported), and to a
            # vmfb (not from the preprocessed text: IREE 3.13 prints an object
            # without a path as `{, data = ...}`, which it cannot parse back).
            command = [args.iree_compile, os.path.join(args.programs, name + ".mlir"),
                       "@" + os.path.join(out, "iree", "sm90.flags"),
                       "--iree-preprocessing-transform-spec-filename=" +
                       os.path.join(out, "iree", "spec.mlir")]
            with_spec = subprocess.run(command + ["--compile-to=preprocessing", "-o", "-"],
                                       capture_output=True, text=True)
            if with_spec.returncode != 0:
                entry["spec_check"] = "not checked: " + first_error(with_spec.stderr)
            else:
                replaced = sorted(set(re.findall(r"util\.func private @cuda_agent_(\w+)\(",
                                                 with_spec.stdout)))
                entry["spec_check"] = ("replaced as claimed" if replaced == claimed else
                                       f"SPEC MISMATCH: claimed {claimed}, IREE replaced {replaced}")
                entry["spec_replaced"] = len(replaced)
                vmfb = subprocess.run(command + ["-o", os.path.join(out, name + ".spec.vmfb")],
                                      capture_output=True, text=True)
                if vmfb.returncode != 0:
                    entry["spec_check"] = "SPEC COMPILE FAILED: " + first_error(vmfb.stderr)
        return entry

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(one, names))
    for entry in results:
        if entry["status"] == "export-failed":
            print(f"{entry['program']}: EXPORT FAILED: {entry['reason']}")
            continue
        line = (f"{entry['program']}: {entry['status']}, {entry['exported']} of "
                f"{entry['regions']} regions exported, {entry['spec_matched']} in the spec")
        if "reason" in entry:
            line += f": {entry['reason']}"
        if "spec_check" in entry:
            line += f"; spec: {entry['spec_check']}"
        print(line)
        for function, reason in entry["left_to_iree"].items():
            print(f"  @{function} left to IREE: {reason}")
    compiled = sum(r["status"] == "compiled" for r in results)
    print(f"{compiled} of {len(results)} programs compiled by iree-compile; "
          f"{sum(r.get('exported', 0) for r in results)} regions exported; "
          f"{sum(r.get('spec_matched', 0) for r in results)} in the specs, "
          f"{sum(r.get('spec_replaced', 0) for r in results)} of them replaced by IREE "
          f"in the programs as written")
    json.dump(results, open(os.path.join(args.out, "corpus.json"), "w"), indent=1)
    return 1 if any(r["status"] == "export-failed" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
