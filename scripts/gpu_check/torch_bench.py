"""PyTorch on the GPU: float64 references and torch eager / torch.compile timings.

Timing: CUDA events around one call, median of `runs` after `warmup` calls, with
the L2 flushed before each timed call by writing a 256 MB buffer (outside the
events). Everything here needs torch with CUDA; `TorchBench.create()` returns
None when that is missing, and the caller falls back to NumPy references.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable, Sequence

FLUSH_BYTES = 256 << 20


class TorchBench:
    def __init__(self, torch):
        self.torch = torch
        # f32 products and convolutions at f32, as the kernels they are compared with
        # verify: cuDNN's convolutions default to TF32 (10-bit mantissas) otherwise.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.device = torch.device("cuda")
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=self.device)

    @classmethod
    def create(cls, log) -> "TorchBench | None":
        try:
            import torch
        except ImportError as e:
            log.write(f"torch unavailable: {e}\n")
            return None
        if not torch.cuda.is_available():
            log.write("torch has no CUDA device\n")
            return None
        return cls(torch)

    def describe(self) -> dict:
        t = self.torch
        return {"torch": t.__version__, "cuda": t.version.cuda, "device": t.cuda.get_device_name(),
                "matmul_allow_tf32": t.backends.cuda.matmul.allow_tf32,
                "cudnn_allow_tf32": t.backends.cudnn.allow_tf32}

    def to_device(self, arrays: Sequence, dtype=None) -> list:
        """NumPy arrays or tensors -> CUDA tensors (optionally cast, e.g. to float64)."""
        t = self.torch
        tensors = [(a if isinstance(a, t.Tensor) else t.from_numpy(a)).to(self.device) for a in arrays]
        return [x.to(dtype) for x in tensors] if dtype is not None else tensors

    def reference(self, op, inputs: Sequence) -> list:
        """op's torch function on float64 copies of the inputs (float64 CUDA tensors)."""
        t = self.torch
        args = op.prepare_torch(self.to_device(inputs, t.float64))
        with t.no_grad():
            return [r.to(t.float64) for r in op.torch_fn(*args)]

    def time_fn(self, fn: Callable, args: Sequence, warmup: int, runs: int) -> dict:
        """Median/min/max microseconds of fn(*args) by CUDA events, L2 flushed before each run."""
        t = self.torch
        with t.no_grad():
            for _ in range(warmup):
                fn(*args)
            t.cuda.synchronize()
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            times = []
            for _ in range(runs):
                self.flush.fill_(len(times) & 0xFF)
                start.record()
                fn(*args)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) * 1e3)
        return {"median_us": statistics.median(times), "min_us": min(times), "max_us": max(times),
                "runs": runs, "warmup": warmup}

    def bench(self, op, inputs: Sequence, ref: Sequence, *, compile: bool, warmup: int, runs: int,
              check: Callable) -> dict:
        """Times op's torch function eagerly (and compiled) on `inputs`; checks its outputs too.

        Returns {"eager": {...}, "compile": {...}}, each with timing, "check" (a record from
        `check(outputs, ref)`, informational) or "error". Never raises.
        """
        t = self.torch
        result = {}
        try:
            args = op.prepare_torch(self.to_device(inputs))
        except Exception as e:  # noqa: BLE001 - report and go on
            return {"eager": {"error": repr(e)}, "compile": {"error": repr(e)}}
        variants = [("eager", lambda: op.torch_fn)]
        if compile:
            variants.append(("compile", lambda: t.compile(op.torch_fn, dynamic=False)))
        for name, make in variants:
            record: dict = {}
            try:
                fn = make()
                begin = time.monotonic()
                with t.no_grad():
                    outputs = fn(*args)
                t.cuda.synchronize()
                record["first_call_s"] = time.monotonic() - begin
                record["check"] = check(outputs, ref)
                del outputs
                record.update(self.time_fn(fn, args, warmup, runs))
            except Exception as e:  # noqa: BLE001 - torch.compile failures are reported, not fatal
                record["error"] = f"{type(e).__name__}: {str(e)[:500]}"
            result[name] = record
        return result
