//===- AgentGpuModuleToBinaryPass.cpp - agent-gpu-module-to-binary --------===//
//
// Thin pass wrapper over compileGpuModulesKeepingPtx().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTGPUMODULETOBINARYPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentGpuModuleToBinaryPass
    : public cuda_agent::impl::AgentGpuModuleToBinaryPassBase<
          AgentGpuModuleToBinaryPass> {
  using AgentGpuModuleToBinaryPassBase::AgentGpuModuleToBinaryPassBase;

  void runOnOperation() override {
    if (failed(compileGpuModulesKeepingPtx(getOperation(), toolkit)))
      signalPassFailure();
  }
};
} // namespace
