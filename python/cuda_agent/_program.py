"""Compiled programs: a whole-program bundle run on torch CUDA tensors.

``compile()`` exports a module, runs ``cuda-agent-opt --agent-lower`` with
``bundle=DIR/program``, and returns a ``CompiledProgram``; ``load(DIR)`` gives
the same object for a directory compiled earlier (on another machine, for
example: the runtime needs no MLIR and no torch-mlir). Calling it checks the
arguments against the plan's inputs, allocates the outputs and the plan's
temporaries with torch's allocator, and enqueues the plan's launches on
torch's current stream (asynchronously, like any torch op).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import _export, _tools

MANIFEST = "cuda_agent.json"
_MANIFEST_VERSION = 1

_DTYPES = {
    "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
    "f64": torch.float64, "i1": torch.bool, "i8": torch.int8, "i16": torch.int16,
    "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
}
_INPUT_NAME = re.compile(r"in(\d+)$")
_OUTPUT_NAME = re.compile(r"out(\d+)$")
_TEMP_ALIGN = 256
#: CUDA graphs kept per program (one per set of argument addresses), least
#: recently used dropped first.
_MAX_GRAPHS = 8


def _describe(dtype: torch.dtype, shape: Sequence[int]) -> str:
    return f"{str(dtype).replace('torch.', '')}[{', '.join(str(d) for d in shape)}]"


def _runtime():
    try:
        from . import _runtime as runtime
    except ImportError as error:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "cuda_agent._runtime (the native extension) is not built; "
            "install the package with `pip install ./python`") from error
    return runtime


def _find_bundle(directory: Path) -> Path:
    if (directory / "plan.json").is_file():
        return directory
    plans = sorted(p.parent for p in directory.glob("*/plan.json"))
    if len(plans) == 1:
        return plans[0]
    if not plans:
        raise FileNotFoundError(f"no plan.json in {directory}: the compiler wrote "
                                "no whole-program bundle")
    raise ValueError(f"{directory} holds {len(plans)} programs "
                     f"({', '.join(p.name for p in plans)}); export one function")


#: Loaded bundles, shared by every CompiledProgram of this process that runs
#: the same plan (the backend's cache hands one bundle to many graphs): the
#: kernels are loaded once per device. Keyed by path and plan.json's mtime.
_LOADED: Dict[Tuple[str, int], object] = {}


def _load_bundle(bundle: Path):
    plan = bundle.resolve() / "plan.json"
    key = (str(plan.parent), plan.stat().st_mtime_ns)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = _runtime().Program(key[0])
    return loaded


class _Buffer:
    def __init__(self, spec: Dict):
        self.name = spec["name"]
        self.shape = tuple(int(d) for d in spec["shape"])
        self.role = spec["role"]
        self.bytes = int(spec["bytes"])
        if spec["dtype"] not in _DTYPES:
            raise ValueError(f"buffer {self.name}: dtype {spec['dtype']} has no "
                             "torch equivalent")
        self.dtype = _DTYPES[spec["dtype"]]


class CompiledProgram:
    """A whole-program bundle, callable on torch CUDA tensors.

    Attributes: ``directory`` (what compile() wrote), ``bundle`` (the plan's
    directory), ``report`` (the compiler's JSON report, a dict, or None),
    ``log`` (the compiler's stderr), ``inputs`` / ``outputs`` (lists of
    ``(dtype, shape)``; inputs after the module's state, outputs without the
    updates), ``state_names``, ``constants`` (the plan's constant buffers:
    ``(name, dtype, shape)``), ``updates`` (the module's buffers a call writes
    in place, as a training-mode BatchNorm its running statistics: ``(name,
    dtype, shape)``; without the module they are computed and dropped);
    arguments the module writes in place are written too.
    """

    def __init__(self, directory: Union[str, Path], module=None, log: str = "",
                 state_names: Optional[Sequence[str]] = None):
        self.directory = Path(directory)
        manifest_path = self.directory / MANIFEST
        manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
        self.state_names: List[str] = list(manifest.get("state", []))
        #: (position among the plan's outputs, state name) of each update;
        #: (position, argument) of each argument written in place.
        self._updates = [(int(position), str(name))
                         for position, name in manifest.get("updates", [])]
        self._argument_updates = [(int(position), int(argument)) for position, argument
                                  in manifest.get("argument_updates", [])]
        if state_names is not None:
            # Another module's names for the same state, bound by position
            # (the backend's cache: one program, many graphs).
            if len(state_names) != len(self.state_names):
                raise ValueError(f"{len(state_names)} state names for a program "
                                 f"compiled with {len(self.state_names)}")
            renamed = dict(zip(self.state_names, state_names))
            self._updates = [(position, renamed.get(name, name))
                             for position, name in self._updates]
            self.state_names = list(state_names)
        self.bundle = _find_bundle(self.directory / manifest.get("bundle", "program"))
        report = self.directory / manifest.get("report", "report.json")
        self.report = json.loads(report.read_text()) if report.is_file() else None
        self.log = log
        self._module = module
        if module is not None:
            missing = ({*self.state_names, *(name for _, name in self._updates)}
                       - set(_export.state_names(module)))
            if missing:
                raise ValueError("the module lacks the compiled state "
                                 f"{sorted(missing)}")
        self._program = _load_bundle(self.bundle)
        buffers = [_Buffer(spec) for spec in self._program.buffers]
        inputs: Dict[int, int] = {}
        outputs: Dict[int, int] = {}
        for index, buffer in enumerate(buffers):
            named = {"input": _INPUT_NAME, "output": _OUTPUT_NAME}.get(buffer.role)
            match = named.match(buffer.name) if named else None
            if buffer.role in ("temp", "constant"):
                continue
            if not match:
                raise ValueError(f"{self.bundle}/plan.json: buffer {buffer.name} "
                                 f"({buffer.role}) is not an inN or outN of a "
                                 "whole-program bundle")
            (inputs if buffer.role == "input" else outputs)[int(match.group(1))] = index
        if sorted(inputs) != list(range(len(inputs))) or \
                sorted(outputs) != list(range(len(outputs))):
            raise ValueError(f"{self.bundle}/plan.json: inputs or outputs are not "
                             "numbered 0..N-1")
        self._buffers = buffers
        self._input_indices = [inputs[i] for i in range(len(inputs))]
        self._output_indices = [outputs[i] for i in range(len(outputs))]
        updated = {position for position, _ in self._updates + self._argument_updates}
        if any(not 0 <= position < len(outputs) for position in updated):
            raise ValueError(f"{manifest_path}: an update names an output the plan "
                             f"does not have ({len(outputs)} outputs)")
        self._result_positions = [i for i in range(len(outputs)) if i not in updated]
        self._constant_indices = [i for i, b in enumerate(buffers) if b.role == "constant"]
        self._temps = []
        offset = 0
        for index, buffer in enumerate(buffers):
            if buffer.role == "temp":
                self._temps.append((index, offset))
                offset += -(-buffer.bytes // _TEMP_ALIGN) * _TEMP_ALIGN
        self._workspace_bytes = offset
        if len(self._input_indices) < len(self.state_names):
            raise ValueError("the plan has fewer inputs than the module has state")
        # What a call checks, computed once: per value (state, then
        # arguments) its dtype and shape.
        self._signature = [(buffers[i].dtype, torch.Size(buffers[i].shape))
                           for i in self._input_indices]
        self._state_refs: Optional[List[Tuple[object, str]]] = None
        self._update_refs: Optional[List[Tuple[int, Tuple[object, str]]]] = None
        # Per device: the addresses of a call with the constants filled in
        # (uploaded on the first call there), and the constants' tensors.
        self._device_state: Dict[torch.device, Tuple[List[int], List[torch.Tensor]]] = {}
        #: Whether calls replay a CUDA graph per set of argument addresses:
        #: the first call at given addresses launches, the second captures the
        #: launches (outputs and workspace of the graph's own), later ones
        #: replay it. The outputs are then the graph's tensors, which the next
        #: call with the same arguments overwrites (as torch.compile's
        #: "reduce-overhead" mode). Off by default.
        self.cuda_graph = False
        self._graphs: Dict[Tuple, Tuple] = {}
        self._launched: set = set()

    @property
    def inputs(self) -> List[Tuple[torch.dtype, Tuple[int, ...]]]:
        """The caller's arguments: the plan's inputs after the module state."""
        return [(self._buffers[i].dtype, self._buffers[i].shape)
                for i in self._input_indices[len(self.state_names):]]

    @property
    def outputs(self) -> List[Tuple[torch.dtype, Tuple[int, ...]]]:
        """The forward's results (the updates are not among them)."""
        return [(self._buffers[self._output_indices[i]].dtype,
                 self._buffers[self._output_indices[i]].shape)
                for i in self._result_positions]

    @property
    def updates(self) -> List[Tuple[str, torch.dtype, Tuple[int, ...]]]:
        """The module's buffers each call writes, in place."""
        return [(name, self._buffers[self._output_indices[position]].dtype,
                 self._buffers[self._output_indices[position]].shape)
                for position, name in self._updates]

    @property
    def constants(self) -> List[Tuple[str, torch.dtype, Tuple[int, ...]]]:
        """The plan's constant buffers (weights frozen into the program)."""
        return [(self._buffers[i].name, self._buffers[i].dtype, self._buffers[i].shape)
                for i in self._constant_indices]

    def _state(self) -> List[torch.Tensor]:
        """The module's state tensors, looked up through cached (owner,
        attribute) pairs, so that replaced parameters are still seen."""
        if not self.state_names:
            return []
        if self._module is None:
            raise TypeError("this program was compiled with the module's "
                            "parameters as arguments: load it with module=")
        if self._state_refs is None:
            self._state_refs = [self._reference(name) for name in self.state_names]
        return [getattr(owner, attribute) for owner, attribute in self._state_refs]

    def _reference(self, name: str) -> Tuple[object, str]:
        """The (owner, attribute) pair of the module's tensor ``name``."""
        owner, _, attribute = name.rpartition(".")
        return self._module.get_submodule(owner), attribute

    def _write_updates(self, results: List[torch.Tensor], args: Sequence) -> None:
        """Copies the updates into the module's buffers (when the program has
        the module) and the caller's arguments written in place, on the
        current stream (after the launches that computed them), as the module
        itself would."""
        if self._update_refs is None and self._module is not None:
            self._update_refs = [(position, self._reference(name))
                                 for position, name in self._updates]
        with torch.no_grad():
            for position, (owner, attribute) in self._update_refs or []:
                getattr(owner, attribute).copy_(results[position])
            for position, argument in self._argument_updates:
                args[argument].copy_(results[position])

    def _check(self, values: List, count: int) -> List[torch.Tensor]:
        """The slow path of the argument checks: the error that names what is
        wrong, or the values made contiguous."""
        state = len(self.state_names)
        expected = len(self._input_indices) - state
        if count != expected:
            raise TypeError(f"cuda_agent: the compiled program takes {expected} "
                            f"tensor argument(s), {count} given")
        for position, value in enumerate(values):
            dtype, shape = self._signature[position]
            what = (f"parameter '{self.state_names[position]}'"
                    if position < state else f"argument {position - state}")
            want = _describe(dtype, shape)
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"cuda_agent: {what}: expected a tensor {want}, got "
                                f"{type(value).__name__}")
            if value.dtype != dtype or value.shape != shape:
                raise TypeError(f"cuda_agent: {what}: expected {want}, got "
                                f"{_describe(value.dtype, value.shape)} (the program "
                                "was compiled for these shapes and dtypes)")
        devices = {value.device for value in values}
        if len(devices) != 1 or next(iter(devices)).type != "cuda":
            raise ValueError("cuda_agent: every argument (and parameter) must be on "
                             f"one CUDA device; got {sorted(str(d) for d in devices)}")
        return [value.detach().contiguous() for value in values]

    def _arguments(self, args: Sequence) -> List[torch.Tensor]:
        values = self._state() + list(args)
        if len(values) == len(self._signature) and values:
            # The fast path: one pass of cheap comparisons, no messages.
            device = values[0].device if isinstance(values[0], torch.Tensor) else None
            if device is not None and device.type == "cuda" and all(
                    isinstance(value, torch.Tensor) and value.dtype == dtype
                    and value.shape == shape and value.device == device
                    and value.is_contiguous()
                    for value, (dtype, shape) in zip(values, self._signature)):
                return values
        return self._check(values, len(args))

    def _on_device(self, device: torch.device) -> Tuple[List[int], List[torch.Tensor]]:
        """The call's address template on ``device``: the constants uploaded
        there once (from the bundle's data files, as cuda-agent-run uploads
        them), every other address 0."""
        state = self._device_state.get(device)
        if state is None:
            addresses = [0] * len(self._buffers)
            constants = []
            for index in self._constant_indices:
                buffer = self._buffers[index]
                if not buffer.bytes:
                    continue
                data = bytearray(self._program.constant_data(index))
                tensor = torch.frombuffer(data, dtype=torch.uint8).to(device)
                constants.append(tensor.view(buffer.dtype).view(buffer.shape))
                addresses[index] = tensor.data_ptr()
            state = self._device_state[device] = (addresses, constants)
        return state

    def _address_table(self, values: List[torch.Tensor], device: torch.device,
                       workspace: Optional[torch.Tensor]) -> Tuple[List[int], List[torch.Tensor]]:
        """The plan's buffer addresses for one call on ``device``: the
        constants uploaded there, the inputs ``values``, outputs allocated by
        torch, the temporaries at their offsets in ``workspace`` (None when
        the plan has none); returns the addresses and the outputs."""
        addresses = list(self._on_device(device)[0])
        for value, index in zip(values, self._input_indices):
            addresses[index] = value.data_ptr()
        results = []
        for index in self._output_indices:
            buffer = self._buffers[index]
            results.append(torch.empty(buffer.shape, dtype=buffer.dtype, device=device))
            addresses[index] = results[-1].data_ptr()
        if workspace is not None:
            base = workspace.data_ptr()
            for index, offset in self._temps:
                addresses[index] = base + offset
        return addresses, results

    def _launch(self, values: List[torch.Tensor], device: torch.device):
        """Outputs and a zeroed workspace from torch's allocator, the plan's
        launches enqueued on the current stream; returns the outputs."""
        workspace = None
        if self._workspace_bytes:
            # Plans expect zeroed temporaries (the runner's contract).
            workspace = torch.zeros(self._workspace_bytes, dtype=torch.uint8,
                                    device=device)
        addresses, results = self._address_table(values, device, workspace)
        stream = torch.cuda.current_stream(device)
        self._program.enqueue(device.index or 0, addresses, stream.cuda_stream)
        # The workspace goes back to torch's stream-ordered allocator: work
        # enqueued later on this stream is what may reuse it.
        del workspace
        return results

    def _capture(self, values: List[torch.Tensor], device: torch.device):
        """A CUDA graph of the workspace's zeroing and the plan's launches at
        these arguments' addresses, with outputs and a workspace of its own."""
        workspace = torch.empty(max(self._workspace_bytes, 1), dtype=torch.uint8,
                                device=device)
        addresses, results = self._address_table(values, device, workspace)
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream(device)
        stream.wait_stream(torch.cuda.current_stream(device))
        # "relaxed": the enqueue makes the plan's context current, which the
        # stricter modes may refuse while a stream captures.
        with torch.cuda.graph(graph, stream=stream, capture_error_mode="relaxed"):
            if self._workspace_bytes:
                workspace.zero_()
            self._program.enqueue(device.index or 0, addresses, stream.cuda_stream)
        torch.cuda.current_stream(device).wait_stream(stream)
        return graph, results, workspace

    def _replay(self, values: List[torch.Tensor], device: torch.device):
        key = (device, tuple(value.data_ptr() for value in values))
        entry = self._graphs.pop(key, None)
        if entry is None:
            if key not in self._launched:
                # The first call at these addresses launches (and loads the
                # kernels, which a capture may not); the second captures.
                if len(self._launched) > 4 * _MAX_GRAPHS:
                    self._launched.clear()
                self._launched.add(key)
                return self._launch(values, device)
            entry = self._capture(values, device)
        self._graphs[key] = entry  # most recently used last
        while len(self._graphs) > _MAX_GRAPHS:
            self._graphs.pop(next(iter(self._graphs)))
        entry[0].replay()
        return entry[1]

    def __call__(self, *args):
        values = self._arguments(args)
        device = values[0].device if values else torch.device("cuda",
                                                               torch.cuda.current_device())
        results = (self._replay(values, device) if self.cuda_graph
                   else self._launch(values, device))
        if self._updates or self._argument_updates:
            self._write_updates(results, args)
            results = [results[i] for i in self._result_positions]
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self):
        ins = ", ".join(_describe(d, s) for d, s in self.inputs)
        outs = ", ".join(_describe(d, s) for d, s in self.outputs)
        return f"<cuda_agent.CompiledProgram ({ins}) -> ({outs}) from {self.bundle}>"


def load(directory: Union[str, Path], module=None) -> CompiledProgram:
    """The program compile() wrote to ``directory``; ``module`` supplies the
    parameters when it was compiled with ``params="arguments"``."""
    return CompiledProgram(directory, module)


def _work_dir(work_dir) -> Path:
    import tempfile

    directory = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="cuda-agent-"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _lower(exported: _export.Exported, directory: Path, state: List[str], params: str,
           module, agent, verify, db, quiet: bool, options: Dict) -> CompiledProgram:
    verbose = bool(options.pop("verbose", False))
    source = directory / "model.mlir"
    source.write_text(exported.text)
    if verify == "bundle":
        verify = f"bundle:{directory / 'jobs'}"
    lower_options: Dict[str, object] = {"agent": agent, "verify": verify, "db": db}
    lower_options.update(options)
    lower_options.update({"report": str(directory / "report.json"),
                          "bundle": str(directory / "program"), "lower": False})
    (directory / MANIFEST).write_text(json.dumps(
        {"version": _MANIFEST_VERSION, "state": state, "params": params,
         "bundle": "program", "report": "report.json", "source": "model.mlir",
         "updates": [list(update) for update in exported.updates],
         "argument_updates": [list(update) for update in exported.argument_updates]},
        indent=1))
    log = _tools.run_agent_lower(source, lower_options, quiet=quiet, verbose=verbose)
    return CompiledProgram(directory, module if state or exported.updates else None, log)


def compile(module, *example_inputs, agent: Optional[str] = None,
            verify: Optional[str] = None, db: Optional[str] = None,
            params: str = "arguments", work_dir: Optional[Union[str, Path]] = None,
            quiet: bool = False, **options) -> CompiledProgram:
    """Exports ``module`` at ``example_inputs``' shapes and compiles it.

    ``agent``, ``verify``, ``db`` and every other keyword (``replay_dir``,
    ``samples``, ``min_speedup``, ``fusion``, ...) are ``--agent-lower``
    options (docs/agent-lower.md; ``_`` for ``-``; None leaves the tool's
    default). ``verify="bundle"`` writes the verification jobs to
    ``WORK_DIR/jobs`` (the split flow). The program, its report and the MLIR
    go to ``work_dir`` (a new temporary directory by default). The tool's
    per-region lines go to stderr unless ``quiet`` (``verbose=True``: all of
    its output); ``program.log`` keeps everything.
    """
    directory = _work_dir(work_dir)
    exported = _export.export_program(module, *example_inputs, params=params)
    state = (_export.state_names(module)
             if params == "arguments" and isinstance(module, torch.nn.Module) else [])
    return _lower(exported, directory, state, params, module, agent, verify, db,
                  quiet, options)


def compile_mlir(source: Union[str, Path], agent: Optional[str] = None,
                 verify: Optional[str] = None, db: Optional[str] = None,
                 work_dir: Optional[Union[str, Path]] = None, quiet: bool = False,
                 **options) -> CompiledProgram:
    """``compile()`` for a program already in linalg on tensors: ``source`` is
    a path to a .mlir file or the text itself, with one public function."""
    text = Path(source).read_text() if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and Path(source).is_file()) else source
    return _lower(_export.Exported(text, ()), _work_dir(work_dir), [], "constants", None,
                  agent, verify, db, quiet, options)
