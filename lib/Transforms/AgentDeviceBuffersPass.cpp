//===- AgentDeviceBuffersPass.cpp - The agent-device-buffers pass ---------===//
//
// Thin pass wrapper over moveHostBuffersToDevice().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTDEVICEBUFFERSPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentDeviceBuffersPass
    : public cuda_agent::impl::AgentDeviceBuffersPassBase<
          AgentDeviceBuffersPass> {
  using AgentDeviceBuffersPassBase::AgentDeviceBuffersPassBase;

  void runOnOperation() override {
    if (failed(moveHostBuffersToDevice(getOperation())))
      signalPassFailure();
  }
};
} // namespace
