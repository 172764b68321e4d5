"""Eager and torch.compile times of bench modules (python/cuda_agent/models.py), median of 20
CUDA-event timings with the L2 flushed before each, on the GPU machine.

    python3 bench/torch_times.py NAME...

`scripts/python-gpu-check stage-verify` copies this file, models.py and timing.py into its stage, and
`run-verify.sh` runs it after the verification jobs (TORCH_TIMES="NAME..."), so the verified
region kernels and torch.compile are timed in one device call. Needs only torch."""
import importlib.util
import os
import sys
import time

import torch


def load(module):
    """`module` (models or timing) from beside this file (the stage's copies) or from
    python/cuda_agent in the repository."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, module + ".py"),
                 os.path.join(here, "..", "python", "cuda_agent", module + ".py")):
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(module, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            return loaded
    sys.exit(f"torch_times: no {module}.py beside this file or in python/cuda_agent")


def main(names):
    models, timing = load("models"), load("timing")
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    timer = timing.CudaTimer()
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    for name in names:
        try:
            model, inputs = models.make(name, device="cuda")
            with torch.no_grad():
                eager = timer(lambda: model(*inputs), runs=20)
                start = time.time()
                compiled = torch.compile(model)
                compiled(*inputs)
                took = time.time() - start
                best = timer(lambda: compiled(*inputs), runs=20)
            print(f"{name}: eager {eager:.1f} us, torch.compile {best:.1f} us "
                  f"(compile {took:.0f} s)", flush=True)
        except Exception as error:  # one module's failure is its line, not the run's
            print(f"{name}: error {type(error).__name__}: {error}"[:400], flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
