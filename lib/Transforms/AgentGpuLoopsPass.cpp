//===- AgentGpuLoopsPass.cpp - The agent-gpu-loops pass -------------------===//
//
// Thin pass wrapper over prepareParallelLoopsForGpu().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTGPULOOPSPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentGpuLoopsPass
    : public cuda_agent::impl::AgentGpuLoopsPassBase<AgentGpuLoopsPass> {
  using AgentGpuLoopsPassBase::AgentGpuLoopsPassBase;

  void runOnOperation() override {
    if (failed(prepareParallelLoopsForGpu(getOperation())))
      signalPassFailure();
  }
};
} // namespace
