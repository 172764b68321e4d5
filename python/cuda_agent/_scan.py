"""Inclusive scans (``torch.cumsum``, ``torch.cumprod``) as linalg on tensors.

torch-mlir lowers ``aten.cumsum`` and ``aten.cumprod`` to ``tm_tensor.scan``, an
op of its own dialect that linalg-on-tensors consumers (cuda-agent-opt among
them) do not read. ``SCAN_DECOMPOSITIONS`` replaces both, before the import,
by a blocked scan that torch-mlir lowers to linalg generics, reshapes and pads:

- the scanned dimension is split into blocks of ``BLOCK`` elements (padded with
  the identity to a whole number of blocks);
- each block is scanned by a masked reduction: element ``i`` of a block reduces
  the elements ``k <= i`` of its block, the others replaced by the identity
  (``BLOCK`` operations per element, one warp-wide row per element);
- the last element of each scanned block, the block's total, is scanned the
  same way, recursively (one level per factor of ``BLOCK`` in the length);
- every block is combined with the scan of the totals before it.

Each level is one masked reduction region and one elementwise region, so a scan
of length ``n`` costs about ``BLOCK * n`` operations and ``log_BLOCK(n)`` levels,
all of it ordinary linalg that the outliner, the verifier and the default
lowering handle like any other region.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

import torch
import torch.nn.functional as F

#: Elements per block: one warp.
BLOCK = 32


def _scan_last(x: torch.Tensor, reduce: Callable, combine: Callable, identity) -> torch.Tensor:
    """The inclusive scan of ``x`` along its last dimension."""
    n = x.shape[-1]
    if n <= BLOCK:
        # int32 positions: torch's default int64 would be an op the outliner
        # keeps out of regions, and the mask would become a tensor of its own.
        position = torch.arange(n, dtype=torch.int32, device=x.device)
        upto = position.unsqueeze(1) >= position  # [i, k]: k <= i
        return reduce(torch.where(upto, x.unsqueeze(-2), identity), -1)
    blocks = -(-n // BLOCK)
    if blocks * BLOCK != n:
        x = F.pad(x, (0, blocks * BLOCK - n), value=identity)
    within = _scan_last(x.unflatten(-1, (blocks, BLOCK)), reduce, combine, identity)
    totals = _scan_last(within[..., -1], reduce, combine, identity)
    before = F.pad(totals[..., :-1], (1, 0), value=identity)
    return combine(within, before.unsqueeze(-1)).flatten(-2)[..., :n]


def _scan(reduce: Callable, combine: Callable, identity) -> Callable:
    def decomposition(x: torch.Tensor, dim: int, dtype: Optional[torch.dtype] = None):
        if dtype is not None:
            x = x.to(dtype)
        elif not (x.dtype.is_floating_point or x.dtype.is_complex):
            x = x.to(torch.int64)  # torch's promotion of integer and bool scans
        if x.dim() == 0:
            return x.clone()
        return _scan_last(x.movedim(dim, -1), reduce, combine, identity).movedim(-1, dim)

    return decomposition


cumsum = _scan(lambda v, d: v.sum(d), torch.add, 0)
cumprod = _scan(lambda v, d: v.prod(d), torch.mul, 1)

SCAN_DECOMPOSITIONS: Dict[torch._ops.OperatorBase, Callable] = {
    torch.ops.aten.cumsum.default: cumsum,
    torch.ops.aten.cumprod.default: cumprod,
}
