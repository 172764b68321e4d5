//===- AgentPrintPromptPass.cpp - The agent-print-prompt pass
//--------------===//
//
// Prints the first-turn prompt of every region, for tests that pin it.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTPRINTPROMPTPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentPrintPromptPass
    : public cuda_agent::impl::AgentPrintPromptPassBase<AgentPrintPromptPass> {
  using AgentPrintPromptPassBase::AgentPrintPromptPassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kRegionAttrName) || func.isExternal())
        continue;
      FailureOr<KernelTask> task = buildKernelTask(func, chip);
      if (failed(task))
        return signalPassFailure();
      llvm::outs() << "// ===== prompt " << kPromptVersion << " for @"
                   << func.getSymName() << " =====\n";
      for (const ChatMessage &message : renderPrompt(*task, {}))
        llvm::outs() << "// === " << message.role << " ===\n"
                     << message.content << "\n";
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
