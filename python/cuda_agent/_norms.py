"""Group normalization as the row reductions and elementwise ops it stands for.

torch's own decomposition of ``aten.native_group_norm`` computes the statistics
in float64 on an ``(N, G, C/G * HxW)`` view and then gathers each channel's mean
and reciprocal deviation back through index tensors of int64 (``tensor.extract``
in a generic per (n, c)): a program of five regions whose gathers no kernel
strategy reads. ``NORM_DECOMPOSITIONS`` writes it instead on the 4-D view
``(N, G, C/G, HxW)``, where a group is the last two dimensions, so the
statistics, the normalization and the per-channel scale and shift (the weight
viewed as ``(1, G, C/G, 1)``) are one iteration space: a row region like a
layer norm over its last dimensions, with reshapes that are views around it.

The statistics are those of ``torch.nn.functional.group_norm``: the mean and the
biased variance of each group, ``rsqrt(var + eps)``, in float32 for 16-bit inputs
(torch's accumulation type), the output in the input's type.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

import torch


def native_group_norm(x: torch.Tensor, weight: Optional[torch.Tensor],
                      bias: Optional[torch.Tensor], n: int, c: int, hw: int,
                      group: int, eps: float):
    """``aten.native_group_norm``: the output, and each group's mean and
    reciprocal standard deviation, both ``(N, G)``."""
    compute = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    rows = x.to(compute).reshape(n, group, c // group, hw)
    mean = rows.mean(dim=(2, 3), keepdim=True)
    centered = rows - mean
    var = (centered * centered).mean(dim=(2, 3), keepdim=True)
    rstd = torch.rsqrt(var + eps)
    y = centered * rstd
    if weight is not None:
        y = y * weight.to(compute).reshape(1, group, c // group, 1)
    if bias is not None:
        y = y + bias.to(compute).reshape(1, group, c // group, 1)
    return (y.reshape(x.shape).to(x.dtype), mean.reshape(n, group),
            rstd.reshape(n, group))


NORM_DECOMPOSITIONS: Dict[torch._ops.OperatorBase, Callable] = {
    torch.ops.aten.native_group_norm.default: native_group_norm,
}
