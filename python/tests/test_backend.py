"""torch.compile(backend="cuda_agent"): what it cannot compile runs eagerly."""

import warnings

import pytest
import torch

import cuda_agent
from cuda_agent import models
from cuda_agent.backend import cuda_agent_backend


def _compiled(model):
    torch._dynamo.reset()
    return torch.compile(model, backend="cuda_agent", dynamic=False)


def test_backend_is_registered():
    from torch._dynamo.backends.registry import lookup_backend
    assert lookup_backend("cuda_agent") is cuda_agent_backend


def test_cpu_graphs_fall_back_with_a_warning():
    model, inputs = models.make("linear_relu")
    with pytest.warns(cuda_agent.FallbackWarning, match="not CUDA"):
        result = _compiled(model)(*inputs)
    torch.testing.assert_close(result, model(*inputs))


def test_graph_breaks_fall_back_per_graph():
    class Broken(torch.nn.Module):
        def forward(self, x):
            y = torch.relu(x)
            torch._dynamo.graph_break()
            return y * 2

    x = torch.randn(4, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _compiled(Broken())(x)
    torch.testing.assert_close(result, torch.relu(x) * 2)
    fallbacks = [w for w in caught if issubclass(w.category, cuda_agent.FallbackWarning)]
    assert len(fallbacks) == 2  # one per graph


def test_a_graph_the_compiler_refuses_falls_back(tmp_path):
    from torch._subclasses.fake_tensor import FakeTensorMode

    pytest.importorskip("torch_mlir")

    gm = torch.fx.symbolic_trace(models.Gelu())
    with FakeTensorMode():
        example = torch.empty(4, 8, device="cuda")
    with pytest.warns(cuda_agent.FallbackWarning, match="CompileError"):
        run = cuda_agent_backend(gm, [example],
                                 options={"fusion": "no-such-fusion", "quiet": True,
                                          "work_dir": str(tmp_path)})
    assert run == gm.forward


def test_dynamic_shapes_fall_back():
    x = torch.randn(4, 8)
    torch._dynamo.reset()
    compiled = torch.compile(models.Gelu(), backend="cuda_agent", dynamic=True)
    with pytest.warns(cuda_agent.FallbackWarning):
        torch.testing.assert_close(compiled(x), torch.nn.functional.gelu(x))
