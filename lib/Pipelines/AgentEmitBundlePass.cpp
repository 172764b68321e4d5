//===- AgentEmitBundlePass.cpp - The agent-emit-bundle pass -----------------===//
//
// Thin pass wrapper over emitBundles(): writes the default lowering of each
// region (or each public function) as a bundle for cuda-agent-run.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/BundleEmitter.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTEMITBUNDLEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentEmitBundlePass
    : public cuda_agent::impl::AgentEmitBundlePassBase<AgentEmitBundlePass> {
  using AgentEmitBundlePassBase::AgentEmitBundlePassBase;

  void runOnOperation() override {
    if (dir.empty()) {
      getOperation().emitError("agent-emit-bundle needs a directory, for "
                               "example --agent-emit-bundle=\"dir=bundles\"");
      return signalPassFailure();
    }
    DefaultLoweringOptions options;
    options.chip = chip;
    options.features = features;
    if (regionsOnly && wholeProgram) {
      getOperation().emitError("regions-only and whole-program exclude each "
                               "other");
      return signalPassFailure();
    }
    BundleScope scope = regionsOnly    ? BundleScope::Regions
                        : wholeProgram ? BundleScope::Programs
                                       : BundleScope::Auto;
    if (failed(emitBundles(getOperation(), dir, options, scope)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
