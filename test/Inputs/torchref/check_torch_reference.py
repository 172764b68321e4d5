"""Runs the PyTorch references of `--agent-print-prompt` output (stdin).

For every region: the ```python block must parse (ast), run against the numpy
stand-in of torch beside this file (fake_torch/), take get_inputs() of the
operands' shapes and dtypes, and return one tensor per output operand, of its
shape and dtype. Where the region is one of the known ones below, the outputs
are also compared with an independent numpy formula of what the region means.
Prints one line per region; exits 1 if any check failed.
"""

import ast
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_torch"))
import torch  # noqa: E402  (the stand-in)

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i32": "int32"}


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978846 * (x + 0.044715 * x**3)))


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b, eps):
    m = x.mean(axis=1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def conv_nhwc(x, w):
    kh, kw = w.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for n in range(x.shape[0]):
        for i in range(oh):
            for j in range(ow):
                out[n, i, j] = np.tensordot(x[n, i : i + kh, j : j + kw, :], w, axes=3)
    return out


def rmsnorm(x, r, g):
    h = x + r
    return h / np.sqrt((h * h).mean(axis=1, keepdims=True) + 1e-6) * g


# What each known region computes, from its float64 inputs.
FORMULAS = {
    "bias_gelu_rank4_region0": lambda x, b: [0.5 * (1 + np.tanh(x + b)) * (x + b)] * 2,
    "softmax_odd_region0": lambda x: [softmax(x)],
    "rmsnorm_bf16_region0": lambda x, r, g: [rmsnorm(x, r, g)],
    "row_sum_long_region0": lambda x: [x.sum(axis=1)],
    "col_max_region0": lambda x: [x.max(axis=0)],
    "transpose_scale_region0": lambda x: [x.T * 2],
    "tiny_region0": lambda x: [np.exp(x)],
    "add_relu_region0": lambda a, b: [np.maximum(a + b, 0)],
    "conv2d_nhwc_3x3_region0": lambda x, w: [conv_nhwc(x, w)],
    "gelu_tanh_region0": lambda x: [gelu_tanh(x)],
    "layernorm_region0": lambda x, g, b: [layernorm(x, g, b, 1e-5)],
    "matmul_f16_f32acc_region0": lambda a, b: [a @ b],
    "matmul_f32_region0": lambda a, b: [a @ b],
    "row_sum_region0": lambda x: [x.sum(axis=1)],
    "softmax_rows_region0": lambda x: [softmax(x)],
    "transpose_region0": lambda x: [x.T],
    "mlp_block_region0": lambda x, g, b: [layernorm(x, g, b, 1e-5)],
    "mlp_block_region1": lambda x, w, b: [gelu_tanh(x @ w + b)],
    "mlp_block_region2": lambda h, w, b, r: [h @ w + b + r],
    "mlp_block_region3": lambda x: [softmax(x)],
    # generic_cases.mlir
    "permuted_sum_region0": lambda x, y, s: [
        1 + (np.exp(x * y.transpose(1, 2, 0)) * s[None, :, None]).sum(axis=(0, 2))
    ],
    "matmul_bt_region0": lambda a, b: [a @ b.T],
    "int_abs_sum_region0": lambda x: [np.abs(x).sum(axis=1)],
    # A slice under a pad, in the pad's region (test/Outline/agent-outline-slice-reads.mlir).
    "shifted_totals_region0": lambda x, t: [x + np.pad(t[:, :7], ((0, 0), (1, 0)))],
    "transpose_clamp_region0": lambda x: [np.minimum(x.T, 0.25)],
    # Concatenations in their parts' regions (test/Outline/agent-outline-assemblies.mlir).
    "branches_region0": lambda x: [np.concatenate([np.exp(x), np.maximum(x, 0)], axis=1)],
    "dense_block_region0": lambda x: [np.concatenate([x, np.maximum(2 * x, 0)], axis=1)],
    "unequal_parts_region0": lambda x, y: [np.concatenate([np.exp(x), y], axis=1)],
    "reduced_part_region1": lambda s, y: [np.concatenate([s, y], axis=1)],
    "insert_box_region0": lambda y, x: [inserted(x, np.tanh(y), (slice(1, 3), slice(4, 12)))],
    "insert_then_read_region0": lambda y, x: [np.exp(inserted(x, -y, (slice(None), slice(8, 16))))],
    "concat_then_norm_region0": lambda x, f, s: [
        np.maximum(np.concatenate([x, f], axis=1) * s[:, None], 0),
        np.concatenate([x, f], axis=1)],
}


def inserted(dest, source, box):
    out = dest.copy()
    out[box] = source
    return out


def check(name, text):
    operands = re.findall(r"^- (\w+): (input|output), (\w+)\[([0-9x]*)\]$", text, re.M)
    block = re.search(r"```python\n(.*?)```", text, re.S)
    if not block:
        return "no torch reference"
    code = block.group(1)
    ast.parse(code)
    scope = {}
    exec(compile(code, name, "exec"), scope)
    inputs = scope["get_inputs"]()
    want_in = [(d, s) for (_, role, d, s) in operands if role == "input"]
    want_out = [(d, s) for (_, role, d, s) in operands if role == "output"]
    shape = lambda s: tuple(int(x) for x in s.split("x")) if s else ()
    if len(inputs) != len(want_in):
        raise AssertionError("get_inputs() gives %d tensors for %d inputs" % (len(inputs), len(want_in)))
    for t, (d, s) in zip(inputs, want_in):
        if t.shape != shape(s) or t.dtype.name != DTYPES[d]:
            raise AssertionError("input %r %s, operand %s[%s]" % (t.dtype, t.shape, d, s))
    outs = scope["Model"](*scope["get_init_inputs"]())(*inputs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    if len(outs) != len(want_out):
        raise AssertionError("forward returns %d tensors for %d outputs" % (len(outs), len(want_out)))
    for t, (d, s) in zip(outs, want_out):
        if not isinstance(t, torch.Tensor) or t.shape != shape(s) or t.dtype.name != DTYPES[d]:
            raise AssertionError("output %r, operand %s[%s]" % (t, d, s))
    formula = FORMULAS.get(name)
    if not formula:
        return "ran, %d output(s) of the right shapes and dtypes" % len(outs)
    expected = formula(*[t.a.astype(np.float64) for t in inputs])
    for i, (t, e) in enumerate(zip(outs, expected)):
        tol = {"float32": 1e-4, "int32": 0}.get(t.dtype.name, 2e-2)
        got = t.a.astype(np.float64)
        if not np.allclose(got, e, rtol=tol, atol=tol * max(1.0, np.abs(e).max())):
            raise AssertionError("out%d differs from the formula by %g" % (i, np.abs(got - e).max()))
    return "ran, %d output(s) match the formula" % len(outs)


def main():
    text = sys.stdin.read()
    parts = re.split(r"^// ===== prompt \S+ for @(\w+) =====$", text, flags=re.M)
    failed = False
    for name, body in zip(parts[1::2], parts[2::2]):
        try:
            print("@%s: %s" % (name, check(name, body)))
        except Exception as e:  # noqa: BLE001
            failed = True
            print("@%s: FAILED: %s: %s" % (name, type(e).__name__, e))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
