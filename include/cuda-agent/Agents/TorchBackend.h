//===- TorchBackend.h - agent=torch's module, loaded on demand --*- C++ -*-===//
//
// agent=torch links libtorch, which takes half a second to load: it is built
// as a separate module (CudaAgentTorchBackend.so, in the build's lib/) that
// createAgent() loads only when agent=torch is asked for, so cuda-agent-opt,
// the mlir-opt plugin and the other tools never load libtorch otherwise.
//
// The module and the tool pass C++ objects (TorchConfig, KernelAgent,
// KernelTask, Candidate, llvm::Error) to each other: both must be built from
// the same headers against the same libMLIR.so/libLLVM.so. The module says
// which with getTorchBackendAbi(); a module whose key is not the tool's own
// is refused, not called.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_TORCHBACKEND_H
#define CUDA_AGENT_AGENTS_TORCHBACKEND_H

#include "cuda-agent/Agents/KernelAgent.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace mlir::cuda_agent {

/// The module's file name; createAgent() looks for it in the `lib/` beside
/// the directory of the running tool (or of the plugin), then in the build
/// tree it was configured in.
constexpr llvm::StringLiteral kTorchBackendFileName =
    "CudaAgentTorchBackend.so";

/// The environment variable naming the module to load instead, e.g.
/// `CUDA_AGENT_TORCH_BACKEND=/opt/cuda-agent/lib/CudaAgentTorchBackend.so`.
constexpr llvm::StringLiteral kTorchBackendEnv = "CUDA_AGENT_TORCH_BACKEND";

/// Bumped when what crosses the boundary changes in a way the sizes in
/// getTorchBackendAbi() do not show (a virtual function of KernelAgent, the
/// meaning of a field, the entry points below).
constexpr unsigned kTorchBackendAbiVersion = 1;

/// The key a module and the tool loading it must share, e.g. `abi 1, LLVM
/// 22.1.8, sizes 112/152/224/288`. Computed where it is compiled: the tool
/// and the module each carry their own.
inline std::string getTorchBackendAbi() {
  return llvm::formatv("abi {0}, LLVM {1}, sizes {2}/{3}/{4}/{5}",
                       kTorchBackendAbiVersion, LLVM_VERSION_STRING,
                       sizeof(TorchConfig), sizeof(KernelTask),
                       sizeof(Candidate), sizeof(Attempt))
      .str();
}

/// agent=torch through its module: found ($CUDA_AGENT_TORCH_BACKEND, else
/// the candidates above), loaded once per path, its key checked, asked for
/// the agent. Fails with a message naming the path and what went wrong.
llvm::Expected<std::unique_ptr<KernelAgent>>
createTorchAgentFromModule(const TorchConfig &config);

} // namespace mlir::cuda_agent

/// The module's two entry points, looked up by name with dlsym.
extern "C" {
/// The module's getTorchBackendAbi(), valid while the module is loaded.
const char *cudaAgentTorchBackendAbi(void);
/// createTorchAgent(*config), owned by the caller (delete it through the
/// KernelAgent). Null when `abi` is not the module's own key.
mlir::cuda_agent::KernelAgent *
cudaAgentCreateTorchAgent(const char *abi,
                          const mlir::cuda_agent::TorchConfig *config);
}

#endif // CUDA_AGENT_AGENTS_TORCHBACKEND_H
