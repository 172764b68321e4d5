"""The agent loop on the GPU machine: verification jobs and whole programs.

    python3 -m gpu_check agent-loop DIR --runner R [--out OUT]

For every DIR/jobs/<name>/jobs.json (written on the build machine by
`--agent-lower="... verify=bundle:DIR/jobs/<name>"`) runs `R --jobs` and copies
the results to OUT/agent-loop.json ({"jobs": {<name>: {<hash>: result.json}}}),
where `scripts/gpu-check import` picks them up for `cuda-agent-db import-results`.
The jobs named `hostile` hold the verifier fixtures as replay candidates of a
real region: each verdict is checked against DIR/verify/expected.json.

When DIR/programs/default and DIR/programs/spliced exist (whole-program
bundles of one program, all default and with the verified kernels spliced),
runs both on the same inputs and checks that every output agrees.
Exit 1 when a check failed.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from . import compare


def _run(cmd: list, log) -> tuple[int, dict | None]:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    log.write(f"$ {' '.join(str(c) for c in cmd)}\n{proc.stdout}{proc.stderr}\n")
    summary = None
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            summary = json.loads(line)
            break
        except ValueError:
            continue
    return proc.returncode, summary


def run_jobs(stage: Path, runner: Path, log) -> tuple[bool, dict, dict]:
    ok, results, raw_results = True, {}, {}
    for jobs_file in sorted(stage.glob("jobs/*/jobs.json")):
        jobs_dir = jobs_file.parent
        name = jobs_dir.name
        code, summary = _run([runner, "--jobs", jobs_dir], log)
        if code != 0 or not summary:
            print(f"  jobs {name}: runner failed (exit {code})")
            ok = False
            continue
        jobs = json.loads(jobs_file.read_text())
        results[name], raw = {}, {}
        for job in jobs["jobs"]:
            result = json.loads((jobs_dir / job["hash"] / "result.json").read_text())
            raw[job["hash"]] = result
            names = [c["name"] for c in job["candidates"]]
            verdicts = dict(zip(names, result.get("candidates", [])))
            results[name][job["hash"]] = verdicts
            print(f"  jobs {name}: {job.get('function', '?')}/{job.get('region', '?')} "
                  f"({job.get('kind', '?')})" + (f" error: {result['error']}" if "error" in result else ""))
            for cand, v in verdicts.items():
                speed = (f" x{v['speedup']:.2f} ({v['ref_us']:.1f} -> {v['cand_us']:.1f} us)"
                         if isinstance(v.get("speedup"), (int, float)) else "")
                print(f"    {cand:<18} {v['verify']:<5} {v.get('decision', ''):<10}{speed} {v.get('reason', '')}")
        raw_results[name] = raw
    return ok, results, raw_results


COPY_BW = 4.23e12  # bytes/s, the H200's measured device copy bandwidth (docs/perf.md)


def builtin_table(stage: Path, out: Path) -> bool:
    """The builtin agent's jobs: every region must get a verified kernel; prints
    default vs builtin vs torch.compile (same run) and the bandwidth reached."""
    compile_us = {}
    results_file = out / "results.json"
    if results_file.exists():
        for record in json.loads(results_file.read_text()).get("records", []):
            if record.get("kind") == "op" and record.get("compile_us"):
                compile_us[record["name"]] = record["compile_us"]
    rows, ok = [], True
    for jobs_file in sorted(stage.glob("jobs/builtin-*/jobs.json")):
        jobs = json.loads(jobs_file.read_text())
        for job in jobs["jobs"]:
            result = json.loads((jobs_file.parent / job["hash"] / "result.json").read_text())
            verdicts = list(zip([c["name"] for c in job["candidates"]], result.get("candidates", [])))
            passed = [(n, v) for n, v in verdicts if v["verify"] == "pass" and v.get("cand_us")]
            if not passed:
                ok = False
                first = verdicts[0] if verdicts else ("-", {"reason": result.get("error", "no candidates")})
                rows.append((job["function"], job["kind"], "-", "-", "-", "-", "-", "-",
                             f"NO VERIFIED KERNEL ({first[0]}: {first[1].get('reason', '')[:80]})"))
                continue
            name, best = min(passed, key=lambda nv: nv[1]["cand_us"])
            bw = job.get("bytes", 0) / (best["cand_us"] * 1e-6) if job.get("bytes") else 0
            tc = compile_us.get(job["function"])
            rows.append((job["function"], job["kind"], f"{best['ref_us']:.1f}", f"{best['cand_us']:.1f}",
                         f"{best['speedup']:.2f}x", f"{bw / 1e12:.2f} TB/s ({100 * bw / COPY_BW:.0f}%)",
                         f"{tc:.1f}" if tc else "n/a", f"{tc / best['cand_us']:.2f}x" if tc else "n/a",
                         name + ("" if best.get("accepted") else " (not faster)")))
    if rows:
        head = ("region", "kind", "default us", "builtin us", "vs default", "bandwidth (of 4.23)",
                "compile us", "compile/builtin", "kernel")
        widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
        print("\nbuiltin agent: best verified kernel per region (same run)")
        for r in [head] + rows:
            print("  " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return ok


def check_hostile(stage: Path, results: dict) -> bool:
    """Every fixture that reached the runner got its expected verdict."""
    if "hostile" not in results:
        return True
    expected = json.loads((stage / "verify" / "expected.json").read_text())
    threats = next(r for r in expected["runs"] if r["name"] == "threats")["candidates"]
    ok, seen = True, 0
    for verdicts in results["hostile"].values():
        for name, verdict in verdicts.items():
            want = threats.get(name)
            if want is None:
                continue
            seen += 1
            good = (verdict["verify"] == want["verify"] and want["reason"] in verdict.get("reason", "")
                    and ("decision" not in want or verdict.get("decision") == want["decision"]))
            if not good:
                ok = False
                print(f"  hostile {name}: expected {want}, got verify={verdict['verify']} "
                      f"decision={verdict.get('decision')} reason={verdict.get('reason')!r}")
    print(f"  hostile fixtures through --agent-lower jobs: {seen} checked, "
          f"{'all as expected' if ok else 'MISMATCH'}")
    return ok and seen > 0


def check_programs(stage: Path, runner: Path, log) -> bool:
    default, spliced = stage / "programs" / "default", stage / "programs" / "spliced"
    if not (default / "plan.json").exists() or not (spliced / "plan.json").exists():
        return True
    with tempfile.TemporaryDirectory() as data:
        return _compare_programs(default, spliced, runner, Path(data), log)


def _compare_programs(default: Path, spliced: Path, runner: Path, out: Path, log) -> bool:
    code, ref = _run([runner, default, "--out", out / "programs" / "default", "--seed", "7", "--json"], log)
    if code != 0 or not ref:
        print(f"  programs: the all-default program failed (exit {code})")
        return False
    inputs = out / "programs" / "default"
    code, got = _run([runner, spliced, "--out", out / "programs" / "spliced", "--inputs", inputs, "--json"], log)
    if code != 0 or not got:
        print(f"  programs: the spliced program failed (exit {code})")
        return False
    import numpy as np
    ok = True
    for name, path in ref["outputs"].items():
        a, b = np.load(got["outputs"][name]), np.load(path)
        verdict = compare.agree(a, b, "f32")
        ok = ok and verdict["ok"]
        print(f"  programs: output {name}: spliced vs all-default max_abs_err "
              f"{verdict.get('max_abs_err', float('nan')):.3g} -> {'ok' if verdict['ok'] else 'MISMATCH'}")
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="gpu-check agent-loop")
    p.add_argument("stage", type=Path)
    p.add_argument("--runner", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "agent-loop.log", "w") as log:
        print("agent loop: verification jobs written by --agent-lower (verify=bundle)")
        ok, results, raw = run_jobs(args.stage, args.runner, log)
        ok = check_hostile(args.stage, results) and ok
        ok = check_programs(args.stage, args.runner, log) and ok
        ok = builtin_table(args.stage, args.out) and ok
    (args.out / "agent-loop.json").write_text(json.dumps({"jobs": raw, "verdicts": results}))
    return 0 if ok else 1
