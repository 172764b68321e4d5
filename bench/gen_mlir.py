#!/usr/bin/env python3
"""Writes the benchmark suite as MLIR files, one per op, for one size.

    python3 bench/gen_mlir.py --size small|large --out DIR

Each file holds one public `func.func @<op>` in linalg on tensors with static
shapes that returns its results; shapes and dtypes come from the op table in
bench/ops.py, so the MLIR signature and the references cannot drift apart.
The committed copies live in bench/mlir/small/ and bench/mlir/large/;
`--check` compares them with what this script would write.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ops as ops_table  # noqa: E402

ID2 = "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
ROW = "#row = affine_map<(d0, d1) -> (d0)>\n"
COL = "#col = affine_map<(d0, d1) -> (d1)>\n"
VEC = "#v = affine_map<(d0) -> (d0)>\n"
TR = "#tr = affine_map<(d0, d1) -> (d1, d0)>\n"
PAR2 = 'iterator_types = ["parallel", "parallel"]'
RED2 = 'iterator_types = ["parallel", "reduction"]'


def f32_literal(value: float) -> str:
    """An MLIR float literal with f32 precision (MLIR needs a '.' before any exponent)."""
    return f"{float(value):.9e}"


def body_add_relu(op, t):
    return f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t.out0}
  %r = linalg.generic {{indexing_maps = [#id, #id, #id], {PAR2}}}
      ins(%in0, %in1 : {t.in0}, {t.in1}) outs(%e : {t.out0}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }} -> {t.out0}
  return %r : {t.out0}""", ID2


def body_gelu_tanh(op, t):
    return f"""  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant {f32_literal(ops_table.GELU_C)} : f32
  %k = arith.constant {f32_literal(ops_table.GELU_K)} : f32
  %e = tensor.empty() : {t.out0}
  %r = linalg.generic {{indexing_maps = [#id, #id], {PAR2}}}
      ins(%in0 : {t.in0}) outs(%e : {t.out0}) {{
  ^bb0(%x: f32, %o: f32):
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %kx3 = arith.mulf %x3, %k : f32
    %inner = arith.addf %x, %kx3 : f32
    %arg = arith.mulf %inner, %c : f32
    %t = math.tanh %arg : f32
    %t1 = arith.addf %t, %one : f32
    %t2 = arith.mulf %t1, %half : f32
    %y = arith.mulf %t2, %x : f32
    linalg.yield %y : f32
  }} -> {t.out0}
  return %r : {t.out0}""", ID2


def body_softmax_rows(op, t):
    return f"""  %e = tensor.empty() : {t.out0}
  %r = linalg.softmax dimension(1) ins(%in0 : {t.in0}) outs(%e : {t.out0}) -> {t.out0}
  return %r : {t.out0}""", ""


def body_layernorm(op, t):
    m, n = op.inputs[0].shape
    rows = f"tensor<{m}xf32>"
    return f"""  %zero = arith.constant 0.0 : f32
  %n = arith.constant {f32_literal(n)} : f32
  %eps = arith.constant {f32_literal(op.params["eps"])} : f32
  %er = tensor.empty() : {rows}
  %acc = linalg.fill ins(%zero : f32) outs(%er : {rows}) -> {rows}
  // A second accumulator: sharing one fill between two reductions makes bufferization copy it.
  %er2 = tensor.empty() : {rows}
  %acc2 = linalg.fill ins(%zero : f32) outs(%er2 : {rows}) -> {rows}
  %sum = linalg.generic {{indexing_maps = [#id, #row], {RED2}}}
      ins(%in0 : {t.in0}) outs(%acc : {rows}) {{
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }} -> {rows}
  %mean = linalg.generic {{indexing_maps = [#v, #v], iterator_types = ["parallel"]}}
      ins(%sum : {rows}) outs(%er : {rows}) {{
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %n : f32
    linalg.yield %q : f32
  }} -> {rows}
  %sq = linalg.generic {{indexing_maps = [#id, #row, #row], {RED2}}}
      ins(%in0, %mean : {t.in0}, {rows}) outs(%acc2 : {rows}) {{
  ^bb0(%a: f32, %mu: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  }} -> {rows}
  %e = tensor.empty() : {t.out0}
  %r = linalg.generic {{indexing_maps = [#id, #row, #row, #col, #col, #id], {PAR2}}}
      ins(%in0, %mean, %sq, %in1, %in2 : {t.in0}, {rows}, {rows}, {t.in1}, {t.in2})
      outs(%e : {t.out0}) {{
  ^bb0(%a: f32, %mu: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mu : f32
    %nrm = arith.mulf %d, %rs : f32
    %sc = arith.mulf %nrm, %g : f32
    %sh = arith.addf %sc, %b : f32
    linalg.yield %sh : f32
  }} -> {t.out0}
  return %r : {t.out0}""", ID2 + ROW + COL + VEC


def body_row_sum(op, t):
    return f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t.out0}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {t.out0}) -> {t.out0}
  %r = linalg.generic {{indexing_maps = [#id, #row], {RED2}}}
      ins(%in0 : {t.in0}) outs(%acc : {t.out0}) {{
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }} -> {t.out0}
  return %r : {t.out0}""", ID2 + ROW


def body_transpose(op, t):
    return f"""  %e = tensor.empty() : {t.out0}
  %r = linalg.transpose ins(%in0 : {t.in0}) outs(%e : {t.out0}) permutation = [1, 0]
  return %r : {t.out0}""", ""


def body_matmul(op, t):
    return f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t.out0}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {t.out0}) -> {t.out0}
  %r = linalg.matmul ins(%in0, %in1 : {t.in0}, {t.in1}) outs(%acc : {t.out0}) -> {t.out0}
  return %r : {t.out0}""", ""


def body_batch_matmul(op, t):
    return f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t.out0}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {t.out0}) -> {t.out0}
  %r = linalg.batch_matmul ins(%in0, %in1 : {t.in0}, {t.in1}) outs(%acc : {t.out0}) -> {t.out0}
  return %r : {t.out0}""", ""


def body_conv2d(op, t):
    return f"""  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t.out0}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {t.out0}) -> {t.out0}
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%in0, %in1 : {t.in0}, {t.in1}) outs(%acc : {t.out0}) -> {t.out0}
  return %r : {t.out0}""", ""


#: op name -> body template: (op, types) -> (function body, affine map aliases).
BODIES = {
    "add_relu": body_add_relu,
    "gelu_tanh": body_gelu_tanh,
    "softmax_rows": body_softmax_rows,
    "layernorm": body_layernorm,
    "row_sum": body_row_sum,
    "transpose": body_transpose,
    "matmul_f32": body_matmul,
    "matmul_f16_f32acc": body_matmul,
    "matmul_f32_odd": body_matmul,
    "bmm_f32": body_batch_matmul,
    "conv2d_nhwc_3x3": body_conv2d,
    "conv2d_nhwc_3x3_f16": body_conv2d,
}


class _Types:
    """Attribute access to the MLIR types of an op's buffers: t.in0, t.out0, ..."""

    def __init__(self, op: ops_table.Op):
        self.__dict__.update({f"in{i}": b.mlir_type for i, b in enumerate(op.inputs)})
        self.__dict__.update({f"out{i}": b.mlir_type for i, b in enumerate(op.outputs)})


def render(op: ops_table.Op) -> str:
    """The complete MLIR file of `op`."""
    types = _Types(op)
    body, aliases = BODIES[op.name](op, types)
    args = ", ".join(f"%in{i}: {b.mlir_type}" for i, b in enumerate(op.inputs))
    results = ", ".join(b.mlir_type for b in op.outputs)
    if len(op.outputs) > 1:
        results = f"({results})"
    header = (f"// Generated by bench/gen_mlir.py --size {op.size}; do not edit.\n"
              f"// {op.name}: {op.description}\n\n")
    return f"{header}{aliases}{aliases and chr(10)}func.func @{op.name}({args}) -> {results} {{\n{body}\n}}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=ops_table.SIZES, required=True)
    parser.add_argument("--out", type=Path, required=True, help="directory for <op>.mlir")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a file in --out differs from what would be written")
    args = parser.parse_args(argv)
    missing = set(BODIES) ^ {o.name for o in ops_table.ops(args.size)}
    if missing:
        parser.error(f"ops.py and gen_mlir.py disagree on the op list: {sorted(missing)}")
    if not args.check:
        args.out.mkdir(parents=True, exist_ok=True)
    stale = []
    for op in ops_table.ops(args.size):
        path = args.out / f"{op.name}.mlir"
        text = render(op)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
    if stale:
        print("gen_mlir: out of date (rerun without --check): " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
