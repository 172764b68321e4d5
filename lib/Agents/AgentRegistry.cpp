//===- AgentRegistry.cpp - The backends by name ---------------------------===//
//
// The backend table: one row per backend, its `agent=` name and the factory
// that binds its options (its part of AgentConfig, the shared database) and
// creates it; createAgent() looks the name up. Every backend is linked in
// but agent=torch, which its module loader reaches (TorchBackendLoader.cpp).
// docs/adding-an-agent.md walks through adding a row.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/TorchBackend.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

using AgentOrError = llvm::Expected<std::unique_ptr<KernelAgent>>;

// Each backend's factory: its options out of AgentConfig, checked, bound.

AgentOrError createBuiltin(const AgentConfig &) {
  return createBuiltinAgent();
}

AgentOrError createOpenAI(const AgentConfig &config) {
  OpenAIConfig openai = config.openai;
  openai.fewShot.db = config.db;
  return createOpenAIAgent(openai);
}

AgentOrError createTorch(const AgentConfig &config) {
  // Checked before the module is looked for: the option is what is
  // missing, whatever the build.
  if (config.torch.modelPath.empty())
    return llvm::createStringError(
        "agent=torch needs a TorchScript model: torch-model=PATH");
  if (config.torch.tokenizerPath.empty())
    return llvm::createStringError(
        "agent=torch needs the model's tokenizer.json: tokenizer=PATH");
  TorchConfig torch = config.torch;
  torch.fewShot.db = config.db;
  return createTorchAgentFromModule(torch);
}

AgentOrError createReplay(const AgentConfig &config) {
  if (config.replayDir.empty())
    return llvm::createStringError(
        "agent=replay needs a directory of kernels: replay-dir=DIR");
  return createReplayAgent(config.replayDir);
}

AgentOrError createDb(const AgentConfig &config) {
  if (!config.db)
    return llvm::createStringError(
        "agent=db needs a kernel database (db=PATH)");
  return createDbAgent(*config.db, config.cudaVersion);
}

/// The backends: one row each (docs/adding-an-agent.md).
const AgentBackend kBackends[] = {
    {"builtin", createBuiltin}, {"openai", createOpenAI},
    {"torch", createTorch},     {"replay", createReplay},
    {"db", createDb},
};

} // namespace

llvm::ArrayRef<AgentBackend> cuda_agent::getAgentBackends() {
  return kBackends;
}

llvm::ArrayRef<llvm::StringRef> cuda_agent::getAgentNames() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> names;
    for (const AgentBackend &backend : kBackends)
      names.push_back(backend.name);
    return names;
  }();
  return names;
}

llvm::Expected<std::unique_ptr<KernelAgent>>
cuda_agent::createAgent(llvm::StringRef name, const AgentConfig &config) {
  for (const AgentBackend &backend : kBackends)
    if (backend.name == name)
      return backend.create(config);
  std::string known;
  for (llvm::StringRef agentName : getAgentNames())
    known += (known.empty() ? "" : ", ") + agentName.str();
  return llvm::createStringError("unknown agent '%s' (known: %s)",
                                 name.str().c_str(), known.c_str());
}
