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
    ``(dtype, shape)``; inputs after the module's state), ``state_names``.
    """

    def __init__(self, directory: Union[str, Path], module=None, log: str = ""):
        self.directory = Path(directory)
        manifest_path = self.directory / MANIFEST
        manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
        self.state_names: List[str] = list(manifest.get("state", []))
        self.bundle = _find_bundle(self.directory / manifest.get("bundle", "program"))
        report = self.directory / manifest.get("report", "report.json")
        self.report = json.loads(report.read_text()) if report.is_file() else None
        self.log = log
        self._module = module
        if self.state_names and module is not None:
            missing = set(self.state_names) - set(_export.state_names(module))
            if missing:
                raise ValueError("the module lacks the compiled state "
                                 f"{sorted(missing)}")
        self._program = _runtime().Program(str(self.bundle))
        buffers = [_Buffer(spec) for spec in self._program.buffers]
        inputs: Dict[int, int] = {}
        outputs: Dict[int, int] = {}
        for index, buffer in enumerate(buffers):
            named = {"input": _INPUT_NAME, "output": _OUTPUT_NAME}.get(buffer.role)
            match = named.match(buffer.name) if named else None
            if buffer.role == "temp":
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
        self._temps = []
        offset = 0
        for index, buffer in enumerate(buffers):
            if buffer.role == "temp":
                self._temps.append((index, offset))
                offset += -(-buffer.bytes // _TEMP_ALIGN) * _TEMP_ALIGN
        self._workspace_bytes = offset
        if len(self._input_indices) < len(self.state_names):
            raise ValueError("the plan has fewer inputs than the module has state")

    @property
    def inputs(self) -> List[Tuple[torch.dtype, Tuple[int, ...]]]:
        """The caller's arguments: the plan's inputs after the module state."""
        return [(self._buffers[i].dtype, self._buffers[i].shape)
                for i in self._input_indices[len(self.state_names):]]

    @property
    def outputs(self) -> List[Tuple[torch.dtype, Tuple[int, ...]]]:
        return [(self._buffers[i].dtype, self._buffers[i].shape)
                for i in self._output_indices]

    def _arguments(self, args: Sequence) -> List[torch.Tensor]:
        state: List[torch.Tensor] = []
        if self.state_names:
            if self._module is None:
                raise TypeError("this program was compiled with the module's "
                                "parameters as arguments: load it with module=")
            tensors = dict(self._module.named_parameters())
            tensors.update(self._module.named_buffers())
            state = [tensors[name] for name in self.state_names]
        expected = len(self._input_indices) - len(self.state_names)
        if len(args) != expected:
            raise TypeError(f"cuda_agent: the compiled program takes {expected} "
                            f"tensor argument(s), {len(args)} given")
        values = state + list(args)
        for position, (value, index) in enumerate(zip(values, self._input_indices)):
            buffer = self._buffers[index]
            what = (f"parameter '{self.state_names[position]}'"
                    if position < len(state) else f"argument {position - len(state)}")
            want = _describe(buffer.dtype, buffer.shape)
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"cuda_agent: {what}: expected a tensor {want}, got "
                                f"{type(value).__name__}")
            if value.dtype != buffer.dtype or tuple(value.shape) != buffer.shape:
                raise TypeError(f"cuda_agent: {what}: expected {want}, got "
                                f"{_describe(value.dtype, value.shape)} (the program "
                                "was compiled for these shapes and dtypes)")
        devices = {value.device for value in values}
        if len(devices) != 1 or next(iter(devices)).type != "cuda":
            raise ValueError("cuda_agent: every argument (and parameter) must be on "
                             f"one CUDA device; got {sorted(str(d) for d in devices)}")
        return [value.detach().contiguous() for value in values]

    def __call__(self, *args):
        values = self._arguments(args)
        device = values[0].device if values else torch.device("cuda",
                                                               torch.cuda.current_device())
        addresses = [0] * len(self._buffers)
        for value, index in zip(values, self._input_indices):
            addresses[index] = value.data_ptr()
        results = []
        for index in self._output_indices:
            buffer = self._buffers[index]
            result = torch.empty(buffer.shape, dtype=buffer.dtype, device=device)
            addresses[index] = result.data_ptr()
            results.append(result)
        workspace = None
        if self._workspace_bytes:
            # Plans expect zeroed temporaries (the runner's contract).
            workspace = torch.zeros(self._workspace_bytes, dtype=torch.uint8,
                                    device=device)
            for index, offset in self._temps:
                addresses[index] = workspace.data_ptr() + offset
        stream = torch.cuda.current_stream(device)
        with torch.cuda.device(device):
            self._program.enqueue(device.index or 0, addresses, stream.cuda_stream)
        # The workspace goes back to torch's stream-ordered allocator: work
        # enqueued later on this stream is what may reuse it.
        del workspace
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


def _lower(text: str, directory: Path, state: List[str], params: str, module,
           agent, verify, db, quiet: bool, options: Dict) -> CompiledProgram:
    verbose = bool(options.pop("verbose", False))
    source = directory / "model.mlir"
    source.write_text(text)
    if verify == "bundle":
        verify = f"bundle:{directory / 'jobs'}"
    lower_options: Dict[str, object] = {"agent": agent, "verify": verify, "db": db}
    lower_options.update(options)
    lower_options.update({"report": str(directory / "report.json"),
                          "bundle": str(directory / "program"), "lower": False})
    (directory / MANIFEST).write_text(json.dumps(
        {"version": _MANIFEST_VERSION, "state": state, "params": params,
         "bundle": "program", "report": "report.json", "source": "model.mlir"},
        indent=1))
    log = _tools.run_agent_lower(source, lower_options, quiet=quiet, verbose=verbose)
    return CompiledProgram(directory, module if state else None, log)


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
    text = _export.export(module, *example_inputs, params=params)
    state = (_export.state_names(module)
             if params == "arguments" and isinstance(module, torch.nn.Module) else [])
    return _lower(text, directory, state, params, module, agent, verify, db,
                  quiet, options)


def compile_mlir(source: Union[str, Path], agent: Optional[str] = None,
                 verify: Optional[str] = None, db: Optional[str] = None,
                 work_dir: Optional[Union[str, Path]] = None, quiet: bool = False,
                 **options) -> CompiledProgram:
    """``compile()`` for a program already in linalg on tensors: ``source`` is
    a path to a .mlir file or the text itself, with one public function."""
    text = Path(source).read_text() if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and Path(source).is_file()) else source
    return _lower(text, _work_dir(work_dir), [], "constants", None, agent, verify,
                  db, quiet, options)
