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
``work_dir``, ``quiet`` and any ``--agent-lower`` option) and ``cache_dir``.

Compiled programs are cached, keyed by the graph: the SHA-256 of its exported
linalg text, its input signature, the options and the tool's identity (path,
size, mtime). The kernel database is keyed by its path only (the compiler
writes its decisions into it): after importing new kernels, call
``cache_clear()`` or use another ``cache_dir``. A graph that dynamo hands over again
(another instance of the same model, a recompile after ``torch._dynamo.reset``,
the same layer in another model) is exported but not compiled again: the
cached bundle is bound to the new graph's parameters. The cache lives in this
process, and on disk under ``cache_dir`` (or ``$CUDA_AGENT_CACHE_DIR``) when
one is given, so that later processes reuse it too. ``cache_info()`` counts
hits and misses; ``cache_clear()`` empties the in-process cache.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import torch

BACKEND_NAME = "cuda_agent"
CACHE_ENV = "CUDA_AGENT_CACHE_DIR"
_graph_counter = itertools.count()
#: Options that say where the output goes or how loud the tool is, not what
#: is compiled: they are left out of the cache key.
_UNKEYED = ("work_dir", "cache_dir", "quiet", "verbose")
_cache: Dict[str, Path] = {}
_stats = {"hits": 0, "misses": 0}


def cache_info() -> Dict[str, int]:
    """``{"hits", "misses", "entries"}`` of the compiled-program cache."""
    return dict(_stats, entries=len(_cache))


def cache_clear() -> None:
    """Forgets the in-process cache (the on-disk one stays)."""
    _cache.clear()
    _stats.update(hits=0, misses=0)


def _identity(path) -> Optional[List]:
    """A file's path, size and mtime (None when it is not a file): what makes
    a cached program stale when the tool changes."""
    try:
        stat = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return [str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns]


def cache_key(text: str, examples: List[torch.Tensor], options: Dict) -> str:
    """The key of a graph's program: its linalg text, input signature,
    compile options and the tool's identity."""
    from ._tools import find_tool
    keyed = {k: str(v) for k, v in sorted(options.items()) if k not in _UNKEYED}
    try:
        tool = _identity(find_tool())
    except Exception:
        tool = None
    signature = [[str(e.dtype), list(e.shape)] for e in examples]
    digest = hashlib.sha256(text.encode())
    digest.update(json.dumps([signature, keyed, tool]).encode())
    return digest.hexdigest()


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


def _compile_cached(gm: torch.fx.GraphModule, concrete: List[torch.Tensor],
                    options: Dict):
    """The graph's CompiledProgram: from the cache, or compiled (and cached)."""
    from . import _export, _program
    work_dir = options.pop("work_dir", None)
    cache_dir = options.pop("cache_dir", None) or os.environ.get(CACHE_ENV)
    text = _export.export(gm, *concrete, params="arguments")
    key = cache_key(text, concrete, options)
    directory = _cache.get(key)
    if directory is None and cache_dir and \
            (Path(cache_dir) / key / _program.MANIFEST).is_file():
        directory = Path(cache_dir) / key
    if directory is not None:
        try:
            program = _program.CompiledProgram(directory, gm,
                                               state_names=_export.state_names(gm))
        except Exception:  # a stale or partial entry: compile again
            directory = None
        else:
            _stats["hits"] += 1
            _cache[key] = directory
            return program
    _stats["misses"] += 1
    if work_dir is not None:
        directory = Path(work_dir) / f"graph{next(_graph_counter)}"
    elif cache_dir:
        directory = Path(cache_dir) / key
        shutil.rmtree(directory, ignore_errors=True)
    else:
        directory = None
    directory = _program._work_dir(directory)
    quiet = bool(options.pop("quiet", False))
    program = _program._lower(text, directory, _export.state_names(gm), "arguments", gm,
                              options.pop("agent", None), options.pop("verify", None),
                              options.pop("db", None), quiet, options)
    _cache[key] = directory
    if cache_dir and directory != Path(cache_dir) / key:
        shutil.copytree(directory, Path(cache_dir) / key, dirs_exist_ok=True)
    return program


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
        program = _compile_cached(gm, concrete, options)
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
