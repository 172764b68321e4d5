# -*- Python -*-
# lit configuration for cuda-agent-opt. Tests mirror lib/. A test that needs a
# GPU says `REQUIRES: cuda-gpu` (test/Runner/verify-gpu.test): the feature is
# set when `cuda-agent-run --probe` finds one, and lit marks the test
# UNSUPPORTED otherwise.
import json
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "cuda-agent"
config.test_format = lit.formats.ShTest(not lit_config.debug)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cuda_agent_obj_root, "test")

# Every capture in a CHECK-LABEL block is local to it.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%cuda_agent_lib", config.cuda_agent_lib_dir))
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%python", sys.executable))

# The NVVM target finds libdevice (needed by kernels that call expf, rsqrtf,
# fmaxf, ...) through $CUDA_HOME; lit does not pass the environment on.
config.environment["CUDA_HOME"] = os.environ.get("CUDA_HOME", "/usr/local/cuda")
config.environment["PATH"] = os.pathsep.join(
    [config.cuda_agent_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])


def probe_gpu():
    """Asks the MLIR-free runner what this machine has.

    The runner prints {"gpu": bool, "arch": "sm_90", ...}; without a runner
    (not built yet) the machine counts as having no GPU.
    """
    runner = os.path.join(config.cuda_agent_tools_dir, "cuda-agent-run")
    if not os.path.exists(runner):
        return {}
    try:
        out = subprocess.run([runner, "--probe"], capture_output=True, text=True, timeout=60)
        return json.loads(out.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def has_nvrtc():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return any(os.path.exists(os.path.join(cuda, d, "libnvrtc.so"))
               for d in ("lib64", "lib", "targets/x86_64-linux/lib"))


probe = probe_gpu()
if probe.get("gpu"):
    config.available_features.add("cuda-gpu")
    if probe.get("arch"):
        config.available_features.add(probe["arch"])
if has_nvrtc():
    config.available_features.add("nvrtc")
if os.path.exists(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
    config.available_features.add("nvcc")
# agent=torch is built (CMake found libtorch): its tests run.
if config.cuda_agent_have_torch.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("torch")
# A host clang++ with C++20 (std::barrier): kernels emulated on the CPU.
if os.path.exists(os.path.join(config.llvm_tools_dir, "clang")):
    config.available_features.add("host-clang")
# IREE's compiler (pip install iree-base-compiler==3.13.0, as CI does): the
# IREE export's modules are compiled for CUDA (test/Export).
if shutil.which("iree-compile", path=config.environment["PATH"]):
    config.available_features.add("iree-compile")
if subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True).returncode == 0:
    config.available_features.add("numpy")

# The default kernel database lives under $XDG_CACHE_HOME: keep tests out of
# the user's.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")
config.substitutions.append(("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples")))
