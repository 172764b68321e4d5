//===- AgentSplicePass.cpp - The agent-splice pass ---------------------------===//
//
// Thin pass wrapper over spliceFromDirectory().
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
    if (dir.empty()) {
      getOperation().emitError("agent-splice needs a directory of verified "
                               "kernels, for example "
                               "--agent-splice=\"dir=verified\"");
      return signalPassFailure();
    }
    if (failed(spliceFromDirectory(getOperation(), dir)))
      signalPassFailure();
  }
};
} // namespace
