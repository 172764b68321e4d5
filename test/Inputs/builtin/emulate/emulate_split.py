#!/usr/bin/env python3
"""Runs the builtin agent's split reduction candidates (or, with a prefix,
other candidates of its memory-bound regions) on the CPU and compares
them with a double-precision reference.

    emulate_split.py CLANG JOBS_DIR [PREFIX]

For every job of JOBS_DIR/jobs.json whose region is one of CASES (the
reductions of Inputs/builtin/split_reduction.mlir and batch_matvec.mlir, the
sliced reads of slice_reads.mlir, a GLU's halves among them, the blocked
scan's regions of scan_blocks.mlir, the pads and double reads of
elementwise_reads.mlir),
each candidate named PREFIX* (default `split-`): its kernel.cu is compiled by CLANG for the host with cuda_on_cpu.h
(threads as std::threads, a block at a time; the read-once vector load a
plain one) and its plan's launches run in order over a workspace that is NaN
until written. Prints one line per candidate; exits 1 when one is off by
more than 1e-4 (relative to the largest reference value) or when no
candidate was run.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys

from candidates import check, host_source

HERE = os.path.dirname(os.path.abspath(__file__))
# The largest error allowed, relative to the largest reference value.
TOLERANCE = 1e-4


def vecmat_odd(x, w):
    return [sum(x[k] * w[k * 200 + n] for k in range(300)) for n in range(200)]


def vecmat_bias_relu(x, w, b):
    return [max(0.0, v + b[n]) for n, v in enumerate(vecmat_odd(x, w))]


def batch_matvec(a, v):
    return [sum(a[(b * 32 + m) * 96 + k] * v[b * 96 + k] for k in range(96))
            for b in range(3) for m in range(32)]


def sum_dim0_bias_relu(a, b):
    return [max(0.0, 0.5 * sum(a[k * 72 + n] for k in range(517)) + b[n]) for n in range(72)]


def sum_dims01(a):
    return [sum(a[(i * 3 + j) * 36 + n] for i in range(130) for j in range(3)) for n in range(36)]


def max_dim0(a):
    return [max(a[k * 64 + n] for k in range(300)) for n in range(64)]


def slice_reads(x, y):
    return [math.exp(x[i * 40 + 4 + j]) + y[2 * 32 + j] for i in range(6) for j in range(32)]


def strided_slice(x):
    return [max(0.0, x[(2 * i + 1) * 40 + 1 + j]) for i in range(3) for j in range(32)]


def glu_halves(a, b):
    # a is x viewed as 6x2x32 (read at half 0), b is x itself (read at columns 32 + j).
    return [a[i * 64 + j] / (1.0 + math.exp(-b[i * 64 + 32 + j])) for i in range(6) for j in range(32)]


def matvec_prologue(w, x, g):
    v = [max(x[k] * g[k], 0.0) for k in range(96)]
    return [sum(w[r * 96 + k] * v[k] for k in range(96)) for r in range(64)]


def mean_squared_error(a, b):
    return [sum((x - y) ** 2 for x, y in zip(a, b)) / 1024.0]


def scan_blocks(x, combine=lambda a, b: a + b):
    """Each block of 32 (48 of them) scanned inclusively."""
    out = []
    for block in range(48):
        acc = None
        for i in range(32):
            v = x[block * 32 + i]
            acc = v if acc is None else combine(acc, v)
            out.append(acc)
    return out


def scan_rows(x, rows, length, strict=False):
    """Each row of `length` scanned (strict: element i sums the k < i)."""
    out = []
    for r in range(rows):
        acc = 0.0
        for i in range(length):
            if strict:
                out.append(acc)
                acc += x[r * length + i]
            else:
                acc += x[r * length + i]
                out.append(acc)
    return out


def scan_combine(within, totals):
    # within is 6x8x32, totals 6x7: block b adds the total of the blocks before it.
    return [within[(r * 8 + b) * 32 + i] + (totals[r * 7 + b - 1] if b else 0.0)
            for r in range(6) for b in range(8) for i in range(32)]


def shifted_rows(x, y):
    return [(x[(i - 1) * 32 + j] if i else 0.0) + y[i * 32 + j] for i in range(6) for j in range(32)]


def shifted_columns(x, y):
    return [(x[i * 30 + j - 2] if j >= 2 else 1.0) * y[i * 32 + j] for i in range(6) for j in range(32)]


def pairwise_difference(x):
    return [x[i * 32 + k] - x[j * 32 + k] for i in range(8) for j in range(8) for k in range(32)]


# function: (input sizes, output size, reference)
CASES = {
    "vecmat_odd": ([300, 300 * 200], 200, vecmat_odd),
    "vecmat_bias_relu": ([300, 300 * 200, 200], 200, vecmat_bias_relu),
    "sum_dim0_bias_relu": ([517 * 72, 72], 72, sum_dim0_bias_relu),
    "sum_dims01": ([130 * 3 * 36], 36, sum_dims01),
    "max_dim0": ([300 * 64], 64, max_dim0),
    "batch_matvec": ([3 * 32 * 96, 3 * 96 * 1], 3 * 32, batch_matvec),
    "slice_reads": ([6 * 40, 3 * 32], 6 * 32, slice_reads),
    "strided_slice": ([6 * 40], 3 * 32, strided_slice),
    "glu_halves": ([6 * 64, 6 * 64], 6 * 32, glu_halves),
    "matvec_prologue": ([64 * 96, 96, 96], 64, matvec_prologue),
    "mean_squared_error": ([16 * 64, 16 * 64], 1, mean_squared_error),
    "scan_blocks": ([6 * 8 * 32], 6 * 8 * 32, scan_blocks),
    "scan_blocks_prod": ([6 * 8 * 32], 6 * 8 * 32, lambda x: scan_blocks(x, lambda a, b: a * b)),
    "scan_combine": ([6 * 8 * 32, 6 * 7], 6 * 8 * 32, scan_combine),
    "scan_totals": ([6 * 8], 6 * 8, lambda x: scan_rows(x, 6, 8)),
    "scan_many_rows": ([4100 * 8], 4100 * 8, lambda x: scan_rows(x, 4100, 8)),
    "scan_rows_24": ([5 * 24], 5 * 24, lambda x: scan_rows(x, 5, 24)),
    "strict_triangle": ([6 * 8], 6 * 8, lambda x: scan_rows(x, 6, 8, strict=True)),
    "shifted_rows": ([5 * 32, 6 * 32], 6 * 32, shifted_rows),
    "shifted_columns": ([6 * 30, 6 * 32], 6 * 32, shifted_columns),
    "pairwise_difference": ([8 * 32], 8 * 8 * 32, pairwise_difference),
}

MAIN = """
#include <cstdio>
int main() {
  std::FILE *f = std::fopen("%(inputs)s", "rb");
%(reads)s  std::fclose(f);
  std::vector<float> out(%(out)d, -1.0f);
  std::vector<float> workspace(%(workspace)d / 4, std::nanf(""));
  unsigned char *ws = reinterpret_cast<unsigned char *>(workspace.data());
%(launches)s  f = std::fopen("%(outputs)s", "wb");
  std::fwrite(out.data(), 4, out.size(), f);
  std::fclose(f);
  return 0;
}
"""


def run(clang, jobs_dir, job, cand, work):
    sizes, out_size, reference = CASES[job["function"]]
    rng = random.Random(7)
    # f32 values, so that the reference reads what the kernel reads.
    inputs = [list(struct.unpack(f"{n}f", struct.pack(f"{n}f", *(rng.uniform(-1, 1) for _ in range(n)))))
              for n in sizes]
    ref = reference(*inputs)
    bundle = os.path.join(jobs_dir, cand["bundle"])
    source = host_source(open(os.path.join(bundle, "kernel.cu")).read())
    plan = json.load(open(os.path.join(bundle, "plan.json")))
    workspace = ["ws"] if plan.get("workspace_bytes", 0) else []
    args = ", ".join([f"in{i}.data()" for i in range(len(sizes))] + ["out.data()"] + workspace)
    reads = "".join(f"  std::vector<float> in{i}({n});\n  std::fread(in{i}.data(), 4, {n}, f);\n"
                    for i, n in enumerate(sizes))
    launches = "".join(
        "  launch(%d, %d, %d, %d, [&] { %s(%s); });\n"
        % (*l["grid"], l["block"][0], l["kernel"], args) for l in plan["launches"])
    paths = {name: os.path.join(work, name) for name in ("kernel.cpp", "inputs.bin", "outputs.bin", "run")}
    with open(paths["inputs.bin"], "wb") as f:
        for values in inputs:
            f.write(struct.pack(f"{len(values)}f", *values))
    with open(paths["kernel.cpp"], "w") as f:
        f.write('#include "cuda_on_cpu.h"\n' + source + MAIN % {
            "inputs": paths["inputs.bin"], "outputs": paths["outputs.bin"], "reads": reads,
            "out": out_size, "workspace": plan.get("workspace_bytes", 0), "launches": launches})
    built = subprocess.run([clang, "-x", "c++", "-std=c++20", "-O1", "-w", "-I", HERE, paths["kernel.cpp"],
                            "-o", paths["run"], "-lstdc++", "-lm", "-pthread"], capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stderr[-2000:]
    subprocess.run([paths["run"]], check=True)
    data = open(paths["outputs.bin"], "rb").read()
    out = struct.unpack(f"{out_size}f", data)
    scale = max(1.0, max(abs(r) for r in ref))
    err = 0.0
    for got, want in zip(out, ref):
        d = abs(got - want) / scale
        if not d <= err:  # a NaN (an unwritten slice) too
            err = d if not math.isnan(d) else math.inf
    return err, TOLERANCE


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    clang, jobs_dir = sys.argv[1:3]
    prefix = sys.argv[3] if len(sys.argv) == 4 else "split-"
    return check(jobs_dir, CASES, lambda name: name.startswith(prefix),
                 lambda job, cand, work: run(clang, jobs_dir, job, cand, work),
                 "max_rel_err")

if __name__ == "__main__":
    sys.exit(main())
