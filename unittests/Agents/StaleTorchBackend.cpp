//===- StaleTorchBackend.cpp - A torch backend module of another build ----===//
//
// The fixture of TorchBackendTest: a module with agent=torch's entry points
// whose ABI key no build has, standing for a CudaAgentTorchBackend.so left
// from an older one. Its factory must never be called.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

extern "C" const char *cudaAgentTorchBackendAbi(void) {
  return "abi 0, LLVM 0.0.0, sizes 0/0/0/0";
}

extern "C" void *cudaAgentCreateTorchAgent(const char *, const void *) {
  std::abort();
}
