"""The blocked scans that replace torch-mlir's tm_tensor.scan (_scan.py):
equal to torch.cumsum and torch.cumprod in float64, at every level count,
padded length and dimension; and what export writes for them."""

import pytest
import torch

from cuda_agent import _scan


@pytest.mark.parametrize("shape,dim", [
    ((3, 1), 1), ((3, 5), 1), ((3, 32), 1), ((3, 33), 1), ((2, 1000), 1),
    ((2, 1024), -1), ((1, 1025), 1), ((40, 3), 0), ((2, 70, 3), 1), ((7,), 0),
])
def test_cumsum_matches_torch(shape, dim):
    x = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(_scan.cumsum(x, dim), torch.cumsum(x, dim), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,dim", [((3, 40), 1), ((2, 100), -1), ((50, 2), 0)])
def test_cumprod_matches_torch(shape, dim):
    # Values near 1, so that 100 of them neither vanish nor overflow; zeros too.
    x = 1 + 0.05 * torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    x.view(-1)[7] = 0.0
    torch.testing.assert_close(_scan.cumprod(x, dim), torch.cumprod(x, dim), rtol=1e-12, atol=1e-12)


def test_dtype_and_promotion_follow_torch():
    x = torch.arange(10, dtype=torch.int32).reshape(2, 5)
    assert _scan.cumsum(x, 1).dtype == torch.cumsum(x, 1).dtype == torch.int64
    assert torch.equal(_scan.cumsum(x, 1), torch.cumsum(x, 1))
    y = torch.randn(2, 40)
    assert _scan.cumsum(y, 1, dtype=torch.float64).dtype == torch.float64
    scalar = torch.tensor(3.0)
    assert torch.equal(_scan.cumsum(scalar, 0), torch.cumsum(scalar, 0))


def test_decomposition_table_holds_the_scans():
    pytest.importorskip("torch_mlir")
    import cuda_agent
    table = cuda_agent.decomposition_table()
    assert table[torch.ops.aten.cumsum.default] is _scan.cumsum
    assert table[torch.ops.aten.cumprod.default] is _scan.cumprod


@pytest.mark.parametrize("op", [torch.cumsum, torch.cumprod])
def test_export_writes_linalg_not_tm_tensor(op):
    pytest.importorskip("torch_mlir")
    import cuda_agent
    text = cuda_agent.export(lambda x: op(x, 1), torch.randn(4, 100))
    assert "tm_tensor" not in text
    # Two levels (100 = 4 blocks of 32, padded): a masked reduction each.
    assert text.count('"reduction"]') == 2
