"""torch.compile(backend="cuda_agent"): what it cannot compile runs eagerly."""

import re
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


def _programs(cache):
    """The program directories of a backend cache (not its graph index)."""
    from cuda_agent import backend
    return [p for p in cache.iterdir() if p.name != backend.GRAPH_INDEX]


def test_the_cache_on_disk_outlives_the_process_cache(empty_db, tmp_path):
    pytest.importorskip("torch_mlir")
    from cuda_agent import backend

    backend.cache_clear()
    options = {"verify": "db", "db": str(empty_db), "quiet": True,
               "cache_dir": str(tmp_path / "cache")}
    gelu = torch.fx.symbolic_trace(models.Gelu())
    first = cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options))
    (entry,) = _programs(tmp_path / "cache")
    assert first.program.directory == entry and len(entry.name) == 64
    backend.cache_clear()  # as a new process would start
    second = cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options))
    assert backend.cache_info()["hits"] == 1 and backend.cache_info()["misses"] == 0
    assert second.program.directory == entry
    # Other options make another key.
    cuda_agent_backend(gelu, [_fake_cuda(4, 8)], options=dict(options, min_speedup=2.0))
    assert backend.cache_info()["misses"] == 1
    assert len(_programs(tmp_path / "cache")) == 2


def _dynamo_graph(model, *inputs):
    """The FX graph dynamo hands a backend for ``model(*inputs)``, and the
    shapes of its example inputs (the module's parameters among them)."""
    graphs = []

    def capture(gm, example_inputs):
        graphs.append((gm, [tuple(e.shape) for e in example_inputs]))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(model, backend=capture, dynamic=False)(*inputs)
    torch._dynamo.reset()
    (graph,) = graphs
    return graph


def test_graph_key_is_the_graph_and_the_signature():
    from cuda_agent.backend import graph_key

    model, inputs = models.make("linear_relu")
    gm, shapes = _dynamo_graph(model, *inputs)
    signature = [torch.empty(shape) for shape in shapes]
    # Another capture of another instance: the same key (values' names and the
    # weights' contents are not in it).
    other, _ = models.make("linear_relu", seed=1)
    assert graph_key(_dynamo_graph(other, *inputs)[0], signature) == graph_key(gm, signature)
    # Another shape, another op: other keys.
    wider = signature[:-1] + [torch.empty(3, *inputs[0].shape[1:])]
    assert graph_key(gm, wider) != graph_key(gm, signature)
    x = torch.randn(64, 1024)
    gelu, softmax = models.make("gelu")[0], models.make("softmax")[0]
    assert graph_key(_dynamo_graph(gelu, x)[0], [x]) != \
        graph_key(_dynamo_graph(softmax, x)[0], [x])


def test_staged_graphs_run_where_nothing_can_compile(empty_db, tmp_path, monkeypatch):
    """backend.stage on the build machine; the backend on a machine with
    neither the compiler nor torch-mlir (the GPU machine) finds the programs."""
    pytest.importorskip("torch_mlir")
    from cuda_agent import _export, _tools, backend

    model, inputs = models.make("linear_relu")
    cache = tmp_path / "cache"
    with torch.no_grad():
        keys = backend.stage(model, *inputs, cache_dir=cache, verify="db", db=str(empty_db),
                             quiet=True)
    assert len(keys) == 1 and (cache / backend.GRAPH_INDEX / f"{keys[0]}.json").is_file()

    def absent(*_args, **_kwargs):
        raise _tools.CompileError("no cuda-agent-opt on this machine")

    def no_torch_mlir():
        raise _export.ExportError("no torch-mlir on this machine")

    monkeypatch.setattr(_tools, "find_tool", absent)
    monkeypatch.setattr(_export, "_import_torch_mlir", no_torch_mlir)
    backend.cache_clear()
    gm, shapes = _dynamo_graph(model, *inputs)
    run = cuda_agent_backend(gm, [_fake_cuda(*shape) for shape in shapes],
                             options={"cache_dir": str(cache)})
    assert run != gm.forward
    assert backend.cache_info()["hits"] == 1 and backend.cache_info()["misses"] == 0
    assert run.program.directory.parent == cache
    # A graph nobody staged falls back, and says why.
    unstaged = [_fake_cuda(*shape) for shape in shapes[:-1]] + \
        [_fake_cuda(3, *inputs[0].shape[1:])]
    with pytest.warns(cuda_agent.FallbackWarning, match="no program staged for this graph") \
            as caught:
        cuda_agent_backend(gm, unstaged, options={"cache_dir": str(cache)})
    assert "staged under torch" not in str(caught[0].message)
    # Under another torch, the staged graph is still found; a miss names the
    # torch that staged the cache (dynamo's graphs differ across versions).
    staged_under = str(torch.__version__)
    monkeypatch.setattr(torch, "__version__", "0.0.0+other")
    backend.cache_clear()
    assert cuda_agent_backend(gm, [_fake_cuda(*shape) for shape in shapes],
                              options={"cache_dir": str(cache)}) != gm.forward
    with pytest.warns(cuda_agent.FallbackWarning,
                      match=f"staged under torch {re.escape(staged_under)} and this is "
                            r"0\.0\.0\+other"):
        cuda_agent_backend(gm, unstaged, options={"cache_dir": str(cache)})
