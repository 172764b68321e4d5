#!/usr/bin/env python3
"""Runs the verification fixtures on a GPU and checks every verdict.

    bash test/Inputs/verify/build.sh OUTDIR
    python3 test/Inputs/verify/check.py --runner build/bin/cuda-agent-run OUTDIR

For each run of expected.json (next to this script) it calls
`cuda-agent-run --verify OUTDIR/[REGION/]reference OUTDIR/[REGION/]candidates/<name>...
--json <args>` (REGION: the run's optional "region", e.g. "matmul"), then compares each candidate's verify verdict, reason substring and
(when given) timing decision with the expectation. Prints one table row per
candidate and exits 1 on any deviation (2 when the runner itself failed).
With --log FILE the runner's full JSON summaries are written there.
"""
import argparse
import json
import os
import subprocess
import sys


def run_group(runner, outdir, group):
    """Runs one group; returns (summary or None, runner exit code, stderr)."""
    names = list(group["candidates"])
    region = os.path.join(outdir, group.get("region", ""))
    cmd = [runner, "--verify", os.path.join(region, "reference")]
    cmd += [os.path.join(region, "candidates", name) for name in names]
    cmd += ["--json"] + group.get("args", [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    try:
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary = None
    return summary, proc.returncode, proc.stderr


def check_candidate(want, got):
    """Returns the list of deviations of one candidate entry."""
    if got is None:
        return ["no entry in the summary"]
    problems = []
    if got.get("verify") != want["verify"]:
        problems.append("verify %s, expected %s" % (got.get("verify"), want["verify"]))
    reason = got.get("reason", "")
    if want["reason"] and want["reason"] not in reason:
        problems.append("reason lacks %r" % want["reason"])
    if not want["reason"] and reason:
        problems.append("unexpected reason")
    if "decision" in want and got.get("decision") != want["decision"]:
        problems.append("decision %s, expected %s" % (got.get("decision"), want["decision"]))
    # The offset trial (every buffer at a 64-byte, not 128-byte, aligned
    # address), when the expectation names it: whether it passed.
    if "offset_trial" in want:
        trial = got.get("offset_trial") or {}
        if trial.get("ok") != want["offset_trial"]:
            problems.append("offset trial %s, expected %s (%s)" %
                            (trial.get("ok"), want["offset_trial"], trial.get("reason", "")))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runner", default="cuda-agent-run")
    parser.add_argument("--expected", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "expected.json"))
    parser.add_argument("--log", help="write the runner's JSON summaries here")
    parser.add_argument("outdir", help="directory written by build.sh")
    args = parser.parse_args()

    expected = json.load(open(args.expected))
    rows, failures, logs = [], 0, {}
    for group in expected["runs"]:
        summary, code, stderr = run_group(args.runner, args.outdir, group)
        logs[group["name"]] = {"exit_code": code, "summary": summary, "stderr": stderr}
        if summary is None or code != 0 or summary.get("status") != "ok":
            error = summary.get("error") if summary else stderr.strip()[-300:]
            print("run %s: runner failed (exit %d): %s" % (group["name"], code, error))
            if args.log:
                json.dump(logs, open(args.log, "w"), indent=1)
            return 2
        by_name = {os.path.basename(entry["bundle"].rstrip("/")): entry
                   for entry in summary["candidates"]}
        for name, want in group["candidates"].items():
            got = by_name.get(name)
            problems = check_candidate(want, got)
            failures += bool(problems)
            speed = ""
            if got and got.get("speedup") is not None:
                speed = "x%.2f (%.1f/%.1f us)" % (got["speedup"], got["ref_us"], got["cand_us"])
            rows.append((group["name"], name, (got or {}).get("verify", "-"),
                         (got or {}).get("decision", "-"), speed,
                         "OK" if not problems else "DEVIATES: " + "; ".join(problems),
                         (got or {}).get("reason", "")[:110]))
    if args.log:
        json.dump(logs, open(args.log, "w"), indent=1)

    header = ("run", "candidate", "verify", "decision", "speedup", "check", "reason")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(6)]
    for row in [header] + rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths))
              + "  " + row[6])
    print("%d of %d candidates as expected" % (len(rows) - failures, len(rows)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
