//===- AgentGeneratePass.cpp - The agent-generate pass --------------------===//
//
// Thin pass wrapper over generateKernels(): the options TableGen bound (from
// GenerateOptions.def) are copied into GenerateOptions, in one place.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Generate/KernelGenerator.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTGENERATEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentGeneratePass
    : public cuda_agent::impl::AgentGeneratePassBase<AgentGeneratePass> {
  using AgentGeneratePassBase::AgentGeneratePassBase;

  /// Each option's value into its GenerateOptions field.
  GenerateOptions getGenerateOptions() const {
    GenerateOptions to;
#define CUDA_AGENT_GENERATE_OPTION(TYPE, MEMBER, FLAG, DEFAULT, HELP, FIELD)   \
  to.FIELD = MEMBER;
#include "cuda-agent/Generate/GenerateOptions.def"
    return to;
  }

  void runOnOperation() override {
    GenerateOptions generate = getGenerateOptions();
    if (failed(generate.parseVerify(getOperation().getLoc())))
      return signalPassFailure();
    if (failed(generateKernels(getOperation(), generate)))
      signalPassFailure();
  }
};
} // namespace
