"""Writes a candidate bundle for the one region of an outlined module.

usage: make_bundle.py OUTLINED.mlir KERNEL.cu OUTDIR [--shape N]
Reads the region hash from OUTLINED.mlir, compiles KERNEL.cu with nvcc for
sm_90 into OUTDIR/<hash>/relu.cubin, and writes plan.json (one launch of
`relu` over in0 -> out0) and kernel.cu beside it.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outlined")
    parser.add_argument("kernel")
    parser.add_argument("outdir")
    parser.add_argument("--shape", type=int, default=1024)
    parser.add_argument("--grid-y", type=int, default=1)
    args = parser.parse_args()

    hashes = re.findall(r'hash = "([0-9a-f]{64})"', open(args.outlined).read())
    if len(hashes) != 1:
        sys.exit(f"expected one region in {args.outlined}, found {len(hashes)}")
    bundle = os.path.join(args.outdir, hashes[0])
    os.makedirs(bundle, exist_ok=True)
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    subprocess.run([nvcc, "-cubin", "-arch=sm_90", args.kernel, "-o",
                    os.path.join(bundle, "relu.cubin")], check=True)
    shutil.copy(args.kernel, os.path.join(bundle, "kernel.cu"))
    plan = {
        "version": 1, "chip": "sm_90", "agent": "replay", "model": "hand-written",
        "speedup": 1.5,
        "buffers": [{"name": "in0", "shape": [args.shape], "dtype": "f32", "role": "input"},
                    {"name": "out0", "shape": [args.shape], "dtype": "f32", "role": "output"}],
        "launches": [{"kernel": "relu", "object": "relu.cubin", "grid": [4, args.grid_y, 1],
                      "block": [256, 1, 1], "shared_bytes": 0, "args": ["in0", "out0"]}],
    }
    with open(os.path.join(bundle, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)
    print(bundle)


if __name__ == "__main__":
    main()
