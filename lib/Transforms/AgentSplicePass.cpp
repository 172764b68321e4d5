//===- AgentSplicePass.cpp - The agent-splice pass ---------------------------===//
//
// Thin pass wrapper over spliceFromAttributes() and spliceFromDirectory().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Splice/KernelSplicer.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTSPLICEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentSplicePass
    : public cuda_agent::impl::AgentSplicePassBase<AgentSplicePass> {
  using AgentSplicePassBase::AgentSplicePassBase;

  void runOnOperation() override {
    if (failed(spliceFromAttributes(getOperation())))
      return signalPassFailure();
    if (!dir.empty() && failed(spliceFromDirectory(getOperation(), dir)))
      signalPassFailure();
  }
};
} // namespace
