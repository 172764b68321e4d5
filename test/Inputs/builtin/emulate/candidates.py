"""The loop every emulation driver (emulate_*.py) shares: run the candidates
of the cases' jobs and report each against its tolerance."""
import json
import os
import tempfile


def check(jobs_dir, cases, keep, run, measure="max_abs_err"):
    """Calls `run(job, cand, work)` for every candidate whose name `keep`
    accepts, of every job of JOBS_DIR/jobs.json whose function is one of
    `cases`; `run` gives (error, tolerance), or (None, build log) when the
    kernel does not build. Prints one line per candidate (`measure` names the
    error) and returns the exit code: 1 when one failed or none ran."""
    ok, seen = True, 0
    with tempfile.TemporaryDirectory() as work:
        for job in json.load(open(os.path.join(jobs_dir, "jobs.json")))["jobs"]:
            if job["function"] not in cases:
                continue
            for cand in job["candidates"]:
                if not keep(cand["name"]):
                    continue
                seen += 1
                err, tol = run(job, cand, work)
                if err is None:
                    print(f"FAIL {job['function']} {cand['name']}: does not build\n{tol}")
                    ok = False
                    continue
                good = err <= tol
                ok = ok and good
                print(f"{'ok  ' if good else 'FAIL'} {job['function']} {cand['name']} {measure} {err:.2g}")
    if seen == 0:
        print("no candidates of the cases")
        return 1
    return 0 if ok else 1
