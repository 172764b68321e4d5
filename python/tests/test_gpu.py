"""On a CUDA device: compiled programs against eager PyTorch.

Where torch-mlir and the tool are present (the build machine with a GPU) the
modules are compiled here; elsewhere ``CUDA_AGENT_PROGRAMS`` names a
directory of programs compiled earlier (``<name>/`` as compile() writes it,
the GPU machine's case) and they are loaded.
"""

import os
from pathlib import Path

import pytest
import torch

import cuda_agent
from cuda_agent import models

pytestmark = pytest.mark.gpu


def _program(name, model, inputs, tmp_path):
    staged = os.environ.get("CUDA_AGENT_PROGRAMS")
    if staged:
        directory = Path(staged) / name
        if not directory.is_dir():
            pytest.skip(f"{name} was not staged")
        return cuda_agent.load(directory, module=model)
    pytest.importorskip("torch_mlir")
    return cuda_agent.compile(model, *inputs, work_dir=tmp_path,
                              quiet=True)


def _assert_matches_eager(result, expected, model, inputs):
    """``result`` within 1e-4 of eager PyTorch's ``expected`` (1e-2 at f16);
    failing that, no less precise than eager against float64, within the
    verifier's factor of 8: a long scan in f32 (cumsum over 32768 elements)
    differs from eager's by more than 1e-4 near its zeros, each rounded its own
    way."""
    tolerance = 1e-2 if expected.dtype == torch.float16 else 1e-4
    if torch.allclose(result, expected, rtol=tolerance, atol=tolerance):
        return
    import copy
    with torch.no_grad():
        exact = copy.deepcopy(model).double()(*[x.double() for x in inputs])
    ours = (result.double() - exact).abs().max().item()
    eager = (expected.double() - exact).abs().max().item()
    assert ours <= 8 * eager + 1e-6, (
        f"max error against float64 {ours:.3g}, eager PyTorch's {eager:.3g}")


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_program_matches_eager(name, tmp_path):
    model, inputs = models.make(name, device="cuda")
    program = _program(name, model, inputs, tmp_path)
    with torch.no_grad():
        expected = model(*inputs)
        result = program(*inputs)
    _assert_matches_eager(result, expected, model, inputs)
    # Runs on torch's current stream: a side stream works and orders itself.
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        again = program(*inputs)
    torch.cuda.current_stream().wait_stream(stream)
    _assert_matches_eager(again, expected, model, inputs)


def test_backend_runs_compiled_graphs(empty_db, tmp_path):
    # Needs the compiler here too (a GPU machine with MLIR and torch-mlir).
    pytest.importorskip("torch_mlir")
    model, inputs = models.make("mlp_block", device="cuda")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="cuda_agent", dynamic=False,
                             options={"verify": "db", "db": str(empty_db),
                                      "work_dir": str(tmp_path), "quiet": True})
    result, expected = _run_without_fallback(compiled, model, inputs)
    torch.testing.assert_close(result, expected, rtol=1e-4, atol=1e-4)
    assert list(tmp_path.glob("graph*/program/plan.json"))


def _run_without_fallback(compiled, model, inputs):
    """The compiled model's result and eager PyTorch's on ``inputs``. A graph
    that falls back fails the test, unless the backend says the cache was
    staged under another torch (dynamo's graphs of a model differ across
    versions): that skips it."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", cuda_agent.FallbackWarning)
        with torch.no_grad():
            try:
                result = compiled(*inputs)
            except cuda_agent.FallbackWarning as fallback:
                if "staged under torch" in str(fallback):
                    pytest.skip(str(fallback))
                raise
            return result, model(*inputs)


def _staged_backend():
    """The backend cache staged with the programs (``bench compile
    --backend-cache``) and the modules staged into it, or None."""
    staged = os.environ.get("CUDA_AGENT_PROGRAMS")
    cache = Path(staged) / "_backend" if staged else None
    if cache is None or not (cache / "models.json").is_file():
        return None
    import json
    return cache, json.loads((cache / "models.json").read_text())


@pytest.mark.parametrize("name", sorted(models.MODELS) + sorted(models.LARGE))
def test_backend_runs_staged_graphs(name):
    """torch.compile(backend="cuda_agent") on the GPU machine, where there is
    no compiler: every graph dynamo captures runs a program staged on the
    build machine, none falls back, and the results are eager PyTorch's."""
    from cuda_agent import backend
    staged = _staged_backend()
    if staged is None or name not in staged[1]:
        pytest.skip(f"{name} was not staged for the backend")
    cache, _ = staged
    model, inputs = models.make(name, device="cuda")
    torch._dynamo.reset()
    backend.cache_clear()
    compiled = torch.compile(model, backend="cuda_agent", dynamic=False,
                             options={"cache_dir": str(cache)})
    result, expected = _run_without_fallback(compiled, model, inputs)
    _assert_matches_eager(result, expected, model, inputs)
    assert backend.cache_info()["hits"] >= 1 and backend.cache_info()["misses"] == 0


def _constant_program(name, model, inputs, tmp_path):
    """``name`` compiled with params="constants" (the weights inside the
    bundle as constant buffers): staged with the state it froze, or compiled here."""
    staged = os.environ.get("CUDA_AGENT_PROGRAMS")
    if staged:
        directory = Path(staged) / "_constants" / name
        if not directory.is_dir():
            pytest.skip(f"{name} was not staged with params=constants")
        model.load_state_dict(torch.load(directory / "state.pt"))
        return cuda_agent.load(directory)
    pytest.importorskip("torch_mlir")
    return cuda_agent.compile(model, *inputs, params="constants", work_dir=tmp_path,
                              quiet=True)


@pytest.mark.parametrize("name", ["linear_relu", "gemm_relu_sum"])
def test_constant_buffers_are_uploaded(name, tmp_path):
    model, inputs = models.make(name, device="cuda")
    program = _constant_program(name, model, inputs, tmp_path)
    assert program.constants and not program.state_names
    with torch.no_grad():
        expected = model(*inputs)
        first = program(*inputs)
        second = program(*inputs)  # the constants were uploaded once
    torch.testing.assert_close(first, expected, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(second, expected, rtol=1e-4, atol=1e-4)
    assert list(program._device_state) == [inputs[0].device]
    # What went up is the bundle's data, bit for bit.
    for index, tensor in zip((i for i in program._constant_indices
                              if program._buffers[i].bytes),
                             program._device_state[inputs[0].device][1]):
        assert tensor.cpu().view(torch.uint8).flatten().numpy().tobytes() == \
            program._program.constant_data(index)


@pytest.mark.parametrize("name", ["mlp_block", "softmax"])
def test_cuda_graph_replays_match_eager(name, tmp_path):
    model, inputs = models.make(name, device="cuda")
    program = _program(name, model, inputs, tmp_path)
    program.cuda_graph = True
    with torch.no_grad():
        expected = model(*inputs)
        results = [program(*inputs).clone() for _ in range(3)]  # launch, capture, replay
        assert len(program._graphs) == 1
        for result in results:
            torch.testing.assert_close(result, expected, rtol=1e-4, atol=1e-4)
        # New values at the same addresses: the replay reads them.
        inputs[0].mul_(0.5)
        torch.testing.assert_close(program(*inputs), model(*inputs), rtol=1e-4, atol=1e-4)
        # Other addresses: a plain launch first, then a graph of their own.
        other = [i.clone() for i in inputs]
        for _ in range(2):
            torch.testing.assert_close(program(*other), model(*other), rtol=1e-4, atol=1e-4)
        assert len(program._graphs) == 2


def test_training_updates_match_eager(tmp_path):
    """A module that updates its buffers (BatchNorm in training mode): the
    program returns the forward's result alone and writes the running
    statistics into the module, as the module itself does."""
    import copy
    model, inputs = models.make("batch_norm_train", device="cuda")
    eager = copy.deepcopy(model)
    program = _program("batch_norm_train", model, inputs, tmp_path)
    assert [name for name, _, _ in program.updates] == [
        "norm.running_mean", "norm.running_var", "norm.num_batches_tracked"]
    with torch.no_grad():
        for step in range(2):
            expected = eager(*inputs)
            result = program(*inputs)
            torch.testing.assert_close(result, expected, rtol=1e-4, atol=1e-4)
            for name, value in eager.norm.named_buffers():
                torch.testing.assert_close(getattr(model.norm, name), value,
                                           rtol=1e-5, atol=1e-6)
            inputs[0].mul_(1.5)
    assert int(model.norm.num_batches_tracked) == 2
