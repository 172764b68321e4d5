//===- RewritePasses.cpp - Passes that apply one rewrite function ---------===//
//
// The passes without options that are thin wrappers over one reusable
// function of a component library: each applies its function to the
// operation it runs on and fails when the function does.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTDECOMPOSEAGGREGATEDPASS
#define GEN_PASS_DEF_AGENTDEVICEBUFFERSPASS
#define GEN_PASS_DEF_AGENTGPULOOPSPASS
#define GEN_PASS_DEF_AGENTPARALLELLOOPSOUTWARDPASS
#define GEN_PASS_DEF_AGENTREADONLYARGUMENTSPASS
#define GEN_PASS_DEF_AGENTSPLITLONGREDUCTIONSPASS
#define GEN_PASS_DEF_AGENTSTRIDEDCOPIESPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
/// A pass generated as `GeneratedBase` whose work is `Derived::rewrite`
/// applied to the operation it runs on.
template <typename Derived, template <typename> class GeneratedBase>
struct RewritePass : public GeneratedBase<Derived> {
  void runOnOperation() override {
    if (failed(Derived::rewrite(this->getOperation())))
      this->signalPassFailure();
  }
};

struct AgentDecomposeAggregatedPass
    : RewritePass<AgentDecomposeAggregatedPass,
                  cuda_agent::impl::AgentDecomposeAggregatedPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    return decomposeAggregatedOps(f);
  }
};
struct AgentDeviceBuffersPass
    : RewritePass<AgentDeviceBuffersPass, cuda_agent::impl::AgentDeviceBuffersPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    return moveHostBuffersToDevice(f);
  }
};
struct AgentGpuLoopsPass
    : RewritePass<AgentGpuLoopsPass, cuda_agent::impl::AgentGpuLoopsPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    return prepareParallelLoopsForGpu(f);
  }
};
struct AgentSplitLongReductionsPass
    : RewritePass<AgentSplitLongReductionsPass,
                  cuda_agent::impl::AgentSplitLongReductionsPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    splitLongReductions(f);
    return success();
  }
};
struct AgentStridedCopiesPass
    : RewritePass<AgentStridedCopiesPass,
                  cuda_agent::impl::AgentStridedCopiesPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    lowerStridedCopies(f);
    return success();
  }
};
struct AgentParallelLoopsOutwardPass
    : RewritePass<AgentParallelLoopsOutwardPass,
                  cuda_agent::impl::AgentParallelLoopsOutwardPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    return moveParallelLoopsOutward(f);
  }
};
struct AgentReadOnlyArgumentsPass
    : RewritePass<AgentReadOnlyArgumentsPass,
                  cuda_agent::impl::AgentReadOnlyArgumentsPassBase> {
  static LogicalResult rewrite(func::FuncOp f) {
    markArgumentsReadOnly(f);
    return success();
  }
};
} // namespace
