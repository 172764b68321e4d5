//===- TorchBackend.cpp - The entry points of the agent=torch module ------===//
//
// CudaAgentTorchBackend.so: TorchAgent and everything it needs (CudaAgentTorch,
// libtorch) behind two extern "C" functions, the only symbols the module
// exports (TorchBackend.map). createAgent() loads it when agent=torch is
// asked for (TorchBackend.h).
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/TorchBackend.h"

#include <cstring>

using namespace mlir;
using namespace mlir::cuda_agent;

extern "C" const char *cudaAgentTorchBackendAbi(void) {
  static const std::string abi = getTorchBackendAbi();
  return abi.c_str();
}

extern "C" KernelAgent *cudaAgentCreateTorchAgent(const char *abi,
                                                  const TorchConfig *config) {
  // The loader compared the keys already; a caller that did not gets null
  // rather than an object it would read with another layout.
  if (!abi || !config || std::strcmp(abi, cudaAgentTorchBackendAbi()) != 0)
    return nullptr;
  return createTorchAgent(*config).release();
}
