"""export(): torch-mlir's linalg text, which our tool parses."""

import re
import subprocess

import pytest
import torch

import cuda_agent
from cuda_agent import models

pytest.importorskip("torch_mlir")


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_export_parses(name, tool, tmp_path):
    model, inputs = models.make(name)
    text = cuda_agent.export(model, *inputs)
    signature = re.search(r"func\.func @main\(([^)]*)\)", text)
    assert signature, text[:400]
    arguments = signature.group(1).count("%arg")
    # The parameters and buffers come first, then the inputs.
    assert arguments == len(cuda_agent.state_names(model)) + len(inputs)
    assert "dense_resource" not in text
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    result = subprocess.run([str(tool), str(path), "-o", "/dev/null"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_export_constants_keeps_weights_inside():
    model, inputs = models.make("linear_relu")
    text = cuda_agent.export(model, *inputs, params="constants")
    assert "dense_resource" in text
    assert re.search(r"func\.func @main\(%arg0: tensor<128x256xf32>\)", text)


def test_export_rejects_unknown_param_mode():
    model, inputs = models.make("gelu")
    with pytest.raises(ValueError, match="params must be one of"):
        cuda_agent.export(model, *inputs, params="frozen")


def test_export_error_is_clear():
    def data_dependent(x):
        if x.sum() > 0:  # control flow on a value: torch.export refuses it
            return x
        return -x

    with pytest.raises(cuda_agent.ExportError, match="torch-mlir could not import"):
        cuda_agent.export(data_dependent, models.make("gelu")[1][0])


@pytest.mark.parametrize("function,op", [
    (lambda x: torch.sort(x, 1).values, "tm_tensor.sort"),
    (lambda x: torch.zeros(8, 4).index_add(0, torch.tensor([0, 2, 5]), x), "tm_tensor.scatter"),
])
def test_export_refuses_tm_tensor_ops_by_name(function, op):
    with pytest.raises(cuda_agent.ExportError, match=op + ", which is not linalg"):
        cuda_agent.export(function, torch.randn(3, 4))


def test_export_needs_only_shapes_and_dtypes():
    # A module and inputs without data (the meta device, as CUDA ones are to
    # the importer) give the same program as on the CPU.
    model, inputs = models.make("linear_relu")
    on_cpu = cuda_agent.export(model, *inputs)
    on_meta = cuda_agent.export(model.to("meta"), *[i.to("meta") for i in inputs])
    assert on_meta == on_cpu


def test_export_names_the_state_a_module_updates():
    # Training mode: torch.export returns the new running statistics (and the
    # batch count) before the forward's result; export_program says whose.
    model, inputs = models.make("batch_norm_train")
    exported = cuda_agent.export_program(model, *inputs)
    assert exported.updates == ((0, "norm.running_mean"), (1, "norm.running_var"),
                                (2, "norm.num_batches_tracked"))
    signature = next(line for line in exported.text.splitlines() if "func.func @main" in line)
    assert signature.count("tensor<16xf32>") == 4 + 2  # 4 state inputs, 2 updates
    assert "-> (tensor<16xf32>, tensor<16xf32>, tensor<i64>, tensor<8x16x32x32xf32>)" in signature
    constants = cuda_agent.export_program(model, *inputs, params="constants")
    assert [name for _, name in constants.updates] == [name for _, name in exported.updates]
    # An eval-mode BatchNorm updates nothing.
    frozen = torch.nn.BatchNorm2d(16).eval()
    assert cuda_agent.export_program(frozen, *inputs).updates == ()


def test_export_names_arguments_written_in_place():
    def scale_in_place(x):
        x.mul_(2.0)
        return x + 1.0

    exported = cuda_agent.export_program(scale_in_place, torch.zeros(4, 4))
    assert exported.updates == () and exported.argument_updates == ((0, 0),)
