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


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_program_matches_eager(name, tmp_path):
    model, inputs = models.make(name, device="cuda")
    program = _program(name, model, inputs, tmp_path)
    with torch.no_grad():
        expected = model(*inputs)
        result = program(*inputs)
    tolerance = 1e-2 if expected.dtype == torch.float16 else 1e-4
    torch.testing.assert_close(result, expected, rtol=tolerance, atol=tolerance)
    # Runs on torch's current stream: a side stream works and orders itself.
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        again = program(*inputs)
    torch.cuda.current_stream().wait_stream(stream)
    torch.testing.assert_close(again, expected, rtol=tolerance, atol=tolerance)


def test_backend_runs_compiled_graphs(empty_db, tmp_path):
    # Needs the compiler here too (a GPU machine with MLIR and torch-mlir).
    pytest.importorskip("torch_mlir")
    model, inputs = models.make("mlp_block", device="cuda")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="cuda_agent", dynamic=False,
                             options={"verify": "db", "db": str(empty_db),
                                      "work_dir": str(tmp_path), "quiet": True})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", cuda_agent.FallbackWarning)
        with torch.no_grad():
            result = compiled(*inputs)
            expected = model(*inputs)
    torch.testing.assert_close(result, expected, rtol=1e-4, atol=1e-4)
    assert list(tmp_path.glob("graph*/program/plan.json"))
