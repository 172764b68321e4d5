"""cuda_agent: PyTorch modules compiled by cuda-agent-opt, run on torch tensors.

- ``export(module, *inputs, params="arguments"|"constants")``: linalg text
  (torch-mlir; CPython 3.11). ``decomposition_table()`` is the table it
  passes to torch-mlir (its own, with ``torch.cumsum``/``cumprod`` as a blocked
  scan in linalg), for pipelines that call torch-mlir themselves.
  ``export_program`` also names the results a module writes back in place
  (a training-mode BatchNorm's running statistics).
- ``compile(module, *inputs, agent=, verify=, db=, **agent_lower_options)``:
  a ``CompiledProgram`` that runs the whole-program bundle on torch's current
  stream.
- ``compile_mlir(path_or_text, ...)``: the same for linalg-on-tensors MLIR.
- ``load(directory, module=None)``: a program compiled earlier (runtime only:
  no MLIR, no torch-mlir).
- ``torch.compile(model, backend="cuda_agent")``: the dynamo backend;
  ``backend.stage(model, *inputs, cache_dir=D)`` compiles its graphs ahead, for
  a machine without MLIR (``options={"cache_dir": D}`` there).
"""

from ._export import ExportError, Exported, decomposition_table, export, export_program, state_names
from ._program import CompiledProgram, compile, compile_mlir, load
from ._tools import CompileError, find_tool
from .backend import FallbackWarning, cuda_agent_backend

__all__ = [
    "CompileError", "CompiledProgram", "ExportError", "Exported", "FallbackWarning",
    "compile", "compile_mlir", "cuda_agent_backend", "decomposition_table", "export",
    "export_program",
    "find_tool", "load", "state_names",
]
__version__ = "0.1.0"

try:
    from .backend import register as _register

    _register()
except Exception:  # pragma: no cover - a torch without dynamo
    pass
