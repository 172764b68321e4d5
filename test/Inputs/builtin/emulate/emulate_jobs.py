#!/usr/bin/env python3
"""Runs the builtin agent's memory-bound candidates of any job directory on
the CPU and compares each with its region's CPU reference.

    emulate_jobs.py OPT MLIR_TRANSLATE CLANG [--prefixes=PREFIX,...] [--max-elements=N]
                    [--ties-and-nans] JOBS_DIR...

For every job of each JOBS_DIR/jobs.json whose inputs are f32, whose outputs
are f32, f64, i32 or i64 (an argmax's index) and whose buffers hold at most MAX_ELEMENTS (or N) elements in all, its
reference's intermediate buffers (of any type) included: the region
(`reference/region.mlir`) is lowered by `OPT --agent-cpu-reference` to serial
host loops, translated and built by CLANG into a shared library, and run on
seeded inputs in [-1, 1] (with --ties-and-nans: multiples of 1/4, so many
equal values and signed zeros, and one element in 50 a NaN); each candidate named PREFIX* (default: the
memory-bound strategies' flat-, tile-, scan-, rows-, split, sliced-, serial-
and fold- kernels, and the attention's flash- kernels) has its kernel.cu compiled by CLANG for the host with
cuda_on_cpu.h (threads as std::threads, a block at a time; the read-once
vector load a plain one) and its plan's launches run in order over a
workspace that is NaN until written. A float output is off when it differs
from the reference by more than 1e-4 of the reference's largest value plus
1e-4 of its own (a NaN where the reference has none, an element never
written, too); an integer output
when any element differs (outputs start at the type's least value). Prints one line per
candidate, then how many ran in all; exits 1 when one is off or does not
build, or when no candidate of any JOBS_DIR was run. Unlike emulate_split.py, the cases need no hand-written reference:
any program's jobs can be checked.
"""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np

from candidates import check, host_source

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PREFIXES = ("flat-", "tile", "scan-", "rows-", "split", "sliced-", "serial-", "fold-",
                    "arg-extreme-", "flash-")
# The output element types the harness moves: numpy's, C's, and the value an
# output starts at (a NaN, an integer's least value: an element never written
# shows).
OUTPUT_TYPES = {"f32": (np.float32, "float", 'std::nanf("")'),
                "f64": (np.float64, "double", 'std::nan("")'),
                "i32": (np.int32, "int", "-2147483647 - 1"),
                "i64": (np.int64, "long long", "-9223372036854775807LL - 1")}
TOLERANCE = 1e-4
# Regions with more elements than this in all are left out: the emulator
# starts a thread per CUDA thread, and a large grid takes minutes.
MAX_ELEMENTS = 1 << 16

MAIN = """
#include <cstdio>
int main() {
  std::FILE *f = std::fopen("%(inputs)s", "rb");
%(reads)s  std::fclose(f);
%(outputs)s  ca_host_vector<float> workspace(%(workspace)d / 4 + 1, std::nanf(""));
  unsigned char *ws = reinterpret_cast<unsigned char *>(workspace.data());
%(launches)s  f = std::fopen("%(results)s", "wb");
%(writes)s  std::fclose(f);
  return 0;
}
"""


def buffers(plan, role):
    return [b for b in plan["buffers"] if b["role"] == role]


def reference(tools, region_mlir, work, name, inputs, outputs):
    """The region's outputs on `inputs`, by its CPU reference (function @region),
    built as `name`.so (a library of its own: dlopen keeps the first of a path)."""
    opt, translate, clang = tools
    paths = {ext: os.path.join(work, f"{name}.{ext}") for ext in ("mlir", "ll", "so")}
    subprocess.run([opt, region_mlir, "--agent-cpu-reference", "-o", paths["mlir"]],
                   check=True, stderr=subprocess.DEVNULL)
    subprocess.run([translate, "--mlir-to-llvmir", paths["mlir"], "-o", paths["ll"]], check=True)
    subprocess.run([clang, "-x", "ir", paths["ll"], "-O1", "-shared", "-fPIC",
                    "-Wno-override-module", "-o", paths["so"], "-lm"], check=True)
    library = ctypes.CDLL(paths["so"])
    results = [np.zeros(b["shape"], OUTPUT_TYPES[b["dtype"]][0]) for b in outputs]
    library.region.restype = None
    library.region(*[ctypes.c_void_p(a.ctypes.data) for a in inputs + results])
    return results


def emulate(clang, bundle, work, inputs, plan):
    """The candidate's outputs on `inputs`, or (None, build log)."""
    outs = buffers(plan, "output")
    source = host_source(open(os.path.join(bundle, "kernel.cu")).read())
    names = {b["name"]: f"{b['name']}.data()" for b in buffers(plan, "input") + outs}
    names["workspace"] = "ws"
    launches = "".join(
        "  launch(%d, %d, %d, %d, [&] { %s(%s); });\n"
        % (*l["grid"], l["block"][0], l["kernel"], ", ".join(names[a] for a in l["args"]))
        for l in plan["launches"])
    paths = {name: os.path.join(work, name) for name in ("kernel.cpp", "inputs.bin", "outputs.bin", "run")}
    with open(paths["inputs.bin"], "wb") as f:
        for a in inputs:
            f.write(a.tobytes())
    reads = "".join(f"  ca_host_vector<float> {b['name']}({a.size});\n"
                    f"  std::fread({b['name']}.data(), 4, {a.size}, f);\n"
                    for b, a in zip(buffers(plan, "input"), inputs))
    sizes = [int(np.prod(b["shape"], dtype=np.int64)) for b in outs]
    with open(paths["kernel.cpp"], "w") as f:
        # host_source's defines first, then the emulator.
        defines = "".join(l + "\n" for l in source.splitlines() if l.startswith("#define CA_"))
        f.write(defines + '#include "cuda_on_cpu.h"\n' + source + MAIN % {
            "inputs": paths["inputs.bin"], "results": paths["outputs.bin"], "reads": reads,
            "outputs": "".join(f"  ca_host_vector<{OUTPUT_TYPES[b['dtype']][1]}> {b['name']}"
                               f"({n}, {OUTPUT_TYPES[b['dtype']][2]});\n"
                               for b, n in zip(outs, sizes)),
            "writes": "".join(f"  std::fwrite({b['name']}.data(), sizeof({b['name']}[0]), {n}, f);\n"
                              for b, n in zip(outs, sizes)),
            "workspace": plan.get("workspace_bytes", 0), "launches": launches})
    built = subprocess.run([clang, "-x", "c++", "-std=c++20", "-O1", "-w", "-I", HERE, paths["kernel.cpp"],
                            "-o", paths["run"], "-lstdc++", "-lm", "-pthread"], capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stderr[-2000:]
    subprocess.run([paths["run"]], check=True)
    data = open(paths["outputs.bin"], "rb").read()
    results, at = [], 0
    for b, n in zip(outs, sizes):
        dtype = np.dtype(OUTPUT_TYPES[b["dtype"]][0])
        results.append(np.frombuffer(data, dtype, n, at).reshape(b["shape"]))
        at += n * dtype.itemsize
    return results, None


def main():
    args = sys.argv[1:]
    prefixes, max_elements, ties_and_nans = DEFAULT_PREFIXES, MAX_ELEMENTS, False
    while len(args) > 3 and args[3].startswith("--"):
        option = args.pop(3)
        if option.startswith("--prefixes="):
            prefixes = tuple(option[len("--prefixes="):].split(","))
        elif option.startswith("--max-elements="):
            max_elements = int(option[len("--max-elements="):])
        elif option == "--ties-and-nans":
            ties_and_nans = True
        else:
            sys.exit(f"unknown option {option}\n{__doc__}")
    if len(args) < 4:
        sys.exit(__doc__)
    opt, translate, clang = args[:3]
    status, runs = 0, []
    for jobs_dir in args[3:]:
        expected = {}  # job hash -> (inputs, reference outputs)

        def case(job, work):
            if job["hash"] not in expected:
                plan = json.load(open(os.path.join(jobs_dir, job["reference"], "plan.json")))
                rng = np.random.default_rng(7)
                inputs = [rng.uniform(-1, 1, b["shape"]).astype(np.float32)
                          for b in buffers(plan, "input")]
                if ties_and_nans:
                    for a in inputs:
                        a[...] = np.round(a * 4) / 4
                        a[rng.uniform(size=a.shape) < 0.02] = np.nan
                outputs = reference((opt, translate, clang),
                                    os.path.join(jobs_dir, job["reference"], "region.mlir"),
                                    work, job["hash"], inputs, buffers(plan, "output"))
                expected[job["hash"]] = inputs, outputs
            return expected[job["hash"]]

        def run(job, cand, work):
            runs.append(cand["name"])
            bundle = os.path.join(jobs_dir, cand["bundle"])
            plan = json.load(open(os.path.join(bundle, "plan.json")))
            inputs, want = case(job, work)
            got, log = emulate(clang, bundle, work, inputs, plan)
            if got is None:
                return None, log
            err = 0.0
            for g, w in zip(got, want):
                if np.issubdtype(w.dtype, np.integer):
                    err = max(err, 0.0 if np.array_equal(g, w) else np.inf)
                    continue
                scale = max(1.0, float(np.abs(w).max()) if w.size else 1.0)
                # At least one dimension: a rank-0 output (a loss) is a scalar.
                diff = np.atleast_1d(np.abs(g.astype(np.float64) - w) / (scale + np.abs(w)))
                diff[np.atleast_1d(np.isnan(g) & np.isnan(w))] = 0.0
                worst = float(np.nanmax(diff)) if diff.size else 0.0
                err = max(err, np.inf if np.isnan(diff).any() else worst)
            return err, TOLERANCE

        # Only regions with f32 inputs and f32, f64, i32 or i64 outputs (the
        # reference's own buffers may be wider) of at most MAX_ELEMENTS.
        def small_f32(job):
            plan = json.load(open(os.path.join(jobs_dir, job["reference"], "plan.json")))
            elements = sum(int(np.prod(b["shape"], dtype=np.int64)) for b in plan["buffers"])
            return (all(b["dtype"] == "f32" for b in buffers(plan, "input"))
                    and all(b["dtype"] in OUTPUT_TYPES for b in buffers(plan, "output"))
                    and elements <= max_elements)

        status |= check(jobs_dir, small_f32, lambda name: name.startswith(prefixes), run,
                        "max_rel_err", require=False)
    print(f"emulated {len(runs)} candidate(s)")
    return status if runs else 1

if __name__ == "__main__":
    sys.exit(main())
