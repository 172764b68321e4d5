"""Eager and torch.compile times of bench modules (python/cuda_agent/models.py), median of 20
CUDA-event timings with the L2 flushed before each, on the GPU machine.

    python3 bench/torch_times.py NAME...

`scripts/python-gpu-check stage-verify` copies this file and models.py into its stage, and
`run-verify.sh` runs it after the verification jobs (TORCH_TIMES="NAME..."), so the verified
region kernels and torch.compile are timed in one device call. Needs only torch."""
import importlib.util
import os
import sys
import time

import torch


def load_models():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "models.py"),
                 os.path.join(here, "..", "python", "cuda_agent", "models.py")):
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location("models", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    sys.exit("torch_times: no models.py beside this file or in python/cuda_agent")


def timed(fn, scratch, runs=20, warmup=3):
    for _ in range(warmup):
        fn()
    events = []
    for _ in range(runs):
        scratch.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(end) * 1000.0 for start, end in events)
    return times[len(times) // 2]


def main(names):
    models = load_models()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    l2 = torch.cuda.get_device_properties(0).L2_cache_size or (64 << 20)
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    for name in names:
        try:
            model, inputs = models.make(name, device="cuda")
            with torch.no_grad():
                eager = timed(lambda: model(*inputs), scratch)
                start = time.time()
                compiled = torch.compile(model)
                compiled(*inputs)
                took = time.time() - start
                best = timed(lambda: compiled(*inputs), scratch)
            print(f"{name}: eager {eager:.1f} us, torch.compile {best:.1f} us "
                  f"(compile {took:.0f} s)", flush=True)
        except Exception as error:  # one module's failure is its line, not the run's
            print(f"{name}: error {type(error).__name__}: {error}"[:400], flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
