"""Outlines every corpus program, has the builtin agent write its candidates
(`--agent-generate` with `verify=bundle`: NVRTC compiles them, no GPU), and
computes every memory-bound candidate of every f32 region on the CPU against
the region's CPU reference (Inputs/builtin/emulate/emulate_jobs.py).

Usage: emulate_corpus.py CUDA_AGENT_OPT MLIR_TRANSLATE CLANG WORK_DIR PROGRAMS_DIR EMULATE_JOBS"""

import subprocess
import sys
from pathlib import Path


def main(opt, translate, clang, work, programs, emulate_jobs):
    work, programs = Path(work), Path(programs)
    work.mkdir(parents=True, exist_ok=True)
    job_dirs = []
    for source in sorted(programs.glob("*.mlir")):
        outlined, jobs = work / f"{source.stem}.mlir", work / source.stem
        subprocess.run([opt, str(source), "--agent-outline", "-o", str(outlined)],
                       check=True, stderr=subprocess.DEVNULL)
        subprocess.run([opt, str(outlined), "--agent-generate=samples=16 db=none "
                        f"verify=bundle:{jobs}", "-o", "/dev/null"],
                       check=True, stderr=subprocess.DEVNULL)
        if (jobs / "jobs.json").exists():
            job_dirs.append(str(jobs))
    return subprocess.run([sys.executable, emulate_jobs, opt, translate, clang,
                           *job_dirs]).returncode


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
