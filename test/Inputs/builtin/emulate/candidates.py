"""The loop every emulation driver (emulate_*.py) shares: run the candidates
of the cases' jobs and report each against its tolerance."""
import json
import os
import re
import tempfile


# The PTX helpers of the TF32 kernels, replaced by cuda_on_cpu.h's.
HELPER = re.compile(r"(template <int N> )?__device__ __forceinline__ \w+ (ca_cp_async\w*|ca_mma_tf32)\(.*?\n\}\n", re.S)


def host_source(source):
    """A candidate's kernel.cu for the host compiler: no CUDA headers, the
    TF32 kernels' PTX helpers left to cuda_on_cpu.h's, the
    read-once vector load (PTX) a plain read, dynamic shared memory a static
    array, and the rows-exchange helpers (PTX) left to cuda_on_cpu.h's; a
    kernel that has them runs 16 blocks at a time (CA_RESIDENT_BLOCKS,
    defined first), each waiting for its row's others."""
    source = re.sub(r"#include <cuda_\w+\.h>\n", "", source)
    source = HELPER.sub("", source)
    stream = re.compile(r"(ca_load_stream\(const ca_vec<T, N> \*p\) \{\n).*?\n\}\n", re.S)
    source = stream.sub(lambda m: m.group(1) + "  return *p;\n}\n", source)
    # Dynamic shared memory: a static array of the most a block may have.
    source = re.sub(r"extern __shared__ (__align__\(\d+\)) (unsigned char|float) (\w+)\[\];",
                    r"static \1 \2 \3[227 * 1024 / sizeof(\2)];", source)
    exchange = re.compile(r"__device__ __forceinline__ [^\n]* ca_exchange_\w+\("
                          r"[^\n]*(?:\}\n|\{\n.*?\n\}\n)", re.S)
    if not exchange.search(source):
        return source
    return "#define CA_RESIDENT_BLOCKS 16\n" + exchange.sub("", source)


def check(jobs_dir, cases, keep, run, measure="max_abs_err", require=True):
    """Calls `run(job, cand, work)` for every candidate whose name `keep`
    accepts, of every job of JOBS_DIR/jobs.json whose function is one of
    `cases` (or, where `cases` is callable, that it accepts); `run` gives (error, tolerance), or (None, build log) when the
    kernel does not build. Prints one line per candidate (`measure` names the
    error) and returns the exit code: 1 when one failed or (with `require`)
    none ran."""
    ok, seen = True, 0
    with tempfile.TemporaryDirectory() as work:
        for job in json.load(open(os.path.join(jobs_dir, "jobs.json")))["jobs"]:
            if not (cases(job) if callable(cases) else job["function"] in cases):
                continue
            for cand in job["candidates"]:
                if not keep(cand["name"]):
                    continue
                seen += 1
                err, tol = run(job, cand, work)
                if err is None:
                    print(f"FAIL {job['function']} {cand['name']}: does not build\n{tol}")
                    ok = False
                    continue
                good = err <= tol
                ok = ok and good
                print(f"{'ok  ' if good else 'FAIL'} {job['function']} {cand['name']} {measure} {err:.2g}")
    if seen == 0 and require:
        print("no candidates of the cases")
        return 1
    return 0 if ok else 1
