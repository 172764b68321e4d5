"""``torch.compile(model, backend="cuda_agent")``.

Dynamo hands the backend one FX graph per captured region (a graph break
makes several). Each graph is exported with torch-mlir and compiled with
``cuda-agent-opt --agent-lower`` into a whole-program bundle; the graph then
runs as a ``CompiledProgram``. A graph that cannot be compiled (torch-mlir or
the compiler refuses it, dynamic shapes, CPU tensors, outputs that are not
plain tensors, no tool on this machine) runs eagerly, with a warning naming
the reason: the backend never raises.

Options: ``torch.compile(m, backend="cuda_agent", options={...})`` takes the
keywords of ``cuda_agent.compile`` (``agent``, ``verify``, ``db``,
``work_dir``, ``quiet`` and any ``--agent-lower`` option).
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import torch

BACKEND_NAME = "cuda_agent"
_graph_counter = itertools.count()


class FallbackWarning(UserWarning):
    """A graph runs eagerly because cuda_agent could not compile it."""


def _fallback(gm: torch.fx.GraphModule, reason: str):
    warnings.warn(f"cuda_agent: running this graph eagerly: {reason}",
                  FallbackWarning, stacklevel=2)
    return gm.forward


def _concrete(example) -> Optional[torch.Tensor]:
    """A real tensor with ``example``'s dtype and static shape, or None."""
    if not isinstance(example, torch.Tensor):
        return None
    if any(not isinstance(d, int) for d in example.shape):
        return None
    return torch.empty(tuple(int(d) for d in example.shape), dtype=example.dtype)


def _output_count(gm: torch.fx.GraphModule) -> Optional[Tuple[int, bool]]:
    """How many values the graph returns and whether as a flat tuple (dynamo's
    graphs) or one value; None for anything else (None results, nesting)."""
    for node in gm.graph.nodes:
        if node.op == "output":
            result = node.args[0]
            if isinstance(result, torch.fx.Node):
                return 1, False
            if isinstance(result, (tuple, list)) and result and \
                    all(isinstance(r, torch.fx.Node) for r in result):
                return len(result), True
            return None
    return None


def cuda_agent_backend(gm: torch.fx.GraphModule, example_inputs: List,
                       options: Optional[Dict] = None):
    """The dynamo backend: a compiled callable for ``gm``, or ``gm.forward``."""
    options = dict(options or {})
    try:
        concrete = [_concrete(e) for e in example_inputs]
        if any(c is None for c in concrete):
            return _fallback(gm, "an input is not a tensor of static shape "
                                 "(compile with dynamic=False)")
        devices = {e.device.type for e in example_inputs}
        if devices != {"cuda"}:
            return _fallback(gm, f"inputs on {sorted(devices)}, not CUDA")
        returned = _output_count(gm)
        if not returned:
            return _fallback(gm, "the graph does not return tensors only")
        count, as_tuple = returned
        from ._program import compile as compile_program
        work_dir = options.pop("work_dir", None)
        if work_dir is not None:
            work_dir = Path(work_dir) / f"graph{next(_graph_counter)}"
        program = compile_program(gm, *concrete, params="arguments",
                                  work_dir=work_dir, **options)
        if len(program.outputs) != count:
            return _fallback(gm, f"the program has {len(program.outputs)} results, "
                                 f"the graph {count}")
    except Exception as error:  # never fail the user's torch.compile
        return _fallback(gm, f"{type(error).__name__}: {error}")

    def run(*args):
        result = program(*args)
        results = (result,) if isinstance(result, torch.Tensor) else tuple(result)
        return results if as_tuple else results[0]

    run.program = program  # the CompiledProgram, for its report
    return run


def register() -> None:
    """Registers the backend under ``cuda_agent`` (the package's entry point
    does this for installed packages; importing cuda_agent does it too)."""
    from torch._dynamo.backends import registry
    if BACKEND_NAME in getattr(registry, "_COMPILER_FNS", {}):
        return
    try:
        registry.register_backend(cuda_agent_backend, name=BACKEND_NAME)
    except AssertionError:
        pass
