#!/usr/bin/env python3
"""Runs the builtin agent's convolution candidates on the CPU and compares
them with a double-precision reference.

    emulate_conv.py CLANG JOBS_DIR [PREFIX]

For every job of JOBS_DIR/jobs.json whose region is one of CASES (the
convolutions of Inputs/builtin/conv_shapes.mlir, conv_padded.mlir,
conv_nchw_rows.mlir, conv_im2col.mlir, conv_taps_padded.mlir and
conv_channel_reduction.mlir), each candidate's
kernel.cu is compiled by CLANG for the host with cuda_on_cpu.h (as in
emulate_matmul.py: the TF32 kernels' cp.async and mma.sync m16n8k8 helpers
replaced by its emulation) and harness_conv.cpp, whose reference sums the product
of input (the pad value outside a padded input) and filter over channels
and taps at every output element (and reduces each row's over the output
channels where the case says so). Prints
one line per candidate; exits 1 when one is off by more than the case's
tolerance or when no candidate was run. A plan with a workspace (a packed
im2col matrix) runs its launches in order over it, poisoned with NaNs
first. With PREFIX (several separated by
commas), only the candidates whose name starts with one of them run; single-product TF32 candidates (`tf32-*`,
precision=tf32) are held to TF32's accuracy (TF32_TOLERANCE) instead.
"""
import json
import os
import re
import subprocess
import sys

from candidates import check
from emulate_matmul import HELPER, MMA, SMEM

HERE = os.path.dirname(os.path.abspath(__file__))


def conv(layout, batch, h, w, c, f, kh, kw, stride=1, dilation=1, pad=(0, 0, 0, 0),
         cpad=(0, 0), value=0.0):
    """The case macros of a 2-d convolution in `layout` (nhwc: HWCF filter,
    nchw: FCHW filter), its reduced index in the filter's order. The input
    (h x w x c) may be padded: `pad` rows above and below, columns left and
    right, `cpad` channels before and after, with `value`; the filter has
    the padded channels."""
    top, bottom, left, right = pad
    hp, wp, cp = h + top + bottom, w + left + right, c + sum(cpad)
    oh = (hp - dilation * (kh - 1) - 1) // stride + 1
    ow = (wp - dilation * (kw - 1) - 1) // stride + 1
    b, y, x = f"((m) / {oh * ow})", f"((m) / {ow} % {oh})", f"((m) % {ow})"
    if layout == "nhwc":
        ky, kx, ch = f"((k) / {kw * cp})", f"((k) / {cp} % {kw})", f"((k) % {cp} - {cpad[0]})"
    else:
        ch, ky, kx = f"((k) / {kh * kw} - {cpad[0]})", f"((k) / {kw} % {kh})", f"((k) % {kw})"
    iy = f"({y} * {stride} + {ky} * {dilation} - {top})"
    ix = f"({x} * {stride} + {kx} * {dilation} - {left})"
    if layout == "nhwc":
        a_at = f"(({b} * {h} + {iy}) * {w} + {ix}) * {c} + {ch}"
        b_at = f"(k) * {f} + (n)"
        out_at = f"(m) * {f} + (n)"
    else:
        a_at = f"(({b} * {c} + {ch}) * {h} + {iy}) * {w} + {ix}"
        b_at = f"(n) * {cp * kh * kw} + (k)"
        out_at = f"(({b} * {f} + (n)) * {oh} + {y}) * {ow} + {x}"
    macros = {"CASE_M": batch * oh * ow, "CASE_N": f, "CASE_K": cp * kh * kw,
              "A_SIZE": batch * h * w * c, "B_SIZE": f * cp * kh * kw,
              "A_AT(m, k)": a_at, "B_AT(k, n)": b_at, "OUT_AT(m, n)": out_at}
    if any(pad) or any(cpad):
        macros["A_IN(m, k)"] = (f"(0 <= {iy} && {iy} < {h} && 0 <= {ix} && {ix} < {w} && "
                                f"0 <= {ch} && {ch} < {c})")
        macros["PAD_VALUE"] = value
    return macros


def over_channels(macros, reduce):
    """The case macros of the convolution of `macros` reduced over its output
    channels by ROW_REDUCE(a, b) `reduce`: one output per row, at the row."""
    return dict(macros, **{"OUT_AT(m, n)": "(m)", "OUT_SIZE": macros["CASE_M"],
                           "ROW_REDUCE(a, b)": reduce})


def depthwise(layout, batch, h, w, c, kh, kw, stride=1, pad=(0, 0, 0, 0)):
    """The case macros of a depthwise convolution: a row per output element
    (N = 1), the reduced index over the taps; the filter's index reads the
    row's channel (B_AT sees m). The input may be padded with zeros (`pad`
    as conv's)."""
    top, bottom, left, right = pad
    oh, ow = (h + top + bottom - kh) // stride + 1, (w + left + right - kw) // stride + 1
    ky, kx = f"((k) / {kw})", f"((k) % {kw})"
    if layout == "nhwc":
        b, y, x, ch = f"((m) / {oh * ow * c})", f"((m) / {ow * c} % {oh})", f"((m) / {c} % {ow})", f"((m) % {c})"
    else:
        b, ch, y, x = f"((m) / {c * oh * ow})", f"((m) / {oh * ow} % {c})", f"((m) / {ow} % {oh})", f"((m) % {ow})"
    iy, ix = f"({y} * {stride} + {ky} - {top})", f"({x} * {stride} + {kx} - {left})"
    if layout == "nhwc":
        a_at = f"(({b} * {h} + {iy}) * {w} + {ix}) * {c} + {ch}"
        b_at = f"(k) * {c} + {ch}"
    else:
        a_at = f"(({b} * {c} + {ch}) * {h} + {iy}) * {w} + {ix}"
        b_at = f"{ch} * {kh * kw} + (k)"
    macros = {"CASE_M": batch * oh * ow * c, "CASE_N": 1, "CASE_K": kh * kw,
              "A_SIZE": batch * h * w * c, "B_SIZE": c * kh * kw,
              "A_AT(m, k)": a_at, "B_AT(k, n)": b_at, "OUT_AT(m, n)": "(m)"}
    if any(pad):
        macros["A_IN(m, k)"] = f"(0 <= {iy} && {iy} < {h} && 0 <= {ix} && {ix} < {w})"
        macros["PAD_VALUE"] = 0.0
    return macros


# The bound of a single TF32 product per multiply-add (10-bit mantissas) on
# these sizes.
TF32_TOLERANCE = 1e-2

# function: (macros, A type, extra operand size, reference from the sum s,
#            kernel arguments, tolerance)
CASES = {
    "nhwc_bias_relu": (conv("nhwc", 2, 10, 10, 8, 12, 3, 3), "float", 12, "std::max(0.0, s + E[n])",
                       "A.data(), B.data(), E.data(), out.data()", 1e-4),
    "nchw_stride2": (conv("nchw", 1, 13, 13, 5, 7, 3, 3, stride=2), "float", 1, "s",
                     "A.data(), B.data(), out.data()", 1e-4),
    "alexnet_like": (conv("nchw", 2, 31, 31, 3, 10, 11, 11, stride=4), "float", 1, "s",
                     "A.data(), B.data(), out.data()", 1e-4),
    "pointwise_scaled": (conv("nhwc", 3, 7, 7, 20, 24, 1, 1), "float", 1, "s * 0.5",
                         "A.data(), B.data(), out.data()", 1e-4),
    "dilated_generic_residual": (conv("nhwc", 1, 12, 12, 4, 6, 3, 3, dilation=2), "float", 8 * 8 * 6,
                                 "s + E[OUT_AT(m, n)]", "A.data(), B.data(), E.data(), out.data()", 1e-4),
    "nhwc_f16": (conv("nhwc", 2, 10, 10, 16, 40, 3, 3), "__half", 1, "s",
                 "A.data(), B.data(), out.data()", 1e-3),
    "depthwise_relu": (depthwise("nhwc", 2, 10, 10, 8, 3, 3), "float", 1, "std::max(0.0, s)",
                       "A.data(), B.data(), out.data()", 1e-5),
    "depthwise_nchw_stride2": (depthwise("nchw", 1, 15, 15, 6, 5, 5, stride=2), "float", 1, "s",
                               "A.data(), B.data(), out.data()", 1e-5),
    # Inputs/builtin/conv_padded.mlir: the input is a tensor.pad.
    "nchw_pad1_relu": (conv("nchw", 2, 9, 9, 4, 6, 3, 3, pad=(1, 1, 1, 1)), "float", 1,
                       "std::max(0.0, s)", "A.data(), B.data(), out.data()", 1e-4),
    "nhwc_pad_asym_stride2": (conv("nhwc", 2, 9, 9, 8, 12, 3, 3, stride=2, pad=(2, 1, 1, 2)),
                              "float", 12, "s + E[n]", "A.data(), B.data(), E.data(), out.data()",
                              1e-4),
    "nhwc_pad_channels": (conv("nhwc", 1, 6, 6, 3, 5, 3, 3, pad=(1, 1, 1, 1), cpad=(0, 1)),
                          "float", 1, "s", "A.data(), B.data(), out.data()", 1e-4),
    "nchw_pad_value": (conv("nchw", 1, 7, 7, 3, 4, 5, 5, pad=(2, 2, 2, 2), value=0.5), "float", 1,
                       "s", "A.data(), B.data(), out.data()", 1e-4),
    "nhwc_f16_pad": (conv("nhwc", 2, 8, 8, 16, 40, 3, 3, pad=(1, 1, 1, 1)), "__half", 1, "s",
                     "A.data(), B.data(), out.data()", 1e-3),
    "depthwise_pad": (depthwise("nhwc", 2, 8, 8, 8, 3, 3, pad=(1, 1, 1, 1)), "float", 1, "s",
                      "A.data(), B.data(), out.data()", 1e-5),
    # Inputs/builtin/conv_nchw_rows.mlir: NCHW input rows copied 16 bytes at a time.
    "nchw_rows_pad1_relu": (conv("nchw", 2, 5, 64, 3, 8, 3, 3, pad=(1, 1, 1, 1)), "float", 1,
                            "std::max(0.0, s)", "A.data(), B.data(), out.data()", 1e-4),
    "nchw_rows_dilated": (conv("nchw", 1, 6, 132, 4, 6, 3, 3, dilation=2), "float", 1, "s",
                          "A.data(), B.data(), out.data()", 1e-4),
    "nchw_rows_pad_uneven": (conv("nchw", 1, 4, 128, 2, 5, 3, 4, pad=(1, 1, 2, 1)), "float", 1,
                             "s", "A.data(), B.data(), out.data()", 1e-4),
    # Inputs/builtin/conv_im2col.mlir: im2col tiles through a table of tap offsets, or packed.
    "im2col_stride4_f96": (conv("nchw", 3, 27, 27, 3, 96, 11, 11, stride=4), "float", 96,
                           "std::max(0.0, s + E[n])", "A.data(), B.data(), E.data(), out.data()",
                           1e-4),
    "im2col_3x3_rows_split": (conv("nchw", 2, 6, 18, 4, 8, 3, 3), "float", 1, "s",
                              "A.data(), B.data(), out.data()", 1e-4),
    # Inputs/builtin/conv_taps_padded.mlir: a zero pad's source through the table.
    "taps_pad1_bias_relu": (conv("nchw", 2, 6, 18, 4, 8, 3, 3, pad=(1, 1, 1, 1)), "float", 8,
                            "std::max(0.0, s + E[n])", "A.data(), B.data(), E.data(), out.data()",
                            1e-4),
    "taps_pad1_stride2": (conv("nchw", 1, 13, 13, 5, 7, 3, 3, stride=2, pad=(1, 1, 1, 1)),
                          "float", 1, "s", "A.data(), B.data(), out.data()", 1e-4),
    "taps_pad_uneven_channels": (conv("nchw", 1, 10, 11, 3, 6, 3, 3, dilation=2, pad=(1, 1, 2, 1),
                                      cpad=(1, 1)),
                                 "float", 1, "s", "A.data(), B.data(), out.data()", 1e-4),
    "taps_pad3_7x7": (conv("nchw", 1, 12, 12, 3, 4, 7, 7, pad=(3, 3, 3, 3)), "float", 1, "s",
                      "A.data(), B.data(), out.data()", 1e-4),
    # Inputs/builtin/conv_channel_reduction.mlir: a reduction over the output channels.
    "reduce_min_scale": (over_channels(conv("nchw", 2, 6, 18, 4, 8, 3, 3, pad=(1, 1, 1, 1)),
                                       "std::min<double>(a, b)"),
                         "float", 8, "(s + E[n]) * 2.0",
                         "A.data(), B.data(), E.data(), out.data()", 1e-4),
    "reduce_sum_nhwc": (over_channels(conv("nhwc", 2, 10, 10, 8, 12, 3, 3), "(a) + (b)"),
                        "float", 1, "std::max(0.0, s)", "A.data(), B.data(), out.data()", 1e-4),
    "reduce_max_f16": (over_channels(conv("nhwc", 2, 8, 8, 16, 40, 3, 3), "std::max<double>(a, b)"),
                       "__half", 1, "s", "A.data(), B.data(), out.data()", 1e-3),
}


def run(clang, jobs_dir, job, cand, work):
    macros, ta, extra, epilogue, args, tol = CASES[job["function"]]
    bundle = os.path.join(jobs_dir, cand["bundle"])
    source = open(os.path.join(bundle, "kernel.cu")).read()
    source = re.sub(r"#include <cuda_\w+\.h>\n", "", source)
    source = MMA.sub(lambda x: "mma_m16n8k16<%s>(acc[i][j], a[i], b[j]);"
                     % ("__nv_bfloat16" if x.group(1) == "bf16" else "__half"), source)
    plan = json.load(open(os.path.join(bundle, "plan.json")))
    launch = plan["launches"][0]
    shared = max(step.get("shared_bytes", 0) for step in plan["launches"])
    source = HELPER.sub("", source)
    source = SMEM.sub(lambda x: "static float %s[%d] __attribute__((aligned(16)));"
                      % (x.group(1), shared // 4), source)
    kernel = os.path.join(work, "kernel.cu")
    open(kernel, "w").write(source)
    (gx, gy, gz), threads = launch["grid"], launch["block"][0]
    defines = dict(macros, TA=ta, TB=ta, E_SIZE=extra, EPILOGUE=epilogue, ARGS=args,
                   THREADS=threads, GRID_X=gx, GRID_Y=gy, GRID_Z=gz)
    if plan.get("workspace_bytes"):  # the launches in order over the workspace
        defines["WORKSPACE_BYTES"] = plan["workspace_bytes"]
        defines["LAUNCHES"] = " ".join(
            "launch(%d, %d, %d, %d, [&] { %s(ARGS, ws); });"
            % (*step["grid"], step["block"][0], step["kernel"]) for step in plan["launches"])
    case = os.path.join(work, "case.h")
    open(case, "w").write("".join(f"#define {key} {value}\n" for key, value in defines.items()))
    exe = os.path.join(work, "run")
    cmd = [clang, "-x", "c++", "-std=c++20", "-O1", "-w", "-I", HERE, f'-DKERNEL="{kernel}"',
           f'-DCASE="{case}"', os.path.join(HERE, "harness_conv.cpp"), "-o", exe, "-lstdc++", "-lm",
           "-pthread"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stderr[-2000:]
    err = float(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
    return err, TF32_TOLERANCE if cand["name"].startswith("tf32-") else tol


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    clang, jobs_dir = sys.argv[1:3]
    prefixes = tuple(sys.argv[3].split(",")) if len(sys.argv) == 4 else ("",)
    return check(jobs_dir, CASES, lambda name: name.startswith(prefixes),
                 lambda job, cand, work: run(clang, jobs_dir, job, cand, work))

if __name__ == "__main__":
    sys.exit(main())
