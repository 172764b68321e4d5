"""Group norm as one row region (_norms.py): equal to torch's group norm in
float64, with and without the affine, for 16-bit inputs too; and what export
writes for it: no float64 statistics, no per-channel gathers, and one region."""

import subprocess

import pytest
import torch
import torch.nn.functional as F

from cuda_agent import _norms


@pytest.mark.parametrize("shape,groups,affine", [
    ((2, 16, 8, 8), 4, True), ((3, 6, 5), 3, True), ((2, 8, 4, 4, 4), 2, False),
    ((4, 12, 7, 3), 12, True), ((1, 10, 9, 9), 1, True),
])
def test_group_norm_matches_torch(shape, groups, affine):
    gen = torch.Generator().manual_seed(0)
    x = 3 + torch.randn(shape, dtype=torch.float64, generator=gen)
    c = shape[1]
    weight = torch.randn(c, dtype=torch.float64, generator=gen) if affine else None
    bias = torch.randn(c, dtype=torch.float64, generator=gen) if affine else None
    hw = x[0, 0].numel()
    y, mean, rstd = _norms.native_group_norm(x, weight, bias, shape[0], c, hw, groups, 1e-5)
    want, want_mean, want_rstd = torch.ops.aten.native_group_norm(
        x, weight, bias, shape[0], c, hw, groups, 1e-5)
    torch.testing.assert_close(y, want, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(mean, want_mean, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(rstd, want_rstd, rtol=1e-12, atol=1e-12)


def test_group_norm_of_half_inputs_keeps_float32_statistics():
    x = torch.randn(2, 8, 4, 4).half()
    y, mean, rstd = _norms.native_group_norm(x, None, None, 2, 8, 16, 2, 1e-5)
    assert y.dtype == torch.float16 and mean.dtype == rstd.dtype == torch.float32
    torch.testing.assert_close(y, F.group_norm(x.float(), 2).half(), rtol=1e-3, atol=1e-3)


def test_decomposition_table_holds_group_norm():
    pytest.importorskip("torch_mlir")
    import cuda_agent
    table = cuda_agent.decomposition_table()
    assert table[torch.ops.aten.native_group_norm.default] is _norms.native_group_norm


def test_export_writes_group_norm_as_one_row_region(tool, tmp_path):
    pytest.importorskip("torch_mlir")
    import cuda_agent
    from cuda_agent import models
    model, inputs = models.make("group_norm")
    text = cuda_agent.export(model, *inputs)
    # torch's own decomposition computes in f64 and gathers through i64 indices
    # (the eps stays an f64 scalar constant, truncated).
    assert "xf64>" not in text and "xi64>" not in text and "tensor.extract " not in text
    path = tmp_path / "group_norm.mlir"
    path.write_text(text)
    outlined = subprocess.run([str(tool), str(path), "--agent-outline"],
                              capture_output=True, text=True, check=True).stdout
    assert outlined.count("cuda_agent.region = ") == 1
    assert 'kind = "reduction"' in outlined
