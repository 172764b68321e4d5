#!/usr/bin/env python3
"""A stand-in for cuda-agent-run in CPU-only tests of the compiler's side of
the runner protocol (`runner=` of agent-generate). It never runs a kernel:
the verdicts below are what the test asks for, so that the compiler's
handling of each outcome can be checked on a machine without a GPU. Real
verification is tested on the GPU machine (scripts/gpu-check).

    FAKE_RUNNER=accept|reject|slow|fail|hang|garbage|crash|nogpu fake-runner.py --probe | --jobs DIR

accept: every candidate passes, 2x faster; reject: every candidate fails with
"fake: mismatch"; slow: passes at 0.5x; fail: the runner reports an error
(exit 3); hang: never returns; garbage: prints no JSON; crash: dies of
SIGSEGV; nogpu: --probe says there is no GPU.
"""
import json
import os
import signal
import sys
import time

MODE = os.environ.get("FAKE_RUNNER", "accept")
DEVICE = {"name": "Fake GPU", "arch": "sm_90", "memory_bytes": 0}


def jobs(directory):
    spec = json.load(open(os.path.join(directory, "jobs.json")))
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "garbage":
        print("this is not JSON")
        return 0
    if MODE == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "fail":
        print(json.dumps({"status": "error", "error": "fake: the reference faulted", "exit_code": 3}))
        return 3
    for job in spec["jobs"]:
        candidates = []
        for candidate in job["candidates"]:
            passed = MODE in ("accept", "slow")
            speedup = 2.0 if MODE == "accept" else 0.5
            candidates.append({
                "bundle": os.path.join(directory, candidate["bundle"]),
                "verify": "pass" if passed else "fail",
                "reason": "" if passed else "fake: mismatch in out0 at [0, 0]",
                "ref_us": 10.0 if passed else None,
                "cand_us": 10.0 / speedup if passed else None,
                "speedup": speedup if passed else None,
                "decision": ("faster" if speedup >= spec["min_speedup"] else "slower") if passed else "not-timed",
                "accepted": passed and speedup >= spec["min_speedup"],
            })
        result = {"status": "ok", "candidates": candidates, "device": DEVICE,
                  "verified_at": "2026-01-02T03:04:05Z", "exit_code": 0}
        with open(os.path.join(directory, job["hash"], "result.json"), "w") as f:
            json.dump(result, f)
    print(json.dumps({"status": "ok", "device": DEVICE, "jobs": []}))
    return 0


def main():
    if sys.argv[1:] == ["--probe"]:
        if MODE == "nogpu":
            print(json.dumps({"gpu": False, "devices": [], "arch": None, "driver": None,
                              "error": "fake: no GPU"}))
        else:
            print(json.dumps({"gpu": True, "devices": [DEVICE], "arch": "sm_90", "driver": 13000}))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--jobs":
        return jobs(sys.argv[2])
    print(json.dumps({"status": "error", "error": f"fake: unexpected arguments {sys.argv[1:]}"}))
    return 2


if __name__ == "__main__":
    sys.exit(main())
