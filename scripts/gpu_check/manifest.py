"""Staging side: validate the bundles that `gpu-check stage` wrote and describe them in manifest.json.

Needs neither numpy nor torch. Every failure raises `StageError` with a message
naming the bundle, so a missing or mismatched bundle fails the stage loudly.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

MANIFEST_VERSION = 1


class StageError(Exception):
    pass


def load_ops(path: Path):
    """Imports an ops.py (bench/ops.py, or the staged copy) as a module, once per path."""
    path = Path(path).resolve()
    name = f"gpu_check_ops_{abs(hash(str(path))):x}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def read_plan(bundle: Path) -> dict:
    plan_path = bundle / "plan.json"
    if not plan_path.is_file():
        raise StageError(f"bundle {bundle}: no plan.json")
    try:
        plan = json.loads(plan_path.read_text())
    except json.JSONDecodeError as e:
        raise StageError(f"bundle {bundle}: plan.json is not JSON: {e}") from e
    for launch in plan.get("launches", []):
        if "copy" in launch:  # a device-to-device copy step has no object
            continue
        if not (bundle / launch.get("object", "")).is_file():
            raise StageError(f"bundle {bundle}: object {launch.get('object')!r} is missing")
    if not plan.get("launches"):
        raise StageError(f"bundle {bundle}: the plan has no launches")
    return plan


def check_signature(op, plan: dict, bundle: Path) -> None:
    """The plan's in<i>/out<i> buffers must match the op table's shapes and dtypes."""
    buffers = {b["name"]: b for b in plan.get("buffers", [])}
    expected = [(f"in{i}", b, "input") for i, b in enumerate(op.inputs)]
    expected += [(f"out{i}", b, "output") for i, b in enumerate(op.outputs)]
    for name, buf, role in expected:
        got = buffers.get(name)
        if got is None:
            raise StageError(f"bundle {bundle}: no buffer {name!r} (op {op.name} has one)")
        if list(got.get("shape", [])) != list(buf.shape) or got.get("dtype") != buf.dtype \
                or got.get("role") != role:
            raise StageError(f"bundle {bundle}: buffer {name} is {got.get('role')} "
                             f"{got.get('shape')} {got.get('dtype')}, ops.py says {role} "
                             f"{list(buf.shape)} {buf.dtype}")
    extra = [n for n, b in buffers.items() if b.get("role") in ("input", "output", "inout")
             and n not in {e[0] for e in expected}]
    if extra:
        raise StageError(f"bundle {bundle}: buffers {extra} are not in ops.py's {op.name}")


def _describe(bundle: Path, stage: Path, plan: dict) -> dict:
    return {"bundle": str(bundle.relative_to(stage)), "launches": len(plan["launches"]),
            "buffers": {b["name"]: {k: b.get(k) for k in ("shape", "dtype", "role")}
                        for b in plan.get("buffers", [])}}


def build_manifest(stage: Path, size: str, ops_module, examples: list[str]) -> dict:
    """Validates DIR/bundles/<op> for every op of `size` and every example's region bundles."""
    bundles = stage / "bundles"
    ops_entries = []
    for op in ops_module.ops(size):
        bundle = bundles / op.name
        if not (bundle / "plan.json").exists() and (bundle / op.name / "plan.json").exists():
            bundle = bundle / op.name  # the emitter chose the several-functions layout
        plan = read_plan(bundle)
        check_signature(op, plan, bundle)
        ops_entries.append({"name": op.name, "mlir": f"bench/{op.mlir_file}",
                            "bytes": op.bytes, "flops": op.flops, **_describe(bundle, stage, plan)})
    example_entries = []
    for name in examples:
        root = bundles / "examples" / name
        plans = sorted(root.rglob("plan.json"))
        if not plans:
            raise StageError(f"example {name}: no bundle under {root}")
        for plan_path in plans:
            bundle = plan_path.parent
            region = str(bundle.relative_to(root)) if bundle != root else "."
            example_entries.append({"name": f"{name}/{region}" if region != "." else name,
                                    "example": name, "region": region,
                                    **_describe(bundle, stage, read_plan(bundle))})
    return {"version": MANIFEST_VERSION, "size": size, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "runner": "bin/cuda-agent-run", "ops_py": "ops.py", "checker": "gpu_check",
            "ops": ops_entries, "examples": example_entries}


def write_manifest(stage: Path, size: str, ops_py: Path, examples: list[str]) -> dict:
    manifest = build_manifest(stage, size, load_ops(ops_py), examples)
    (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
