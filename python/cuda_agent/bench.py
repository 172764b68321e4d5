"""A KernelBench-style bench: ``python -m cuda_agent.bench``.

Two steps, so that compiling (MLIR, torch-mlir: the build machine) and
running (a GPU: the runtime alone) can happen on different machines:

    python -m cuda_agent.bench compile DIR [--agent builtin --verify db --db K.db ...]
    python -m cuda_agent.bench run DIR [--out RESULTS] [--runs 100]

``compile`` writes ``DIR/<name>/`` for every module of ``cuda_agent.models``
(and the bundled MLIR example with ``--example``). ``run`` checks each
program against eager PyTorch on fresh inputs (KernelBench's tolerance,
atol = rtol = 1e-2, and ours, 1e-4 for f32), times eager PyTorch,
``torch.compile`` and the program in one process with CUDA events and an L2
flush before every run, and prints fast_0 / fast_1 (the share of modules that
are correct, and correct and faster) against eager and against
``torch.compile`` with the geometric mean of the speedups; it writes
``RESULTS/bench.json``, ``bench.md`` and ``bench.png`` (with matplotlib).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import torch

from . import models
from .timing import CudaTimer

KERNELBENCH_TOLERANCE = 1e-2
OUR_TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}
EXAMPLE = "examples/transformer_mlp_block.mlir"


def example_reference(x, gamma, beta, w1, b1, w2, b2, scores):
    """examples/transformer_mlp_block.mlir in PyTorch (tanh GELU)."""
    h = torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=1e-5)
    g = torch.nn.functional.gelu(h @ w1 + b1, approximate="tanh")
    return x + (g @ w2 + b2), torch.softmax(scores, dim=-1)


def example_inputs(device, seed=0):
    generator = torch.Generator(device="cpu").manual_seed(seed)
    shapes = [(256, 512), (512,), (512,), (512, 2048), (2048,), (2048, 512), (512,),
              (256, 256)]
    scale = [1, 1, 1, 512 ** -0.5, 1, 2048 ** -0.5, 1, 1]
    return [(torch.randn(s, generator=generator) * k).to(device)
            for s, k in zip(shapes, scale)]


def _names(which: str) -> List[str]:
    """The modules of a set: ``small`` (models.MODELS, CI's sizes), ``large``
    (models.LARGE, KernelBench's sizes) or ``all``."""
    small, large = sorted(models.MODELS), sorted(models.LARGE)
    return {"small": small, "large": large, "all": small + large}[which]


def _compile(args) -> int:
    from . import _program

    out = Path(args.dir)
    options = {k: v for k, v in (("agent", args.agent), ("verify", args.verify),
                                 ("db", args.db)) if v}
    for extra in args.option or []:
        key, _, value = extra.partition("=")
        options[key] = value
    failures = 0
    names = _names(args.set) if args.only is None else \
        [n for n in args.only if n != "none"]
    for name in names:
        model, inputs = models.make(name)
        print(f"bench: compiling {name}", file=sys.stderr)
        (out / name / "error.txt").unlink(missing_ok=True)
        try:
            _program.compile(model, *inputs, work_dir=out / name, quiet=True, **options)
            if args.backend_cache:
                _stage_backend(name, model, inputs, Path(args.backend_cache), options)
        except Exception as error:  # one module's failure is its row, not the run's
            failures += 1
            (out / name).mkdir(parents=True, exist_ok=True)
            (out / name / "error.txt").write_text(f"{type(error).__name__}: {error}\n")
            print(f"bench: {name}: {type(error).__name__}: {str(error)[:300]}",
                  file=sys.stderr)
    if args.example:
        _program.compile_mlir(Path(args.example_file), work_dir=out / args.example,
                              quiet=True, **options)
    return 1 if failures else 0


#: The file of a backend cache that says which modules were staged into it.
STAGED_MODELS = "models.json"


def _stage_backend(name: str, model, inputs, cache_dir: Path, options: Dict) -> None:
    """Stages the graphs dynamo captures from ``model`` into the backend's
    cache ``cache_dir`` and records their keys under ``name``."""
    from . import backend
    with torch.no_grad():
        keys = backend.stage(model, *inputs, cache_dir=cache_dir, quiet=True, **options)
    listing = cache_dir / STAGED_MODELS
    staged = json.loads(listing.read_text()) if listing.is_file() else {}
    staged[name] = keys
    listing.write_text(json.dumps(staged, indent=1, sort_keys=True) + "\n")


def _close(result, expected, tolerance) -> bool:
    results = result if isinstance(result, (tuple, list)) else (result,)
    wanted = expected if isinstance(expected, (tuple, list)) else (expected,)
    return len(results) == len(wanted) and all(
        torch.allclose(r.float(), w.float(), atol=tolerance, rtol=tolerance)
        for r, w in zip(results, wanted))


def _max_error(result, expected) -> float:
    results = result if isinstance(result, (tuple, list)) else (result,)
    wanted = expected if isinstance(expected, (tuple, list)) else (expected,)
    return max(float((r.float() - w.float()).abs().max()) for r, w in zip(results, wanted))


def _entries(directory: Path):
    """(name, program dir, model or None, inputs, eager callable)."""
    for name in _names("large") + _names("small"):  # KernelBench's sizes first
        if (directory / name).is_dir():
            model, inputs = models.make(name, device="cuda", seed=1)
            yield name, directory / name, model, inputs, model
    for program_dir in sorted(directory.glob("example_mlp*")):
        yield (program_dir.name, program_dir, None, example_inputs("cuda", seed=1),
               example_reference)


def _run(args) -> int:
    from . import _program

    directory, out = Path(args.dir), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    device = torch.device("cuda")
    if not args.cudnn_tf32:
        # f32 convolutions in eager and torch.compile at f32, as ours (3xTF32
        # kernels verified to f32 accuracy); torch's default lets cuDNN use TF32.
        torch.backends.cudnn.allow_tf32 = False
    timer = CudaTimer(device)
    rows: List[Dict] = []
    report = _write(out, device, args.runs, rows)
    deadline = time.monotonic() + args.budget
    for name, program_dir, model, inputs, eager in _entries(directory):
        row: Dict[str, object] = {"name": name}
        rows.append(row)
        if (program_dir / "error.txt").is_file():
            row["error"] = (program_dir / "error.txt").read_text().strip()
            continue
        try:
            program = _program.load(program_dir, module=model)
            row["regions"] = [r.get("decision") for r in (program.report or {}).get("regions", [])]
            with torch.no_grad():
                expected = eager(*inputs)
                result = program(*inputs)
                torch.cuda.synchronize()
                dtype = (expected[0] if isinstance(expected, tuple) else expected).dtype
                row["max_abs_error"] = _max_error(result, expected)
                row["correct_kernelbench"] = _close(result, expected, KERNELBENCH_TOLERANCE)
                row["correct"] = _close(result, expected, OUR_TOLERANCE.get(dtype, 1e-4))
                row["eager_us"] = timer(lambda: eager(*inputs), args.runs)
                row["ours_us"] = timer(lambda: program(*inputs), args.runs)
                # The same program replayed as a CUDA graph (static shapes and
                # addresses): what the host's per-call work costs.
                try:
                    graphed = _program.load(program_dir, module=model)
                    graphed.cuda_graph = True
                    for _ in range(3):
                        replayed = graphed(*inputs)
                    torch.cuda.synchronize()
                    row["graph_correct"] = _close(replayed, expected,
                                                  KERNELBENCH_TOLERANCE)
                    row["graph_us"] = timer(lambda: graphed(*inputs), args.runs)
                    del graphed, replayed
                except Exception as error:
                    row["graph_error"] = f"{type(error).__name__}: {error}"
                if args.torch_compile and time.monotonic() < deadline:
                    compiled = torch.compile(eager)
                    compiled(*inputs)
                    row["compile_us"] = timer(lambda: compiled(*inputs), args.runs)
        except Exception as error:
            row["error"] = f"{type(error).__name__}: {error}"
        print(f"bench: {json.dumps(row)}", file=sys.stderr)
        report = _write(out, device, args.runs, rows)  # a cut-short run keeps its rows
    _chart(report, out / "bench.png")
    print(_markdown(report))
    return 0


def _write(out: Path, device, runs: int, rows: List[Dict]) -> Dict:
    report = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__,
              "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
              "runs": runs, "rows": rows, "summary": _summarize(rows)}
    (out / "bench.json").write_text(json.dumps(report, indent=1))
    (out / "bench.md").write_text(_markdown(report))
    return report


def _summarize(rows: List[Dict]) -> Dict:
    """fast_0 / fast_1 and the geomean speedup of the program's call
    (``ours``) and of its CUDA-graph replay (``graph``) against eager and
    torch.compile; speedups of correct rows only (KernelBench's rule)."""
    summary = {}
    for ours, correct in (("ours", "correct_kernelbench"), ("graph", "graph_correct")):
        for baseline in ("eager", "compile"):
            key, mine = f"{baseline}_us", f"{ours}_us"
            timed = [r for r in rows if key in r and mine in r]
            if not timed:
                continue
            good = [r for r in timed if r.get("correct_kernelbench") and r.get(correct)]
            speedups = [r[key] / r[mine] for r in good]
            summary[f"{ours} vs {baseline}"] = {
                "fast_0": sum(1 for r in rows if r.get("correct_kernelbench")
                              and r.get(correct, True)) / len(rows),
                "fast_1": sum(1 for s in speedups if s > 1.0) / len(rows),
                "geomean_speedup": (math.exp(sum(math.log(s) for s in speedups)
                                             / len(speedups)) if speedups else None),
            }
    return summary


def _fmt(value, digits=1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _markdown(report: Dict) -> str:
    tf32 = {True: ", cuDNN TF32 on", False: ", cuDNN TF32 off"}.get(
        report.get("cudnn_allow_tf32"), "")
    lines = [f"Device: {report['device']}, torch {report['torch']}{tf32}, median of "
             f"{report['runs']} runs, L2 flushed before each.", "",
             "| module | correct (ours / KernelBench) | max abs err | eager us | "
             "torch.compile us | ours us | ours as CUDA graph us | vs eager | "
             "vs compile | graph vs eager | graph vs compile | regions |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if "error" in r:
            lines.append(f"| {r['name']} | error: {r['error'][:80]} |" + " |" * 10)
            continue

        def vs(key, mine):
            return (_fmt(r[key] / r[mine], 2) + "x"
                    if r.get(mine) and key in r else "-")

        regions = r.get("regions") or []
        lines.append(
            f"| {r['name']} | {r.get('correct')} / {r.get('correct_kernelbench')} | "
            f"{r.get('max_abs_error', 0):.2e} | {_fmt(r.get('eager_us'))} | "
            f"{_fmt(r.get('compile_us'))} | {_fmt(r.get('ours_us'))} | "
            f"{_fmt(r.get('graph_us'))} | {vs('eager_us', 'ours_us')} | "
            f"{vs('compile_us', 'ours_us')} | {vs('eager_us', 'graph_us')} | "
            f"{vs('compile_us', 'graph_us')} | "
            f"{regions.count('spliced')}/{len(regions)} spliced |")
    lines.append("")
    for what, s in report["summary"].items():
        lines.append(f"- {what}: fast_0 {s['fast_0']:.2f}, fast_1 "
                     f"{s['fast_1']:.2f}, geomean speedup {_fmt(s['geomean_speedup'], 2)}x")
    return "\n".join(lines) + "\n"


def _chart(report: Dict, path: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: no matplotlib, no chart", file=sys.stderr)
        return
    rows = [r for r in report["rows"] if "ours_us" in r]
    names = [r["name"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 1.1), 5))
    width = 0.2
    bars = (("eager_us", "ours_us", "vs eager"),
            ("compile_us", "ours_us", "vs torch.compile"),
            ("eager_us", "graph_us", "as CUDA graph, vs eager"),
            ("compile_us", "graph_us", "as CUDA graph, vs torch.compile"))
    for number, (key, mine, label) in enumerate(bars):
        values = [r[key] / r[mine] if key in r and r.get(mine) else 0 for r in rows]
        ax.bar([i + (number - 1.5) * width for i in range(len(rows))], values, width,
               label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)), names, rotation=30, ha="right")
    ax.set_ylabel("speedup of cuda_agent (x)")
    ax.set_title(f"cuda_agent vs PyTorch on {report['device']}")
    ax.legend(fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuda_agent.bench",
                                     description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    compile_step = steps.add_parser("compile", help="compile every module into DIR")
    compile_step.add_argument("dir")
    compile_step.add_argument("--agent")
    compile_step.add_argument("--verify")
    compile_step.add_argument("--db")
    compile_step.add_argument("--option", action="append",
                              help="another --agent-lower option, KEY=VALUE")
    compile_step.add_argument("--set", choices=("small", "large", "all"), default="small",
                              help="which modules: CI's sizes (small), KernelBench's "
                                   "(large) or both")
    compile_step.add_argument("--only", action="append",
                              help="one module (repeatable); --only none: no module")
    compile_step.add_argument("--backend-cache", metavar="CACHE",
                              help="also compile the graphs torch.compile captures from each "
                                   "module into the backend's cache CACHE (for "
                                   "options={'cache_dir': CACHE} on a machine without MLIR)")
    compile_step.add_argument("--example", metavar="NAME",
                              help=f"compile {EXAMPLE} too, as DIR/NAME (example_mlp*)")
    compile_step.add_argument("--example-file", metavar="MLIR",
                              default=str(Path(__file__).resolve().parents[2] / EXAMPLE),
                              help=f"where {EXAMPLE} is (default: in the checkout this "
                                   "package's sources are in; an installed package needs it)")
    run_step = steps.add_parser("run", help="check and time the programs of DIR")
    run_step.add_argument("dir")
    run_step.add_argument("--out", default="bench-results")
    run_step.add_argument("--runs", type=int, default=100)
    run_step.add_argument("--no-torch-compile", dest="torch_compile", action="store_false")
    run_step.add_argument("--cudnn-tf32", action="store_true",
                          help="leave torch's default (cuDNN convolutions in TF32); by "
                               "default the bench sets torch.backends.cudnn.allow_tf32 "
                               "= False so that PyTorch's f32 convolutions are f32")
    run_step.add_argument("--budget", type=float, default=600.0,
                          help="seconds after which torch.compile is no longer timed")
    args = parser.parse_args(argv)
    return _compile(args) if args.step == "compile" else _run(args)


if __name__ == "__main__":
    sys.exit(main())
