#!/usr/bin/env python3
"""Runs the builtin agent's matmul candidates on the CPU and compares them
with a double-precision reference.

    emulate_matmul.py CLANG JOBS_DIR [NAME_REGEX]

For every job of JOBS_DIR/jobs.json whose region is one of CASES (the
contractions of Inputs/builtin/matmul_shapes.mlir and
matmul_many_tiles.mlir, and bench's matmul_f16_f32acc), each candidate's kernel.cu is compiled by CLANG for the
host with cuda_on_cpu.h (threads as std::threads, mma.sync and cp.async
emulated as the PTX ISA specifies them) and run over its plan's grid
(the sm_90a wgmma candidates are skipped: no emulation; with NAME_REGEX,
only the candidates whose name it matches are run). Prints one line
per candidate; exits 1 when one is off by more than the case's tolerance or
when no candidate was run.
"""
import json
import os
import re
import subprocess
import sys

from candidates import HELPER, check

HERE = os.path.dirname(os.path.abspath(__file__))

# function: (M, N, K, batch, A type, B type, A[b, m, k], B[b, k, n],
#            reference from the sum s, kernel arguments, tolerance)
CASES = {
    "bias_relu_odd": (100, 70, 37, 1, "float", "float", "A[m * K + k]", "B[k * N + n]",
                              "std::max(0.0, s + bias[n])", "A.data(), B.data(), bias.data(), out.data()", 1e-4),
    "a_transposed": (130, 96, 53, 1, "float", "float", "A[k * M + m]", "B[k * N + n]",
                             "s", "A.data(), B.data(), out.data()", 1e-4),
    "b_transposed_scaled": (192, 72, 200, 1, "float", "float", "A[m * K + k]", "B[n * K + k]",
                                    "s * 0.125", "A.data(), B.data(), out.data()", 1e-4),
    "batched_bf16": (33, 65, 40, 3, "__nv_bfloat16", "__nv_bfloat16", "A[(bt * M + m) * K + k]",
                             "B[(bt * K + k) * N + n]", "s", "A.data(), B.data(), out.data()", 1e-3),
    "batched_scaled_a": (40, 36, 24, 2, "float", "float", "(A[(bt * M + m) * K + k] * 0.5 + 0.5)",
                         "B[(bt * K + k) * N + n]", "s", "A.data(), B.data(), out.data()", 1e-4),
    "split_k_odd": (72, 70, 517, 1, "float", "float", "A[m * K + k]", "B[k * N + n]",
                    "std::max(0.0, s + bias[n])", "A.data(), B.data(), bias.data(), out.data()", 1e-4),
    "linear_transposed": (96, 40, 72, 1, "float", "float", "A[m * K + k]", "B[n * K + k]",
                          "std::max(0.0, s + bias[n])", "A.data(), B.data(), bias.data(), out.data()", 1e-4),
    "many_tiles_scaled_a": (130, 260, 20, 22, "float", "float",
                            "(A[(bt * M + m) * K + k] * 0.5 + 0.5)", "B[(bt * K + k) * N + n]", "s",
                            "A.data(), B.data(), out.data()", 1e-4),
    "many_tiles_transposed": (132, 260, 20, 22, "float", "float", "A[(bt * K + k) * M + m]",
                              "B[(bt * N + n) * K + k]", "s", "A.data(), B.data(), out.data()", 1e-4),
    "long_k": (40, 24, 1100, 1, "float", "float", "A[m * K + k]", "B[k * N + n]",
               "s", "A.data(), B.data(), out.data()", 1e-4),
    # The result transposed, [bt][n][m] (OUT_AT).
    "batched_transposed_result": (40, 36, 24, 2, "float", "float", "A[(bt * M + m) * K + k]",
                                  "B[(bt * K + k) * N + n]", "std::max(0.0, s)",
                                  "A.data(), B.data(), out.data()", 1e-4),
    "matmul_f16_f32acc": (256, 256, 256, 1, "__half", "__half", "A[m * K + k]", "B[k * N + n]",
                                  "s", "A.data(), B.data(), out.data()", 1e-3),
}
# Output layouts other than [bt][m][n].
OUT_AT = {"batched_transposed_result": "((bt * N + n) * M + m)"}
SMEM = re.compile(r"extern __shared__ __align__\(16\) float (\w+)\[\];")
MMA = re.compile(r'asm volatile\("mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.(\w+)\.\w+\.f32[^;]*;\\n"[^;]*;', re.S)


def run(clang, jobs_dir, job, cand, work):
    m, n, k, batch, ta, tb, a_at, b_at, epilogue, args, tol = CASES[job["function"]]
    bundle = os.path.join(jobs_dir, cand["bundle"])
    source = open(os.path.join(bundle, "kernel.cu")).read()
    source = re.sub(r"#include <cuda_\w+\.h>\n", "", source)
    source = MMA.sub(lambda x: "mma_m16n8k16<%s>(acc[i][j], a[i], b[j]);"
                     % ("__nv_bfloat16" if x.group(1) == "bf16" else "__half"), source)
    plan = json.load(open(os.path.join(bundle, "plan.json")))
    launch = plan["launches"][0]
    source = HELPER.sub("", source)
    source = SMEM.sub(lambda x: "static float %s[%d] __attribute__((aligned(16)));"
                      % (x.group(1), launch.get("shared_bytes", 0) // 4), source)
    kernel = os.path.join(work, "kernel.cu")
    open(kernel, "w").write(source)
    (gx, gy, gz), threads = launch["grid"], launch["block"][0]
    defines = {"KERNEL": f'"{kernel}"', "CASE_M": m, "CASE_N": n, "CASE_K": k, "CASE_BATCH": batch,
               "TA": ta, "TB": tb, "A_AT(bt,m,k)": a_at, "B_AT(bt,k,n)": b_at, "EPILOGUE": epilogue,
               "ARGS": args, "THREADS": threads, "GRID_X": gx, "GRID_Y": gy, "GRID_Z": gz}
    if job["function"] in OUT_AT:
        defines["OUT_AT(bt,m,n)"] = OUT_AT[job["function"]]
    if len(plan["launches"]) > 1:  # split-K: the finish kernel over the workspace
        finish = plan["launches"][1]
        defines.update({"FINISH_GRID_X": finish["grid"][0], "FINISH_THREADS": finish["block"][0],
                        "WORKSPACE_BYTES": plan["workspace_bytes"]})
    exe = os.path.join(work, "run")
    cmd = [clang, "-x", "c++", "-std=c++20", "-O1", "-w", "-I", HERE,
           *[f"-D{key}={value}" for key, value in defines.items()],
           os.path.join(HERE, "harness.cpp"), "-o", exe, "-lstdc++", "-lm", "-pthread"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stderr[-2000:]
    err = float(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
    return err, tol


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    clang, jobs_dir = sys.argv[1:3]
    only = re.compile(sys.argv[3] if len(sys.argv) == 4 else "")
    # wgmma (sm_90a) has no host emulation: its kernels are checked for
    # their PTX here and verified on the GPU.
    return check(jobs_dir, CASES,
                 lambda name: not name.startswith("wgmma-") and only.search(name),
                 lambda job, cand, work: run(clang, jobs_dir, job, cand, work))

if __name__ == "__main__":
    sys.exit(main())
