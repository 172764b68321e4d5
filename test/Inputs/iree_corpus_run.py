"""Runs the corpus's staged IREE exports on the GPU (scripts/iree-check run).

Per program of STAGE (iree_corpus_stage.py wrote it): verifies its regions'
candidates with the runner (`cuda-agent-run --jobs`), checks that the candidate
each exported region embeds passed there, runs the export with
`iree-run-module --device=cuda` on the staged inputs and compares every output
with the CPU reference (the corpus's tolerances, atol relative to the largest
reference value). A program the export's spec replaced regions in (spec.vmfb,
the program as written) is run and compared the same way. Prints one line per
program:

  <program>: ok|FAIL, max err E (tol T), K of N regions exported, V of K verified on the GPU[, spec: S regions replaced, max err E][: why]

then the totals; writes OUT/corpus.json. Exit 1 when a program failed.

    iree_corpus_run.py STAGE --runner cuda-agent-run --run-module iree-run-module --out OUT
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np


def verify(program, runner, log):
    """Per exported region, the GPU verdict of the candidate the export embeds."""
    spec = json.loads((program / "program.json").read_text())
    exported = [r for r in spec["regions"] if r["exported"]]
    if not exported:
        return {}
    run = subprocess.run([runner, "--jobs", str(program / "jobs")],
                         capture_output=True, text=True)
    log.write(f"== {program.name}: {runner} --jobs (exit {run.returncode})\n{run.stdout}{run.stderr}\n")
    verdicts = {}
    for region in exported:
        result = program / "jobs" / region["job"] / "result.json"
        verdict = "no result"
        if result.exists():
            for candidate in json.loads(result.read_text()).get("candidates", []):
                if Path(candidate["bundle"]).name == region["candidate"]:
                    verdict = candidate["verify"]
                    if verdict != "pass":
                        verdict += ": " + candidate.get("reason", "")
        if not region["candidate"]:
            verdict = "no candidate with the exported cubins"
        verdicts[region["function"]] = verdict
    return verdicts


def run_module_on_inputs(program, module, run_module, out, log):
    """The outputs of `module` (a vmfb of the program) on the staged inputs, or the error."""
    spec = json.loads((program / "program.json").read_text())
    outputs = [out / f"{program.name}.{module}.out{i}.npy" for i in range(spec["outputs"])]
    command = [run_module, "--device=cuda", f"--module={program / (module + '.vmfb')}",
               f"--function={spec['function']}"]
    command += [f"--input=@{program / f'in{i}.npy'}" for i in range(spec["inputs"])]
    command += [f"--output=@{path}" for path in outputs]
    run = subprocess.run(command, capture_output=True, text=True)
    log.write(f"== {program.name}: {' '.join(command)} (exit {run.returncode})\n{run.stderr}\n")
    if run.returncode != 0:
        lines = [l for l in run.stderr.splitlines() if l.strip()]
        return None, (lines[-1] if lines else f"exit {run.returncode}")[:200]
    return [np.load(path) for path in outputs], None


def compare(program, module, run_module, out, log, problems):
    """Runs `module` and compares its outputs with the CPU reference; appends what is
    wrong to `problems`. Returns the largest error and the tolerance (None when it did
    not run)."""
    spec = json.loads((program / "program.json").read_text())
    outputs, error = run_module_on_inputs(program, module, run_module, out, log)
    if error:
        problems.append(f"iree-run-module ({module}): " + error)
        return None, None
    error_max = tolerance = 0.0
    for i, got in enumerate(outputs):
        want = np.load(program / f"ref{i}.npy").astype(np.float64)
        got = got.astype(np.float64)
        bound = max(spec["atol"], spec["atol"] * np.abs(want).max()) + spec["rtol"] * np.abs(want)
        if got.shape != want.shape:
            problems.append(f"{module} output {i} has shape {got.shape}, not {want.shape}")
            continue
        error_max = max(error_max, float(np.nan_to_num(np.abs(got - want), nan=np.inf).max()))
        tolerance = max(tolerance, float(bound.max()))
        if not np.all(np.abs(got - want) <= bound):
            problems.append(f"{module} output {i} does not match the CPU reference")
    return error_max, tolerance


def check(program, runner, run_module, out, log):
    spec = json.loads((program / "program.json").read_text())
    regions = spec["regions"]
    exported = sum(r["exported"] for r in regions)
    verdicts = verify(program, runner, log)
    verified = sum(v == "pass" for v in verdicts.values())
    record = {"program": program.name, "regions": len(regions), "exported": exported,
              "verified": verified, "verdicts": verdicts, "ok": False}
    problems = [f"@{f} {v}" for f, v in verdicts.items() if v != "pass"]
    error_max, tolerance = compare(program, "exported", run_module, out, log, problems)
    spec_regions = spec.get("spec_regions", [])
    spec_err = None
    if spec_regions:
        spec_err, _ = compare(program, "spec", run_module, out, log, problems)
    record.update(ok=not problems, max_err=error_max, spec_regions=len(spec_regions),
                  spec_max_err=spec_err, problems=problems)
    err = "-" if error_max is None else f"{error_max:.1e} (tol {tolerance:.1e})"
    line = (f"{program.name}: {'ok' if record['ok'] else 'FAIL'}, max err {err}, {exported} of "
            f"{len(regions)} regions exported, {verified} of {exported} verified on the GPU")
    if spec_regions:
        line += (f", spec: {len(spec_regions)} regions replaced, max err "
                 + ("-" if spec_err is None else f"{spec_err:.1e}"))
    if problems:
        line += ": " + "; ".join(problems)
    return record, line


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stage")
    parser.add_argument("--runner", required=True)
    parser.add_argument("--run-module", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    stage, out = Path(args.stage), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    with open(out / "corpus.log", "w") as log:
        for program in sorted(p.parent for p in stage.glob("*/program.json")):
            record, line = check(program, args.runner, args.run_module, out, log)
            records.append(record)
            print(line, flush=True)
    ok = sum(r["ok"] for r in records)
    print(f"{ok} of {len(records)} corpus programs' exports match their CPU reference under IREE; "
          f"{sum(r['exported'] for r in records)} regions exported, "
          f"{sum(r['verified'] for r in records)} of them verified on the GPU; "
          f"{sum(r['spec_regions'] > 0 for r in records)} programs as written compiled with "
          f"the spec ({sum(r['spec_regions'] for r in records)} regions replaced)")
    (out / "corpus.json").write_text(json.dumps(records, indent=1))
    return 0 if ok == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
