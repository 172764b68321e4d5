"""compile(): --agent-lower with a whole-program bundle, and the callable's checks."""

import json

import pytest
import torch

import cuda_agent
from cuda_agent import models

pytest.importorskip("torch_mlir")


@pytest.fixture(scope="module")
def mlp(empty_db, tmp_path_factory):
    model, inputs = models.make("mlp_block")
    work = tmp_path_factory.mktemp("mlp")
    program = cuda_agent.compile(model, *inputs, verify="db", db=str(empty_db),
                                 work_dir=work, quiet=True)
    return model, inputs, program


def test_compile_writes_a_whole_program_bundle(mlp):
    model, inputs, program = mlp
    plan = json.loads((program.bundle / "plan.json").read_text())
    kernels = [step for step in plan["launches"] if "kernel" in step]
    assert kernels and all((program.bundle / k["object"]).is_file() for k in kernels)
    assert program.inputs == [(torch.float32, (256, 512))]
    assert program.outputs == [(torch.float32, (256, 512))]
    assert program.state_names == cuda_agent.state_names(model)
    # The JSON report: one entry per region, none spliced from an empty database.
    regions = program.report["regions"]
    assert [r["kind"] for r in regions] == ["reduction", "contraction", "contraction"]
    assert {r["decision"] for r in regions} == {"default"}
    assert "agent-generate: [3/3]" in program.log


def test_load_gives_the_same_program(mlp):
    model, _, program = mlp
    again = cuda_agent.load(program.directory, module=model)
    assert again.inputs == program.inputs and again.bundle == program.bundle


def test_wrong_arguments_get_clear_errors(mlp):
    _, inputs, program = mlp
    with pytest.raises(TypeError, match=r"takes 1 tensor argument\(s\), 2 given"):
        program(inputs[0], inputs[0])
    with pytest.raises(TypeError, match=r"argument 0: expected float32\[256, 512\], "
                                        r"got float16\[256, 512\]"):
        program(inputs[0].half())
    with pytest.raises(TypeError, match=r"expected float32\[256, 512\], got float32\[8, 512\]"):
        program(torch.zeros(8, 512))
    with pytest.raises(TypeError, match="expected a tensor"):
        program([1.0])
    with pytest.raises(ValueError, match="must be on one CUDA device"):
        program(inputs[0])


def test_parameters_are_checked_too(mlp):
    model, inputs, program = mlp
    other = models.MLPBlock(width=512, hidden=1024)
    again = cuda_agent.load(program.directory, module=other)
    with pytest.raises(TypeError, match=r"parameter 'up.weight': expected float32\[2048, 512\]"):
        again(inputs[0])
    with pytest.raises(TypeError, match="load it with module="):
        cuda_agent.load(program.directory)(inputs[0])


def test_split_mode_writes_jobs_and_the_bundle(tmp_path):
    model, inputs = models.make("linear_relu")
    program = cuda_agent.compile(model, *inputs, agent="builtin", verify="bundle",
                                 db="none", samples=2, work_dir=tmp_path, quiet=True)
    jobs = json.loads((tmp_path / "jobs" / "jobs.json").read_text())
    assert len(jobs["jobs"]) == 1
    assert program.report["jobs"] == str(tmp_path / "jobs")
    assert "verification deferred: 2 candidate(s)" in program.report["regions"][0]["reason"]
    assert (program.bundle / "plan.json").is_file()


def test_batch_norm_statistics_get_row_kernels(tmp_path):
    # Training-mode batch norm reduces over n, h and w around the channels:
    # strided rows, one candidate per row kernel, the f64 variance included.
    model, inputs = models.make("batch_norm_train")
    program = cuda_agent.compile(model, *inputs, agent="builtin", verify="bundle",
                                 db="none", samples=4, work_dir=tmp_path, quiet=True)
    # The counter num_batches_tracked + 1 (i64) is a region of its own.
    kinds = sorted(r["kind"] for r in program.report["regions"])
    assert kinds == ["elementwise", "reduction"]
    [region] = [r for r in program.report["regions"] if r["kind"] == "reduction"]
    assert "verification deferred: 4 candidate(s)" in region["reason"]
    jobs = json.loads((tmp_path / "jobs" / "jobs.json").read_text())
    [job] = [j for j in jobs["jobs"] if j["kind"] == "reduction"]
    names = [c["name"] for c in job["candidates"]]
    assert names and all(name.startswith("rows-") for name in names)


def test_concatenation_is_one_region(tmp_path):
    # torch.cat of two branches: one region computes both parts and holds the
    # concatenation (no copy kernel between regions), its flat kernels branch
    # on the part.
    model, inputs = models.make("concat_branches")
    program = cuda_agent.compile(model, *inputs, agent="builtin", verify="bundle",
                                 db="none", work_dir=tmp_path, quiet=True)
    [region] = program.report["regions"]
    assert region["kind"] == "elementwise"
    jobs = json.loads((tmp_path / "jobs" / "jobs.json").read_text())
    names = [c["name"] for c in jobs["jobs"][0]["candidates"]]
    assert names and all(name.startswith("flat-") for name in names)


def test_compile_mlir_splices_the_example_kernels(repo, example_db, tmp_path):
    program = cuda_agent.compile_mlir(repo / "examples/transformer_mlp_block.mlir",
                                      verify="db", db=str(example_db),
                                      work_dir=tmp_path, quiet=True)
    assert [r["decision"] for r in program.report["regions"]] == ["spliced"] * 4
    assert len(program.inputs) == 8 and len(program.outputs) == 2


def test_compiler_errors_carry_the_log(tmp_path):
    with pytest.raises(cuda_agent.CompileError, match="failed") as info:
        cuda_agent.compile_mlir("func.func @f( {", work_dir=tmp_path, quiet=True)
    assert "error" in info.value.log


def test_options_are_spelled_as_the_tool_spells_them():
    from cuda_agent._tools import format_options
    assert format_options({"replay_dir": "k", "min_speedup": 1.1, "lower": False,
                           "db": None}) == "replay-dir=k min-speedup=1.1 lower=false"
    with pytest.raises(ValueError, match="spaces"):
        format_options({"db": "a b"})


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_every_module_compiles_to_a_whole_program(name, empty_db, tmp_path):
    model, inputs = models.make(name)
    program = cuda_agent.compile(model, *inputs, verify="db", db=str(empty_db),
                                 work_dir=tmp_path, quiet=True)
    assert program.inputs == [(i.dtype, tuple(i.shape)) for i in inputs]
    with torch.no_grad():
        expected = model(*inputs)
    assert program.outputs == [(expected.dtype, tuple(expected.shape))]
    assert program.report["regions"], "nothing was outlined"


def test_params_constants_freezes_the_weights_into_constant_buffers(empty_db, tmp_path):
    model, inputs = models.make("linear_relu")
    program = cuda_agent.compile(model, *inputs, params="constants", verify="db",
                                 db=str(empty_db), work_dir=tmp_path, quiet=True)
    assert program.state_names == [] and program.inputs == [(torch.float32, (128, 256))]
    constants = program.constants
    assert sorted(shape for _, _, shape in constants) == [(512,), (512, 256)]
    # The bytes the runtime uploads are the module's weights.
    by_shape = {tuple(t.shape): t for t in model.state_dict().values()}
    for index in program._constant_indices:
        buffer = program._buffers[index]
        data = bytearray(program._program.constant_data(index))
        value = torch.frombuffer(data, dtype=torch.uint8).view(buffer.dtype).view(buffer.shape)
        assert torch.equal(value, by_shape[buffer.shape])
    with pytest.raises(IndexError):
        program._program.constant_data(program._input_indices[0])


def test_training_updates_are_not_outputs(empty_db, tmp_path):
    model, inputs = models.make("batch_norm_train")
    program = cuda_agent.compile(model, *inputs, verify="db", db=str(empty_db),
                                 work_dir=tmp_path, quiet=True)
    assert program.outputs == [(torch.float32, (8, 16, 32, 32))]
    assert program.updates == [("norm.running_mean", torch.float32, (16,)),
                               ("norm.running_var", torch.float32, (16,)),
                               ("norm.num_batches_tracked", torch.int64, ())]
    manifest = json.loads((tmp_path / "cuda_agent.json").read_text())
    assert manifest["updates"] == [[0, "norm.running_mean"], [1, "norm.running_var"],
                                   [2, "norm.num_batches_tracked"]]
    plan = json.loads((program.bundle / "plan.json").read_text())
    assert [b["name"] for b in plan["buffers"] if b["role"] == "output"] == \
        ["out0", "out1", "out2", "out3"]
    again = cuda_agent.load(tmp_path, module=model)
    assert again.updates == program.updates and again.outputs == program.outputs
    # A module without the updated buffer is refused when the program is bound.
    with pytest.raises(ValueError, match="lacks the compiled state"):
        cuda_agent.load(tmp_path, module=torch.nn.Linear(4, 4))
