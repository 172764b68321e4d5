//===- KernelAgent.cpp - The agent interface and the backend registry -----===//

#include "cuda-agent/Agents/KernelAgent.h"

using namespace mlir;
using namespace mlir::cuda_agent;

KernelAgent::~KernelAgent() = default;

llvm::ArrayRef<llvm::StringRef> cuda_agent::getAgentNames() {
  static const llvm::StringRef names[] = {"builtin", "openai", "torch",
                                          "replay", "db"};
  return names;
}

llvm::Expected<std::unique_ptr<KernelAgent>>
cuda_agent::createAgent(llvm::StringRef name, const AgentConfig &config) {
  if (name == "replay") {
    if (config.replayDir.empty())
      return llvm::createStringError(
          "agent=replay needs a directory of kernels: replay-dir=DIR");
    return createReplayAgent(config.replayDir);
  }
  if (name == "db") {
    if (!config.db)
      return llvm::createStringError(
          "agent=db needs a kernel database (db=PATH)");
    return createDbAgent(*config.db, config.cudaVersion);
  }
  if (name == "builtin")
    return createBuiltinAgent();
  if (name == "openai")
    return createOpenAIAgent(config.openai);
  if (name == "torch") {
#ifdef CUDA_AGENT_HAVE_TORCH
    if (config.torch.modelPath.empty())
      return llvm::createStringError(
          "agent=torch needs a TorchScript model: torch-model=PATH");
    if (config.torch.tokenizerPath.empty())
      return llvm::createStringError(
          "agent=torch needs the model's tokenizer.json: tokenizer=PATH");
    return createTorchAgent(config.torch);
#else
    return llvm::createStringError(
        "agent=torch is not part of this build (configure with libtorch-dev "
        "installed, or -DCUDA_AGENT_ENABLE_TORCH=ON); use agent=builtin, "
        "openai, replay or db");
#endif
  }
  std::string known;
  for (llvm::StringRef agentName : getAgentNames())
    known += (known.empty() ? "" : ", ") + agentName.str();
  return llvm::createStringError("unknown agent '%s' (known: %s)",
                                 name.str().c_str(), known.c_str());
}
