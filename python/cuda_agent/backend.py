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
the same layer in another model) is not compiled again: the cached bundle is
bound to the new graph's parameters. The cache lives in this process, and on
disk under ``cache_dir`` (or ``$CUDA_AGENT_CACHE_DIR``) when one is given, so
that later processes reuse it too. ``cache_info()`` counts hits and misses;
``cache_clear()`` empties the in-process cache.

Before exporting, a graph is looked up by its FX graph alone (``graph_key``:
the nodes, their targets and arguments, the input signature), which needs
neither torch-mlir nor the compiler. That is how the backend runs on a
machine that has only the runtime (a GPU machine without MLIR, or a Python
that torch-mlir has no wheel for): ``stage(model, *inputs, cache_dir=D,
...)`` compiles the graphs dynamo captures from a model on the build machine
(CPU tensors are enough), and ``torch.compile(model, backend="cuda_agent",
options={"cache_dir": D})`` there runs them. Without a compiler, options that
say what to compile cannot be honoured, so a graph staged once is used
whatever they say (with several stagings, the one with the same options).
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
#: The folder of a cache_dir that indexes its programs by graph_key.
GRAPH_INDEX = "graphs"
#: The key of a graph index entry that names the torch that staged it.
STAGED_TORCH = "torch"
_cache: Dict[str, Path] = {}
#: graph_key + options -> program directory, in this process.
_graphs: Dict[str, Path] = {}
_stats = {"hits": 0, "misses": 0}


def cache_info() -> Dict[str, int]:
    """``{"hits", "misses", "entries"}`` of the compiled-program cache."""
    return dict(_stats, entries=len(_cache))


def cache_clear() -> None:
    """Forgets the in-process cache (the on-disk one stays)."""
    _cache.clear()
    _graphs.clear()
    _stats.update(hits=0, misses=0)


def _identity(path) -> Optional[List]:
    """A file's path, size and mtime (None when it is not a file): what makes
    a cached program stale when the tool changes."""
    try:
        stat = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return [str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns]


def _tool_identity() -> Optional[List]:
    """The compiler's identity, or None on a machine without it."""
    from ._tools import find_tool
    try:
        return _identity(find_tool())
    except Exception:
        return None


def _keyed(options: Dict) -> str:
    """The options that say what is compiled, as canonical text."""
    return json.dumps({k: str(v) for k, v in sorted(options.items()) if k not in _UNKEYED})


def _signature(examples: List[torch.Tensor]) -> List:
    return [[str(e.dtype), list(e.shape)] for e in examples]


def cache_key(text: str, examples: List[torch.Tensor], options: Dict) -> str:
    """The key of a graph's program: its linalg text, input signature,
    compile options and the tool's identity."""
    digest = hashlib.sha256(text.encode())
    digest.update(json.dumps([_signature(examples), _keyed(options),
                              _tool_identity()]).encode())
    return digest.hexdigest()


def _target(gm: torch.fx.GraphModule, node: torch.fx.Node):
    """What a node calls or reads, as text that does not depend on the
    process (no addresses) nor on the device the graph was captured on."""
    target = node.target
    if node.op == "call_function":
        if isinstance(target, torch._ops.OpOverload):
            return str(target)
        module = getattr(target, "__module__", None) or ""
        return f"{module}.{getattr(target, '__qualname__', getattr(target, '__name__', target))}"
    if node.op == "call_module":
        submodule = gm.get_submodule(target)
        return [target, type(submodule).__qualname__, submodule.extra_repr()]
    if node.op == "get_attr":
        value = gm
        for part in target.split("."):
            value = getattr(value, part)
        if isinstance(value, torch.Tensor):
            return [target, str(value.dtype), list(value.shape)]
        return [target, type(value).__qualname__]
    return str(target)  # placeholder (its name), call_method, output


def _argument(value, index: Dict[torch.fx.Node, int]):
    """A node's argument with graph values as their node's position."""
    if isinstance(value, torch.fx.Node):
        return ["%", index[value]]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_argument(v, index) for v in value]]
    if isinstance(value, dict):
        return {str(k): _argument(v, index) for k, v in sorted(value.items())}
    if isinstance(value, slice):
        return ["slice"] + [_argument(v, index) for v in (value.start, value.stop, value.step)]
    if isinstance(value, torch.device):
        return "device"  # staged on the CPU, run on CUDA: the same program
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    return ["other", type(value).__qualname__]


def graph_key(gm: torch.fx.GraphModule, examples: List[torch.Tensor]) -> str:
    """The key of an FX graph at an input signature: every node's kind,
    target and arguments in order (names of values left out), and the
    signature. It needs no torch-mlir, so a machine without it finds
    programs staged elsewhere."""
    index: Dict[torch.fx.Node, int] = {}
    nodes = []
    for position, node in enumerate(gm.graph.nodes):
        index[node] = position
        nodes.append([node.op, _target(gm, node), _argument(node.args, index),
                      _argument(node.kwargs, index)])
    return hashlib.sha256(json.dumps([nodes, _signature(examples)]).encode()).hexdigest()


def _index_path(cache_dir, graph: str) -> Path:
    """The file of cache_dir's index that lists the programs of a graph."""
    return Path(cache_dir) / GRAPH_INDEX / f"{graph}.json"


def _indexed(cache_dir, graph: str, options: Dict) -> Optional[Path]:
    """The program directory that cache_dir's index holds for a graph
    compiled with these options (by the compiler found here, when there is
    one), or None."""
    from . import _program
    if not cache_dir:
        return None
    try:
        entries = json.loads(_index_path(cache_dir, graph).read_text())
    except (OSError, ValueError):
        return None
    tool = _tool_identity()
    entry = entries.get(_keyed(options))
    if entry is None and tool is None and len(entries) == 1:
        (entry,) = entries.values()  # staged elsewhere, with options of its own
    if entry is None or (tool is not None and entry.get("tool") != tool):
        return None
    directory = Path(cache_dir) / entry["key"]
    return directory if (directory / _program.MANIFEST).is_file() else None


def _index(cache_dir, graph: str, options: Dict, key: str) -> None:
    """Records in cache_dir's index that the graph's program is key."""
    path = _index_path(cache_dir, graph)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        entries = {}
    entries[_keyed(options)] = {"key": key, "tool": _tool_identity(),
                                STAGED_TORCH: torch.__version__}
    path.write_text(json.dumps(entries, indent=1) + "\n")


def _staged_under_other_torch(cache_dir) -> List[str]:
    """The torch versions other than this one that cache_dir's index says
    its graphs were staged under: dynamo captures a model's graphs
    differently across torch versions (an LSTM's, for one), so a graph
    staged under another one may not be found."""
    versions = set()
    for path in (Path(cache_dir) / GRAPH_INDEX).glob("*.json"):
        try:
            entries = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        versions.update(e.get(STAGED_TORCH) for e in entries.values()
                        if isinstance(e, dict) and e.get(STAGED_TORCH))
    return sorted(versions - {torch.__version__})


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


def _bind(directory: Path, gm: torch.fx.GraphModule):
    """The program in directory bound to gm's state, or None if it is stale
    or partial (then it is compiled again)."""
    from . import _export, _program
    try:
        return _program.CompiledProgram(directory, gm, state_names=_export.state_names(gm))
    except Exception:
        return None


def _compile_cached(gm: torch.fx.GraphModule, concrete: List[torch.Tensor],
                    options: Dict):
    """The graph's CompiledProgram: from the cache (by graph, then by its
    linalg text), or compiled (and cached)."""
    from . import _export, _program
    work_dir = options.pop("work_dir", None)
    cache_dir = options.pop("cache_dir", None) or os.environ.get(CACHE_ENV)
    graph = graph_key(gm, concrete)
    compiled_with = dict(options)  # what the compile below pops from options
    seen = graph + _keyed(compiled_with)
    # The process's cache first: the index on disk is read only when it misses.
    for lookup in (lambda: _graphs.get(seen), lambda: _indexed(cache_dir, graph, options)):
        directory = lookup()
        program = _bind(directory, gm) if directory is not None else None
        if program is not None:
            _stats["hits"] += 1
            _graphs[seen] = directory
            return program
    try:
        exported = _export.export_program(gm, *concrete, params="arguments")
    except _export.ExportError as error:
        where = f"{cache_dir} holds" if cache_dir else "no cache_dir was given, so nothing holds"
        other = _staged_under_other_torch(cache_dir) if cache_dir else []
        why = (f"; its graphs were staged under torch {', '.join(other)} and this is "
               f"{torch.__version__} (stage under the torch the model runs with)"
               if other else "")
        raise _export.ExportError(f"{error}; {where} no program staged for this graph "
                                  f"(graph key {graph[:16]}){why}") from error
    key = cache_key(exported.text, concrete, options)
    directory = _cache.get(key)
    if directory is None and cache_dir and \
            (Path(cache_dir) / key / _program.MANIFEST).is_file():
        directory = Path(cache_dir) / key
    program = _bind(directory, gm) if directory is not None else None
    if program is not None:
        _stats["hits"] += 1
    else:
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
        program = _program._lower(exported, directory, _export.state_names(gm), "arguments",
                                  gm, options.pop("agent", None), options.pop("verify", None),
                                  options.pop("db", None), quiet, options)
        if cache_dir and directory != Path(cache_dir) / key:
            shutil.copytree(directory, Path(cache_dir) / key, dirs_exist_ok=True)
    _cache[key] = _graphs[seen] = directory
    if cache_dir:
        _index(cache_dir, graph, compiled_with, key)
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


def stage(model, *example_inputs, cache_dir, **options) -> List[str]:
    """Compiles, into ``cache_dir``, every graph dynamo captures when
    ``model`` runs on ``example_inputs`` (which may be CPU tensors: only
    their shapes and dtypes matter), for the backend to run later with
    ``options={"cache_dir": cache_dir}``, on this machine or on one without
    the compiler. ``options`` are the backend's. Returns the graph keys;
    unlike the backend, raises when a graph cannot be compiled."""
    captured = []

    def capture(gm, inputs):
        captured.append((gm, [_concrete(e) for e in inputs]))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(model, backend=capture, dynamic=False)(*example_inputs)
    torch._dynamo.reset()
    keys = []
    for gm, concrete in captured:
        if any(c is None for c in concrete):
            raise ValueError("an input is not a tensor of static shape")
        _compile_cached(gm, concrete, dict(options, cache_dir=cache_dir))
        keys.append(graph_key(gm, concrete))
    return keys


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
