"""The CPU reference of a bundle: `reference.so`, built from the bundle's `region.mlir` by
`cuda-agent-opt --agent-cpu-reference`, `mlir-translate` and clang on the build machine.

It exports `void region(T *in0, ..., T *out0, ...)`: the region as serial loop nests, lowered
by a path that shares nothing with the GPU lowering after bufferization. Calling it on the
inputs a GPU run used gives the reference that run's outputs are compared with.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

REFERENCE_SO = "reference.so"

# numpy dtype of each plan dtype; bf16 travels as its uint16 bits, as in the runner's .npy files.
NUMPY_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "uint16", "f64": "float64",
                "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}


def available(bundle: Path) -> bool:
    return (bundle / REFERENCE_SO).exists()


def run(bundle: Path, plan: dict, inputs: dict) -> dict:
    """Calls the bundle's reference on `inputs` ({name: array}); returns {name: array} outputs."""
    import numpy as np

    library = ctypes.CDLL(str((bundle / REFERENCE_SO).resolve()))
    args, outputs = [], {}
    for buffer in plan["buffers"]:
        name, role = buffer["name"], buffer["role"]
        # A view is another buffer's pointer; a constant (a weight) is data of the
        # reference itself, as it is of the program.
        if role in ("temp", "view", "constant"):
            continue
        dtype = np.dtype(NUMPY_DTYPES[buffer["dtype"]])
        if role == "input":
            array = np.ascontiguousarray(inputs[name], dtype=dtype)
            if tuple(array.shape) != tuple(buffer["shape"]):
                raise ValueError(f"{name}: input shape {array.shape} != plan {buffer['shape']}")
        else:
            array = np.full(buffer["shape"], np.nan if dtype.kind == "f" else 0, dtype=dtype)
            outputs[name] = array
        inputs_kept = array  # keep every array alive for the call
        args.append(ctypes.c_void_p(inputs_kept.ctypes.data))
        if role == "input":
            inputs[name] = array
    library.region.restype = None
    library.region(*args)
    return outputs
