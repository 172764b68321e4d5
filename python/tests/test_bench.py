"""The bench's bookkeeping (KernelBench's fast_p, the table, the chart) and its
compile step; `run` needs a GPU and is exercised by scripts/python-gpu-check."""

import importlib.util
import json
import subprocess

import pytest

from cuda_agent import bench


def _rows():
    return [
        {"name": "a", "correct": True, "correct_kernelbench": True, "eager_us": 20.0,
         "compile_us": 10.0, "ours_us": 10.0, "graph_us": 5.0, "graph_correct": True,
         "regions": ["spliced"]},
        {"name": "b", "correct": False, "correct_kernelbench": True, "eager_us": 10.0,
         "compile_us": 40.0, "ours_us": 20.0, "regions": ["default", "spliced"]},
        {"name": "c", "correct": False, "correct_kernelbench": False, "eager_us": 10.0,
         "ours_us": 1.0},
        {"name": "d", "error": "RuntimeError: no plan"},
    ]


def test_fast_p_counts_correct_and_faster_over_all_modules():
    summary = bench._summarize(_rows())
    # fast_0: correct (KernelBench's tolerance) among all four; fast_1: also faster.
    assert summary["ours vs eager"]["fast_0"] == 0.5
    assert summary["ours vs eager"]["fast_1"] == 0.25          # only a: 2x; b is 0.5x
    assert summary["ours vs eager"]["geomean_speedup"] == pytest.approx(1.0)   # sqrt(2 * 0.5)
    assert summary["ours vs compile"]["fast_1"] == 0.25        # only b: 2x; a is 1.0x
    assert summary["ours vs compile"]["geomean_speedup"] == pytest.approx(2 ** 0.5)
    # The CUDA-graph replay: timed for a only (4x eager, 2x torch.compile).
    assert summary["graph vs eager"]["fast_1"] == 0.25
    assert summary["graph vs eager"]["geomean_speedup"] == pytest.approx(4.0)
    assert summary["graph vs compile"]["geomean_speedup"] == pytest.approx(2.0)


def test_markdown_and_chart(tmp_path):
    report = {"device": "test GPU", "torch": "x", "runs": 5, "rows": _rows(),
              "summary": bench._summarize(_rows())}
    text = bench._markdown(report)
    assert "| a | True / True |" in text
    assert "| 10.0 | 5.0 | 2.00x | 1.00x | 4.00x | 2.00x | 1/1 spliced |" in text
    assert "| d | error: RuntimeError: no plan |" in text
    assert "ours vs eager: fast_0 0.50, fast_1 0.25, geomean speedup 1.00x" in text
    pytest.importorskip("matplotlib")
    bench._chart(report, tmp_path / "bench.png")
    assert (tmp_path / "bench.png").stat().st_size > 1000


def test_compile_step_writes_programs_and_errors(tmp_path, empty_db):
    pytest.importorskip("torch_mlir")
    code = bench.main(["compile", str(tmp_path), "--verify", "db", "--db", str(empty_db),
                       "--only", "gelu", "--option", "fusion=nonsense"])
    assert code == 1
    assert "CompileError" in (tmp_path / "gelu" / "error.txt").read_text()
    assert bench.main(["compile", str(tmp_path), "--verify", "db", "--db", str(empty_db),
                       "--only", "gelu"]) == 0
    assert not (tmp_path / "gelu" / "error.txt").exists()
    manifest = json.loads((tmp_path / "gelu" / "cuda_agent.json").read_text())
    assert manifest["bundle"] == "program" and (tmp_path / "gelu" / "program" / "plan.json").is_file()


def test_stage_verify_stages_the_modules_named_and_the_torch_timer(repo, tool, tmp_path):
    # The verification call's stage: only the module named, its candidates as jobs, and
    # the torch timer with the models it loads (run there with TORCH_TIMES).
    stage = tmp_path / "stage"
    subprocess.run([str(repo / "scripts/python-gpu-check"), "stage-verify", "--only", "concat_branches", str(stage)], check=True, capture_output=True)
    assert [p.name for p in (stage / "compile").iterdir()] == ["concat_branches"]
    assert (stage / "compile/concat_branches/jobs/jobs.json").is_file()
    script = (stage / "run-verify.sh").read_text()
    assert "TORCH_TIMES" in script and "torch/torch_times.py" in script
    spec = importlib.util.spec_from_file_location("torch_times", stage / "torch/torch_times.py")
    torch_times = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(torch_times)
    model, inputs = torch_times.load("models").make("concat_branches")
    assert model(*inputs).shape == (32, 128)
    assert hasattr(torch_times.load("timing"), "CudaTimer")


def _candidate_counts(stage):
    return [len(list(candidates.iterdir()))
            for candidates in (stage / "compile").glob("*/jobs/*/candidates")]


def test_stage_verify_samples_sets_the_candidates_per_region(repo, tool, tmp_path):
    # softmax's region has more candidates than one: --samples 1 stages only the first,
    # the default (up to 4, the product's first turn) all of them here.
    script = str(repo / "scripts/python-gpu-check")
    one, default = tmp_path / "one", tmp_path / "default"
    subprocess.run([script, "stage-verify", "--only", "softmax", "--samples", "1", str(one)],
                   check=True, capture_output=True)
    subprocess.run([script, "stage-verify", "--only", "softmax", str(default)],
                   check=True, capture_output=True)
    assert _candidate_counts(one) and all(count == 1 for count in _candidate_counts(one))
    assert 1 < max(_candidate_counts(default)) <= 4
    bad = subprocess.run([script, "stage-verify", "--only", "softmax", "--samples", "0",
                          str(tmp_path / "bad")], capture_output=True, text=True)
    assert bad.returncode != 0 and "--samples needs a positive count" in bad.stderr
