# The CUDA toolkit prefix every target of this project builds against:
# -DCUDA_AGENT_CUDA_HOME=..., else $CUDA_HOME, else /usr/local/cuda. Shared
# by the NVRTC component and the runner (which also builds on its own).
if(DEFINED ENV{CUDA_HOME})
  set(CUDA_AGENT_CUDA_DEFAULT "$ENV{CUDA_HOME}")
else()
  set(CUDA_AGENT_CUDA_DEFAULT "/usr/local/cuda")
endif()
set(CUDA_AGENT_CUDA_HOME "${CUDA_AGENT_CUDA_DEFAULT}" CACHE PATH
    "CUDA toolkit prefix (include/, lib64/) used for NVRTC and cuda.h.")
