"""python3 -m gpu_check {run,self-test,manifest,agent-loop,programs} ... (normally called through scripts/gpu-check)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def manifest_main(argv) -> int:
    from .manifest import StageError, write_manifest

    p = argparse.ArgumentParser(prog="gpu-check manifest",
                                description="validate staged bundles and write DIR/manifest.json")
    p.add_argument("stage", type=Path)
    p.add_argument("--size", required=True)
    p.add_argument("--ops-py", type=Path, required=True)
    p.add_argument("--examples", nargs="*", default=[])
    args = p.parse_args(argv)
    try:
        manifest = write_manifest(args.stage, args.size, args.ops_py, args.examples)
    except StageError as e:
        print(f"gpu-check stage: error: {e}", file=sys.stderr)
        return 1
    print(f"staged {len(manifest['ops'])} ops and {len(manifest['examples'])} example regions "
          f"in {args.stage} ({args.stage / 'manifest.json'})")
    return 0


def main() -> int:
    commands = {"run": lambda a: __import__("gpu_check.run", fromlist=["main"]).main(a),
                "self-test": lambda a: __import__("gpu_check.selftest", fromlist=["main"]).main(a),
                "manifest": manifest_main,
                "agent-loop": lambda a: __import__("gpu_check.agent_loop", fromlist=["main"]).main(a),
                "programs": lambda a: __import__("gpu_check.programs", fromlist=["main"]).main(a)}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(f"usage: python3 -m gpu_check {{{','.join(commands)}}} ...", file=sys.stderr)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
