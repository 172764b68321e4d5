//===- AgentParallelLoopsOutwardPass.cpp - agent-parallel-loops-outward ---===//
//
// Thin pass wrapper over moveParallelLoopsOutward().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTPARALLELLOOPSOUTWARDPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentParallelLoopsOutwardPass
    : public cuda_agent::impl::AgentParallelLoopsOutwardPassBase<
          AgentParallelLoopsOutwardPass> {
  using AgentParallelLoopsOutwardPassBase::AgentParallelLoopsOutwardPassBase;

  void runOnOperation() override {
    if (failed(moveParallelLoopsOutward(getOperation())))
      signalPassFailure();
  }
};
} // namespace
