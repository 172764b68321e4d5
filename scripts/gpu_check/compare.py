"""Tolerance checks that work on NumPy arrays and torch tensors alike.

`check(out, ref, rtol, atol)` passes iff every element satisfies
|out - ref| <= atol + rtol * |ref| and NaN/Inf agree (a NaN left in an output
usually means an element the kernel never wrote: the runner poisons outputs
with NaN bytes). Both arrays are compared in float64.
"""

from __future__ import annotations

from typing import Any


def _xp(array: Any):
    """The array module of `array`: torch for tensors, numpy otherwise."""
    if type(array).__module__.startswith("torch"):
        import torch

        return torch
    import numpy

    return numpy


def _as_f64(xp, array):
    if xp.__name__ == "torch":
        return array.to(dtype=xp.float64)
    return xp.asarray(array, dtype=xp.float64)


def _count(mask) -> int:
    return int(mask.sum().item())


def _numel(array) -> int:
    return int(array.numel() if hasattr(array, "numel") else array.size)


def _max(values) -> float:
    return float(values.max().item()) if _numel(values) else 0.0


def check(out, ref, rtol: float, atol: float) -> dict:
    """Compares one output with its reference; returns a JSON-ready record with "ok"."""
    xp = _xp(ref)
    if tuple(out.shape) != tuple(ref.shape):
        return {"ok": False, "error": f"shape {tuple(out.shape)} != reference {tuple(ref.shape)}"}
    out, ref = _as_f64(xp, out), _as_f64(xp, ref)
    out_nan, ref_nan = xp.isnan(out), xp.isnan(ref)
    out_fin, ref_fin = xp.isfinite(out), xp.isfinite(ref)
    nonfinite_mismatch = _count((out_nan != ref_nan) | (~out_fin & ~out_nan & (out != ref)))
    both = out_fin & ref_fin
    err = xp.where(both, xp.abs(out - ref), xp.zeros_like(ref))
    mag = xp.abs(ref)
    bad = _count(err > atol + rtol * mag) + nonfinite_mismatch
    rel = err / xp.where(mag > 0, mag, xp.ones_like(mag))
    # The relative error that matters: where |ref| is above atol / rtol, i.e. not atol-dominated.
    rel = xp.where(mag * rtol > atol, rel, xp.zeros_like(rel))
    record = {
        "ok": bad == 0,
        "max_abs_err": _max(err),
        "max_rel_err": _max(rel),
        "max_abs_ref": _max(xp.where(ref_fin, mag, xp.zeros_like(mag))),
        "mismatches": bad,
        "nan_in_output": _count(out_nan),
        "nonfinite_mismatches": nonfinite_mismatch,
        "elements": _numel(ref),
        "rtol": rtol,
        "atol": atol,
    }
    return record


# Tolerances between two implementations of the same serial algorithm (the GPU default
# lowering and the CPU reference): they differ only by FMA contraction and the math library,
# so errors stay within a few ulps of the largest magnitude. atol is relative to max |ref|.
AGREEMENT_TOLERANCES = {"f32": (1e-4, 1e-5), "f64": (1e-9, 1e-12), "f16": (1e-2, 2e-3),
                        "bf16": (5e-2, 1e-2)}


def agree(out, ref, dtype: str) -> dict:
    """Compares a GPU output with the CPU reference's, with the tolerance of `dtype`."""
    import numpy

    if dtype not in AGREEMENT_TOLERANCES:  # integers and booleans must match exactly
        return check(out, ref, 0.0, 0.0)
    if dtype == "bf16":  # bits in uint16: widen to float32
        out, ref = (numpy.asarray(x, numpy.uint32) << 16 for x in (out, ref))
        out, ref = out.view(numpy.float32), ref.view(numpy.float32)
    rtol, atol = AGREEMENT_TOLERANCES[dtype]
    finite = numpy.abs(numpy.asarray(ref, numpy.float64))
    finite = finite[numpy.isfinite(finite)]
    scale = float(finite.max()) if finite.size else 1.0
    return check(out, ref, rtol, atol * max(scale, 1.0))


def identical(a, b) -> dict:
    """Whether two runs gave bit-identical results, and whether they are free of NaN."""
    xp = _xp(a)
    if tuple(a.shape) != tuple(b.shape):
        return {"ok": False, "error": f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}"}
    a64, b64 = _as_f64(xp, a), _as_f64(xp, b)
    nan = _count(xp.isnan(a64)) + _count(xp.isnan(b64))
    same_bits = a.tobytes() == b.tobytes() if xp.__name__ == "numpy" else bool(xp.equal(a, b))
    diff = xp.where(xp.isfinite(a64) & xp.isfinite(b64), xp.abs(a64 - b64), xp.zeros_like(a64))
    return {"ok": same_bits and nan == 0, "identical": same_bits, "nan": nan,
            "max_abs_diff": _max(diff)}
