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


def _fake_cuda(*shape):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        return torch.empty(*shape, device="cuda")


def test_a_graph_seen_again_is_not_compiled_again(empty_db, tmp_path):
    pytest.importorskip("torch_mlir")
    from cuda_agent import backend

    backend.cache_clear()
    options = {"verify": "db", "db": str(empty_db), "quiet": True, "work_dir": str(tmp_path)}
    example = _fake_cuda(128, 256)
    first = cuda_agent_backend(torch.fx.symbolic_trace(models.LinearRelu()), [example],
                               options=dict(options))
    assert backend.cache_info() == {"hits": 0, "misses": 1, "entries": 1}
    # Another instance of the model (new weights, same graph): the cached bundle, bound
    # to the new graph's parameters; cuda-agent-opt did not run again.
    model = models.LinearRelu()
    second = cuda_agent_backend(torch.fx.symbolic_trace(model), [example],
                                options=dict(options))
    assert backend.cache_info() == {"hits": 1, "misses": 1, "entries": 1}
    assert second.program.bundle == first.program.bundle
    assert second.program._module is not first.program._module
    assert second.program._state()[0] is model.linear.weight
    assert len(list(tmp_path.glob("graph*"))) == 1
    # Another shape is another program.
    third = cuda_agent_backend(torch.fx.symbolic_trace(models.LinearRelu()),
                               [_fake_cuda(64, 256)], options=dict(options))
    assert backend.cache_info() == {"hits": 1, "misses": 2, "entries": 2}
    assert third.program.inputs == [(torch.float32, (64, 256))]


def test_the_cache_on_disk_outlives_the_process_cache(empty_db, tmp_path):
    pytest.importorskip("torch_mlir")
    from cuda_agent import backend

    backend.cache_clear()
    options = {"verify": "db", "db": str(empty_db), "quiet": True,
               "cache_dir": str(tmp_path / "cache")}
    gelu = torch.fx.symbolic_trace(models.Gelu())
    first = cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options))
    (entry,) = (tmp_path / "cache").iterdir()
    assert first.program.directory == entry and len(entry.name) == 64
    backend.cache_clear()  # as a new process would start
    second = cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options))
    assert backend.cache_info()["hits"] == 1 and backend.cache_info()["misses"] == 0
    assert second.program.directory == entry
    # Other options make another key.
    cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options, min_speedup=2.0))
    assert backend.cache_info()["misses"] == 1
    assert len(list((tmp_path / "cache").iterdir())) == 2
