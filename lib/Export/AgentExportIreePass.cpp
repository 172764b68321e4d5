//===- AgentExportIreePass.cpp - The agent-export-iree pass ---------------===//
//
// Thin pass wrapper over exportForIree(): writes the IREE form of the module
// (after agent-generate) into a directory and leaves the module unchanged.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/IreeExport.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTEXPORTIREEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentExportIreePass
    : public cuda_agent::impl::AgentExportIreePassBase<AgentExportIreePass> {
  using AgentExportIreePassBase::AgentExportIreePassBase;

  void runOnOperation() override {
    if (dir.empty()) {
      getOperation().emitError("agent-export-iree needs `dir`, the directory "
                               "the IREE module is written to");
      return signalPassFailure();
    }
    if (failed(exportForIree(getOperation(), dir, chip)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
