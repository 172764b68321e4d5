"""Builds the CPU reference of each corpus program (agent-cpu-reference, mlir-translate,
clang: serial loops behind `void fn(in0, ..., out0, ...)`), as written and outlined first
(agent-outline: the regions as functions, each padded input's pad inside its region), and
checks both against NumPy in float64; the torch-mlir programs (torch-*.mlir) against
PyTorch's float64 outputs saved beside their inputs in Inputs/torch/<name>.npz by
generate_torch_programs.py, or at KernelBench shapes against NumPy. Exits nonzero, naming the program, on any mismatch.

Usage: check_cpu_reference.py CUDA_AGENT_OPT MLIR_TRANSLATE CLANG WORK_DIR PROGRAMS_DIR"""

import ctypes
import math
import subprocess
import sys
from pathlib import Path

import numpy as np


def inserted(dest, source, box):
    out = dest.copy()
    out[box] = source
    return out


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm(x, g, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * g + b


def conv_nhwc_pad1(x, w):
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    n, h, wd, _ = x.shape
    out = np.zeros((n, h, wd, w.shape[3]))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nhwc,cf->nhwf", p[:, i:i + h, j:j + wd, :], w[i, j])
    return out


def logsumexp_rows(x):
    """torch.logsumexp(x, dim=1, keepdim=True): the max shifted out, 0 where it is infinite."""
    m = x.max(axis=1, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    return np.log(np.exp(x - m).sum(axis=1, keepdims=True)) + m


def conv_nchw_pad1(x, w):
    """conv2d(x, w, padding=1) of an NCHW x and an FCHW w, via NHWC."""
    out = conv_nhwc_pad1(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0))
    return out.transpose(0, 3, 1, 2)


# file -> (function, input shapes, NumPy reference returning the outputs)
PROGRAMS = {
    "sum-keepdim": ("sum_keepdim", [(16, 64)], lambda x: [x.sum(axis=1, keepdims=True)]),
    "mean-keepdim-3d": ("center_last_dim", [(8, 16, 32)],
                        lambda x: [x - x.mean(axis=-1, keepdims=True)]),
    "flatten-linear": ("flatten_linear", [(4, 8, 8), (64, 32), (32,)],
                       lambda x, w, b: [x.reshape(4, 64) @ w + b]),
    "unsqueeze-add": ("unsqueeze_add_view", [(8, 16), (16,)],
                      lambda x, b: [(x + b[None, :]).reshape(2, 4, 16)]),
    "view-chain": ("view_chain", [(2, 3, 4)],
                   lambda x: [np.maximum(x.reshape(6, 4), 0).reshape(4, 6)]),
    "padded-conv-relu": ("padded_conv_relu", [(1, 8, 8, 4), (3, 3, 4, 8)],
                         lambda x, w: [np.maximum(conv_nhwc_pad1(x, w), 0)]),
    "conv-scale-min": ("conv_scale_min", [(1, 4, 8, 8), (8, 4, 3, 3), (8,)],
                       lambda x, w, b: [((conv_nchw_pad1(x, w) + b[:, None, None]) * 2)
                                        .min(axis=1, keepdims=True)]),
    "softmax": ("softmax", [(16, 100)], lambda x: [softmax(x, 1)]),
    "logsumexp": ("logsumexp", [(16, 100)], lambda x: [logsumexp_rows(x)]),
    "log-softmax": ("log_softmax", [(16, 100)], lambda x: [np.log(softmax(x, 1))]),
    "layer-norm": ("layer_norm", [(32, 64), (64,), (64,)], lambda x, g, b: [layer_norm(x, g, b)]),
    "rms-norm": ("rms_norm", [(4, 8, 64), (64,)],
                 lambda x, w: [x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * w]),
    "gemm-bias-relu": ("gemm_bias_relu", [(32, 48), (48, 24), (24,)],
                       lambda x, w, b: [np.maximum(x @ w + b, 0)]),
    "concat-branches": ("concat_branches", [(8, 16)],
                        lambda x: [np.concatenate([np.exp(x), np.maximum(x, 0)], axis=1)]),
    "concat-dense-block": ("concat_dense_block", [(2, 8, 6, 6), (8,), (8,)],
                           lambda x, s, b: [np.concatenate(
                               [x, np.maximum(x * s[:, None, None] + b[:, None, None], 0),
                                1 / (1 + np.exp(-x))], axis=1)]),
    "concat-then-norm": ("concat_then_norm", [(2, 8, 6, 6), (2, 4, 6, 6), (12,), (12,)],
                         lambda x, f, s, b: [
                             np.concatenate([x, f], axis=1),
                             np.maximum(np.concatenate([x, f], axis=1) * s[:, None, None]
                                        + b[:, None, None], 0)]),
    "concat-unequal-dense": ("concat_unequal", [(2, 8, 6, 6), (2, 4, 6, 6), (4,), (4,)],
                             lambda x, y, s, b: [np.concatenate(
                                 [x, np.maximum(y * s[:, None, None] + b[:, None, None], 0),
                                  1 / (1 + np.exp(-x))], axis=1)]),
    "concat-unequal-rows": ("concat_unequal_rows", [(8, 12), (8, 4), (8, 16)],
                            lambda x, y, z: [np.concatenate([np.exp(x), y, np.tanh(z)], axis=1)]),
    "insert-slice-box": ("insert_box", [(4, 16), (2, 8), (8,)],
                         lambda x, y, s: [inserted(x, np.tanh(y) * s, (slice(1, 3), slice(4, 12)))]),
    "insert-slice-zeros": ("insert_zeros", [(4, 8)],
                           lambda x: [inserted(np.zeros((6, 16)), np.exp(x), (slice(1, 5), slice(4, 12)))]),
    "insert-slice-row": ("insert_rows", [(6, 16), (16,), (16,), (16,)],
                         lambda x, y, s, z: [inserted(inserted(x, (np.tanh(y) * s)[None], (slice(2, 3),)),
                                                      z[None], (slice(4, 5),))]),
    "slice-exp": ("slices", [(4, 16)], lambda x: [np.exp(x[:, 2:10]), x[1:3]]),
    "first-step-of-computed": ("first_step", [(4, 2, 32)],
                               lambda x: [np.maximum(np.exp(x)[0], 0)]),
    "glu-halves": ("glu_halves", [(8, 16), (16, 32)],
                   lambda x, w: [(x @ w)[:, :16] / (1 + np.exp(-(x @ w)[:, 16:]))]),
    "transpose-matmul": ("transpose_matmul", [(16, 32), (24, 32)], lambda x, w: [x @ w.T]),
    "matmul-one-column": ("matmul_one_column", [(48, 64), (64, 1)], lambda x, w: [x @ w]),
    "linear-one-row": ("linear_one_row", [(1, 64), (32, 64), (32,)],
                       lambda x, w, b: [np.maximum(x @ w.T + b, 0)]),
    "insert-slice-residual": ("insert_slice_residual", [(4, 16), (4, 8)],
                              lambda x, y: [np.concatenate([x[:, :8] + y, x[:, 8:]], axis=1)]),
    "batched-scores-softmax": ("attention_scores", [(2, 16, 64), (2, 16, 64)],
                               lambda q, k: [softmax(q @ k.transpose(0, 2, 1) * 0.125, -1)]),
}


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


# The torch-mlir programs at KernelBench shapes (torch-<name>-kb.mlir) carry no data file.
KERNELBENCH = {
    "torch-softmax-kb": ([(16, 16384)], lambda x: [softmax(x, -1)]),
    "torch-gelu-kb": ([(16, 16384)], lambda x: [gelu(x)]),
}

# Tolerances of the comparison per element type: (rtol, atol relative to max |expected|).
TOLERANCES = {np.float32: (1e-4, 1e-5), np.float16: (1e-2, 1e-2)}


def torch_program(name, data_dir):
    """The (function, inputs, expected outputs) of a torch-mlir program: the inputs and
    PyTorch's float64 outputs saved by generate_torch_programs.py, or for KernelBench
    shapes seeded inputs and a NumPy reference. None when there is neither."""
    function = name.replace("-", "_")
    data = data_dir / f"{name}.npz"
    if data.exists():
        arrays = np.load(data)
        inputs = [arrays[f"in{i}"] for i in range(len([k for k in arrays if k.startswith("in")]))]
        expected = [arrays[f"out{i}"] for i in range(len([k for k in arrays if k.startswith("out")]))]
        return function, inputs, expected
    if name in KERNELBENCH:
        shapes, reference = KERNELBENCH[name]
        rng = np.random.default_rng(1)
        inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
        return function, inputs, reference(*[x.astype(np.float64) for x in inputs])
    return None


def program_case(name, programs, rng):
    """(function, inputs, expected outputs) of the corpus program `name` in `programs`:
    a torch-mlir program's saved data (torch_program), or inputs drawn from `rng` and
    the NumPy reference on them."""
    if name.startswith("torch-"):
        return torch_program(name, programs / "Inputs" / "torch")
    function, shapes, reference = PROGRAMS[name]
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    return function, inputs, reference(*[x.astype(np.float64) for x in inputs])


def element_type(inputs):
    """The program's float type: its first float input's (an embedding's indices come
    first), float32 when it has none."""
    return next((a.dtype.type for a in inputs if a.dtype.kind == "f"), np.float32)


def run(library, function, inputs, expected):
    """Calls `function` of the CPU reference `library` (a shared library's path) on
    `inputs`; returns its results, in buffers shaped as `expected`: integer results (a
    BatchNorm's batch count) in their own type, the rest in the inputs' (the float64
    references are compared at that precision), NaN until written. (An i64 result in an
    f32 buffer took 8 bytes into 4 and corrupted the heap, found some programs later.)"""
    dtype = element_type(inputs)
    outputs = [np.zeros(e.shape, e.dtype) if e.dtype.kind in "iu"
               else np.full(e.shape, np.nan, dtype) for e in expected]
    call = getattr(ctypes.CDLL(str(library)), function)
    call.restype = None
    call(*[ctypes.c_void_p(np.ascontiguousarray(a).ctypes.data) for a in inputs + outputs])
    return outputs


def build(tools, work, source, outline):
    """The CPU reference of `source` as a shared library; with `outline`, of the program
    outlined first (regions as functions the caller calls, pads inside the regions)."""
    opt, translate, clang = tools
    name = source.stem + ("-outlined" if outline else "")
    mlir, ll, so = work / f"{name}.mlir", work / f"{name}.ll", work / f"{name}.so"
    passes = (["--agent-outline"] if outline else []) + ["--agent-cpu-reference"]
    lowered = subprocess.run([opt, str(source), *passes, "-o", str(mlir)],
                             stderr=subprocess.PIPE, text=True)
    if lowered.returncode != 0:  # the outliner's remarks are noise otherwise
        sys.exit(f"{name}: {' '.join(passes)} failed:\n{lowered.stderr}")
    subprocess.run([translate, "--mlir-to-llvmir", str(mlir), "-o", str(ll)], check=True)
    subprocess.run([clang, "-x", "ir", str(ll), "-O1", "-shared", "-fPIC",
                    "-Wno-override-module", "-o", str(so), "-lm"], check=True)
    return so


def main(opt, translate, clang, work, programs):
    work, programs = Path(work), Path(programs)
    work.mkdir(parents=True, exist_ok=True)
    sources = sorted(p.stem for p in programs.glob("*.mlir"))
    data_dir = programs / "Inputs" / "torch"
    torch_programs = {name: torch_program(name, data_dir)
                      for name in sources if name.startswith("torch-")}
    missing = sorted(name for name in sources
                     if name not in PROGRAMS and torch_programs.get(name) is None)
    if missing:
        sys.exit(f"no NumPy reference for {missing}")
    rng = np.random.default_rng(0)
    for name in sources:
        function, inputs, expected = program_case(name, programs, rng)
        for outline in (False, True):
            label = name + (" (outlined)" if outline else "")
            outputs = run(build((opt, translate, clang), work, programs / f"{name}.mlir", outline),
                          function, inputs, expected)
            rtol, atol = TOLERANCES[element_type(inputs)]
            for index, (got, want) in enumerate(zip(outputs, expected)):
                try:
                    np.testing.assert_allclose(got, want, rtol=rtol,
                                               atol=max(atol, atol * np.abs(want).max()))
                except AssertionError as error:
                    sys.exit(f"{label}: output {index} does not match the reference:\n{error}")
            print(f"{label}: ok")


if __name__ == "__main__":
    main(*sys.argv[1:])
