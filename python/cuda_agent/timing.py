"""GPU timing of a Python callable: median microseconds under CUDA events, the L2 flushed
(a 2x-L2 write) before each run, outside the timed interval. Needs only torch: the bench and
the GPU machine's torch timer (bench/torch_times.py, staged beside a copy of this file) share it."""
from typing import Callable

import torch


class CudaTimer:
    """Median microseconds of ``fn()`` under CUDA events, L2 flushed before each run."""

    def __init__(self, device="cuda"):
        l2 = torch.cuda.get_device_properties(device).L2_cache_size or (64 << 20)
        self.scratch = torch.empty(2 * l2, dtype=torch.uint8, device=device)

    def __call__(self, fn: Callable[[], object], runs: int, warmup: int = 3) -> float:
        for _ in range(warmup):
            fn()
        events = []
        for _ in range(runs):
            self.scratch.zero_()
            start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            fn()
            stop.record()
            events.append((start, stop))
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) * 1000.0 for s, e in events)
        return times[len(times) // 2]
