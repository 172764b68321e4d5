//===- AgentOutlinePass.cpp - The agent-outline pass ------------------------===//
//
// Thin pass wrapper over outlineRegions().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTOUTLINEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentOutlinePass
    : public cuda_agent::impl::AgentOutlinePassBase<AgentOutlinePass> {
  using AgentOutlinePassBase::AgentOutlinePassBase;

  void runOnOperation() override {
    OutlineOptions options;
    options.fusion = fusion;
    FailureOr<SmallVector<OutlinedRegion>> regions =
        outlineRegions(getOperation(), options);
    if (failed(regions))
      return signalPassFailure();
    if (!remarkRegions)
      return;
    for (OutlinedRegion &region : *regions)
      region.func.emitRemark()
          << "outlined " << stringifyKernelKind(region.kind) << " region @"
          << region.func.getSymName() << ": " << region.flops << " flops, "
          << region.bytes << " bytes, hash " << region.hash;
  }
};
} // namespace
