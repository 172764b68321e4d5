//===- AgentDecomposeAggregatedPass.cpp - agent-decompose-aggregated ------===//
//
// Thin pass wrapper over decomposeAggregatedOps().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTDECOMPOSEAGGREGATEDPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentDecomposeAggregatedPass
    : public cuda_agent::impl::AgentDecomposeAggregatedPassBase<
          AgentDecomposeAggregatedPass> {
  using AgentDecomposeAggregatedPassBase::AgentDecomposeAggregatedPassBase;

  void runOnOperation() override {
    if (failed(decomposeAggregatedOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
