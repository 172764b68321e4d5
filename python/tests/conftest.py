"""Shared fixtures: the tool, an empty kernel database, the repository root.

Tests run on a machine without a GPU (CI); the ones marked ``gpu`` need
CUDA and are skipped elsewhere. The package must be installed
(``pip install ./python``): the runtime is its native extension.
"""

import subprocess
from pathlib import Path

import pytest
import torch

import cuda_agent

REPO = Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")
    # Eager PyTorch is the tests' f32 reference: cuDNN's convolutions in f32,
    # not in TF32 (its default), as for matmuls (torch's default) and the bench.
    torch.backends.cudnn.allow_tf32 = False


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def tool() -> Path:
    """cuda-agent-opt; the tests that compile are skipped on a machine without
    it (the GPU machine runs programs compiled elsewhere)."""
    try:
        return cuda_agent.find_tool()
    except cuda_agent.CompileError as error:
        pytest.skip(str(error).split(";")[0])


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def empty_db(tool, tmp_path_factory) -> Path:
    """A kernel database with nothing in it: verify=db splices nothing."""
    db = tmp_path_factory.mktemp("db") / "empty.db"
    subprocess.run([str(tool.parent / "cuda-agent-db"), "--db", str(db), "import",
                    str(REPO / "test/Programs/Inputs/empty.kernels.json")],
                   check=True, capture_output=True)
    return db


@pytest.fixture(scope="session")
def example_db(tool, tmp_path_factory) -> Path:
    """The bundled example's verified kernels (the README's first command)."""
    db = tmp_path_factory.mktemp("db") / "example.db"
    subprocess.run([str(tool.parent / "cuda-agent-db"), "--db", str(db), "import",
                    str(REPO / "examples/transformer_mlp_block.kernels.json")],
                   check=True, capture_output=True)
    return db
