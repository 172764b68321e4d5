"""Runs `cuda-agent-run` (or a stand-in with the same interface) and logs every call."""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, TextIO


@dataclass
class RunResult:
    """One runner call: the parsed JSON summary (or an error summary) and what it cost."""

    summary: dict
    returncode: int
    wall_s: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.summary.get("status") == "ok"

    @property
    def error(self) -> str:
        return self.summary.get("error", f"exit code {self.returncode}")

    @property
    def median_us(self) -> float | None:
        return self.summary.get("time", {}).get("median_us")


class Runner:
    """Wraps the runner command; every call and its output go to `log`."""

    def __init__(self, command: Sequence[str], log: TextIO, timeout_s: float = 300):
        self.command = list(command)
        self.log = log
        self.timeout_s = timeout_s

    def _call(self, args: Sequence[str]) -> RunResult:
        argv = self.command + [str(a) for a in args]
        self.log.write(f"$ {shlex.join(argv)}\n")
        start = time.monotonic()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout_s)
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:
            stdout, stderr, code = "", f"timed out after {self.timeout_s} s: {e}", 124
        wall = time.monotonic() - start
        if stderr.strip():
            self.log.write(stderr if stderr.endswith("\n") else stderr + "\n")
        summary = _last_json_line(stdout)
        if summary is None:
            summary = {"status": "error", "error": f"no JSON from the runner (exit {code}): "
                       + (stderr.strip().splitlines() or ["no output"])[-1]}
        self.log.write(f"  -> exit {code} in {wall:.2f} s: {json.dumps(summary)[:2000]}\n")
        self.log.flush()
        return RunResult(summary, code, wall)

    def probe(self) -> RunResult:
        return self._call(["--probe"])

    def run(self, bundle: Path, out: Path, *, seed: int | None = None, inputs: Path | None = None,
            time_runs: int = 0, warmup: int = 5) -> RunResult:
        args: list = [bundle, "--out", out, "--json"]
        if seed is not None:
            args += ["--seed", seed]
        if inputs is not None:
            args += ["--inputs", inputs]
        if time_runs:
            args += ["--time", "--warmup", warmup, "--runs", time_runs]
        return self._call(args)


def _last_json_line(stdout: str) -> dict | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None
