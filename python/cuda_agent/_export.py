"""PyTorch -> linalg on tensors, through torch-mlir's FX importer.

``export(module, *example_inputs)`` returns the MLIR text that cuda-agent-opt
reads. With ``params="arguments"`` (the default) the module's parameters and
buffers become the leading arguments of ``@main``, in ``state_names(module)``
order, so the compiled program reads the live tensors of the module instead of
copies frozen into the IR; ``params="constants"`` keeps torch-mlir's own form,
the weights as ``dense_resource`` constants.

torch-mlir publishes wheels for CPython 3.11 only; everything else in the
package works without it.
"""

from __future__ import annotations

import re
from typing import List, NamedTuple, Sequence, Tuple

import torch

PARAM_MODES = ("arguments", "constants")


class ExportError(RuntimeError):
    """torch-mlir could not import the module (or is not installed)."""


def state_names(module: torch.nn.Module) -> List[str]:
    """The names of the parameters, then the buffers, that become arguments."""
    names = [name for name, _ in module.named_parameters()]
    names += [name for name, _ in module.named_buffers()]
    return names


def state_tensors(module: torch.nn.Module) -> List[torch.Tensor]:
    """The tensors of ``state_names(module)``, in that order."""
    state = dict(module.named_parameters())
    state.update(module.named_buffers())
    return [state[name] for name in state_names(module)]


class _Functional(torch.nn.Module):
    """``module`` with its state passed in: forward(*state, *inputs).

    The wrapped module is kept out of the submodules, so that torch.export
    sees no parameters: functional_call binds the arguments in their place.
    """

    def __init__(self, module: torch.nn.Module, names: Sequence[str]):
        super().__init__()
        object.__setattr__(self, "_inner", module)
        self._names = list(names)

    def forward(self, *args):
        count = len(self._names)
        state = dict(zip(self._names, args[:count]))
        return torch.func.functional_call(self._inner, state, tuple(args[count:]))


def _on_cpu(value):
    """A CPU tensor of ``value``'s shape and dtype (contents unset: the import
    reads only the metadata), or ``value`` itself if it is not a tensor."""
    if isinstance(value, torch.Tensor):
        return torch.empty(tuple(value.shape), dtype=value.dtype)
    return value


def _import_torch_mlir():
    try:
        from torch_mlir import fx
        from torch_mlir.compiler_utils import OutputType
    except ImportError as error:  # pragma: no cover - depends on the machine
        raise ExportError(
            "cuda_agent.export needs torch-mlir (pip install torch-mlir; wheels "
            "exist for CPython 3.11 only): " + str(error)) from error
    return fx, OutputType


def decomposition_table():
    """torch-mlir's decompositions; the scans as linalg (``_scan``) instead of
    ``tm_tensor.scan``, which cuda-agent-opt does not read; group norm as one row
    region (``_norms``) instead of float64 statistics gathered per channel."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    from ._norms import NORM_DECOMPOSITIONS
    from ._scan import SCAN_DECOMPOSITIONS
    table = dict(get_decomposition_table())
    table.update(SCAN_DECOMPOSITIONS)
    table.update(NORM_DECOMPOSITIONS)
    return table


class Exported(NamedTuple):
    """``export_program``'s answer: the linalg text, and what it writes back.

    ``updates`` pairs a result of ``@main`` (its index) with the name, in
    ``state_names(module)``, of the buffer the module writes it to: a
    training-mode BatchNorm's running statistics, say. ``argument_updates``
    pairs a result with the position of the argument the module writes it to
    in place (a dynamo graph's buffers are its arguments). torch.export returns
    those before the forward's own results."""
    text: str
    updates: Tuple[Tuple[int, str], ...] = ()
    argument_updates: Tuple[Tuple[int, int], ...] = ()


def _writes_back(program, names: Sequence[str]):
    """The results of an ExportedProgram that are written back: to the
    module's state (the inputs of the functional wrapper that carry it,
    ``params="arguments"``, or the module's own buffers, ``"constants"``) and
    to the caller's arguments."""
    from torch.export.graph_signature import InputKind, OutputKind

    inputs = [spec.arg.name for spec in program.graph_signature.input_specs
              if spec.kind == InputKind.USER_INPUT]
    updates, argument_updates = [], []
    for index, spec in enumerate(program.graph_signature.output_specs):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            updates.append((index, spec.target))
        elif spec.kind == OutputKind.USER_INPUT_MUTATION:
            position = inputs.index(spec.target)
            if position < len(names):
                updates.append((index, names[position]))
            else:
                argument_updates.append((index, position - len(names)))
    return tuple(updates), tuple(argument_updates)


def export(module, *example_inputs, params: str = "arguments",
           func_name: str = "main") -> str:
    """Returns ``module`` at ``example_inputs``' shapes as linalg-on-tensors text.

    ``module`` is a ``torch.nn.Module`` (or a function, which has no state);
    it and the inputs may be on any device (the import itself runs on the CPU).
    ``params="arguments"``: ``@main(*state_tensors(module), *example_inputs)``;
    ``params="constants"``: ``@main(*example_inputs)`` with the weights inside.
    A module that updates its buffers (training mode) or writes an argument in
    place returns the new values first (``export_program`` says which).
    """
    return export_program(module, *example_inputs, params=params, func_name=func_name).text


def export_program(module, *example_inputs, params: str = "arguments",
                   func_name: str = "main") -> Exported:
    """``export``, with the results that update the module's state named."""
    if params not in PARAM_MODES:
        raise ValueError(f"params must be one of {PARAM_MODES}, not {params!r}")
    if not isinstance(module, torch.nn.Module):
        function = module

        class _Function(torch.nn.Module):
            def forward(self, *args):
                return function(*args)

        module = _Function()
    fx, OutputType = _import_torch_mlir()
    # The import runs on the CPU whatever device the module and the inputs
    # are on: only shapes and dtypes matter (and, for constants, the weights).
    inputs = tuple(_on_cpu(value) for value in example_inputs)
    if params == "arguments":
        names = state_names(module)
        state = tuple(_on_cpu(tensor) for tensor in state_tensors(module))
        target, args = _Functional(module, names), state + inputs
    else:
        if any(t.device.type != "cpu" for t in state_tensors(module)):
            import copy
            module = copy.deepcopy(module).cpu()
        names, target, args = [], module, inputs
    try:
        program = torch.export.export(target, args, strict=False).run_decompositions(
            decomposition_table())
        updates, argument_updates = _writes_back(program, names)
        # Decomposed above, so that the updates are read off the program
        # torch-mlir imports; an empty table keeps it from decomposing again.
        imported = fx.export_and_import(
            program, output_type=OutputType.LINALG_ON_TENSORS, func_name=func_name,
            decomposition_table={})
    except Exception as error:
        raise ExportError(f"torch-mlir could not import {type(module).__name__}: "
                          f"{type(error).__name__}: {error}") from error
    text = str(imported)
    # torch-mlir's own dialect for what linalg cannot say (scatter for
    # index_put, index_add and scatter; sort for sort and topk): refused here,
    # by name, rather than by the tool's parser.
    leftover = sorted(set(re.findall(r"\btm_tensor\.(\w+)", text)) - {"yield"})
    if leftover:
        ops = ", ".join(f"tm_tensor.{op}" for op in leftover)
        raise ExportError(f"torch-mlir lowered {type(module).__name__} to {ops}, which is not "
                          "linalg and cuda-agent-opt does not read (TMTensor: scatter for "
                          "index_put/index_add/scatter, sort for sort/topk; cumsum and cumprod "
                          "are written as linalg by decomposition_table())")
    return Exported(text, updates, argument_updates)
