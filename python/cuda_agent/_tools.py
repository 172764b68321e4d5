"""Finding and running cuda-agent-opt.

The tool is looked up as: ``$CUDA_AGENT_OPT``; the build directory recorded
when the package was built (``_build_config.TOOLS_DIR``, by default the
repository's ``build/bin``); the repository's ``build/bin`` beside this source
tree; ``PATH``. Its per-region lines go to stderr as they come.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

TOOL = "cuda-agent-opt"
TOOL_ENV = "CUDA_AGENT_OPT"


class CompileError(RuntimeError):
    """cuda-agent-opt failed; ``log`` holds everything it wrote to stderr."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


def _candidates() -> List[Path]:
    paths = []
    if os.environ.get(TOOL_ENV):
        paths.append(Path(os.environ[TOOL_ENV]))
    try:
        from . import _build_config
        if _build_config.TOOLS_DIR:
            paths.append(Path(_build_config.TOOLS_DIR) / TOOL)
    except ImportError:
        pass
    paths.append(Path(__file__).resolve().parents[2] / "build" / "bin" / TOOL)
    found = shutil.which(TOOL)
    if found:
        paths.append(Path(found))
    return paths


def find_tool() -> Path:
    """The cuda-agent-opt to run, or CompileError saying where it looked."""
    candidates = _candidates()
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    looked = ", ".join(str(p) for p in candidates) or "nowhere"
    raise CompileError(
        f"{TOOL} not found (looked at {looked}, and PATH); build the project "
        f"(scripts/bootstrap) or set {TOOL_ENV}")


def format_options(options: Dict[str, object]) -> str:
    """``{"replay_dir": "k", "samples": 2}`` -> ``replay-dir=k samples=2``.

    Python spellings with ``_`` become the tool's ``-``; booleans are
    ``true``/``false``; ``None`` values are left out.
    """
    parts = []
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        text = str(value)
        if any(c.isspace() for c in text):
            raise ValueError(f"option {key}={text!r}: values cannot hold spaces")
        parts.append(f"{key.replace('_', '-')}={text}")
    return " ".join(parts)


#: The prefix of the tool's per-region progress lines.
PROGRESS_PREFIX = "agent-generate:"


def run_agent_lower(source: Path, options: Dict[str, object], output: str = "-",
                    quiet: bool = False, verbose: bool = False,
                    tool: Optional[Path] = None) -> str:
    """Runs ``cuda-agent-opt SOURCE --agent-lower="OPTIONS" -o OUTPUT``.

    The per-region lines (``agent-generate: [i/n] ...``) and errors are echoed
    to ``sys.stderr`` as they arrive unless ``quiet``; ``verbose`` echoes
    everything (the outliner's remarks too). Returns the whole stderr text.
    Raises CompileError on failure.
    """
    tool = tool or find_tool()
    command = [str(tool), str(source), f"--agent-lower={format_options(options)}",
               "-o", output if output != "-" else os.devnull]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    lines = []
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)
        if verbose or (not quiet and (line.startswith(PROGRESS_PREFIX)
                                      or ": error: " in line)):
            sys.stderr.write(line)
            sys.stderr.flush()
    process.stderr.close()
    code = process.wait()
    log = "".join(lines)
    if code != 0:
        tail = "".join(lines[-20:])
        raise CompileError(f"{tool.name} --agent-lower failed (exit {code}) on "
                           f"{source}:\n{tail}", log)
    return log
