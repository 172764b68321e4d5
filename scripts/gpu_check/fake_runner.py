"""A NumPy stand-in for cuda-agent-run, for testing gpu-check's orchestration without a GPU.

Same command line and JSON as the real runner (the subset gpu-check uses). It reads
an extra "fake" object from plan.json:
  {"ops_py": PATH, "size": S, "op": NAME, "corrupt": false}  outputs = op's NumPy reference
                                                             (+1 on one element if corrupt)
  {}                                                         outputs = seeded noise (examples)
Inputs are seeded normal(0, 1) data, as with the real runner (not the same numbers).

    python3 -m gpu_check.fake_runner --probe | BUNDLE --out DIR [--inputs DIR] [--seed N] [--time ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

NP_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32}


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("bundle", nargs="?", type=Path)
    p.add_argument("--probe", action="store_true")
    p.add_argument("--out", type=Path)
    p.add_argument("--inputs", type=Path)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time", action="store_true")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.probe:
        print(json.dumps({"gpu": True, "fake": True, "arch": "sm_90", "devices": [{"name": "fake"}]}))
        return 0
    plan = json.loads((args.bundle / "plan.json").read_text())
    fake = plan.get("fake", {})
    out = args.out or args.bundle / "out"
    out.mkdir(parents=True, exist_ok=True)
    inputs, summary = [], {"status": "ok", "outputs": {}, "inputs": {}}
    for index, buf in enumerate(b for b in plan["buffers"] if b["role"] == "input"):
        if args.inputs:
            data = np.load(args.inputs / f"{buf['name']}.npy")
        else:
            rng = np.random.default_rng(args.seed * 1000 + index)
            data = rng.standard_normal(buf["shape"]).astype(NP_DTYPES[buf["dtype"]])
            np.save(out / f"{buf['name']}.npy", data)
            summary["inputs"][buf["name"]] = {"path": str(out / f"{buf['name']}.npy")}
        inputs.append(data)
    output_bufs = [b for b in plan["buffers"] if b["role"] == "output"]
    if "op" in fake:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from gpu_check.manifest import load_ops

        op = load_ops(Path(fake["ops_py"])).op_by_name(fake["size"], fake["op"])
        results = op.numpy_ref(*inputs)
    else:
        results = [np.random.default_rng(7).standard_normal(b["shape"]) for b in output_bufs]
    for buf, result in zip(output_bufs, results):
        result = np.asarray(result).astype(NP_DTYPES[buf["dtype"]])
        if fake.get("corrupt"):
            result.flat[0] += 1
        np.save(out / f"{buf['name']}.npy", result)
        summary["outputs"][buf["name"]] = str(out / f"{buf['name']}.npy")
    if args.time:
        summary["time"] = {"median_us": 10.0, "min_us": 9.0, "max_us": 11.0, "runs": args.runs,
                           "warmup": args.warmup}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
