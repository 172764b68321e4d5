//===- AgentExportIreePass.cpp - The agent-export-iree pass ---------------===//
//
// Thin pass wrapper over exportForIree(): writes the IREE form of the module
// (after agent-generate) into a directory and leaves the module unchanged.
// The preprocessing spec is checked against the module before outlining:
// under --agent-lower a first pass keeps a copy of the pipeline's input
// (createIreeInputSnapshotPass), otherwise the pass reads `input`.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/AgentExportIree.h"
#include "cuda-agent/Export/IreeExport.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

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

  AgentExportIreePass(const AgentExportIreePassOptions &options,
                      std::shared_ptr<IreeInputSnapshot> snapshot)
      : AgentExportIreePassBase(options), snapshot(std::move(snapshot)) {}

  void runOnOperation() override {
    if (dir.empty()) {
      getOperation().emitError("agent-export-iree needs `dir`, the directory "
                               "the IREE module is written to");
      return signalPassFailure();
    }
    OwningOpRef<ModuleOp> read;
    ModuleOp inputModule = snapshot && *snapshot ? snapshot->get() : ModuleOp();
    if (!input.empty()) {
      llvm::SourceMgr sources;
      read = parseSourceFile<ModuleOp>(input, sources, &getContext());
      if (!read) {
        getOperation().emitError("agent-export-iree: cannot read the input "
                                 "module '")
            << input << "'";
        return signalPassFailure();
      }
      inputModule = *read;
    }
    if (failed(exportForIree(getOperation(), dir, chip, inputModule)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  std::shared_ptr<IreeInputSnapshot> snapshot;
};

/// Keeps a copy of the module it runs on, the pipeline's input.
struct IreeInputSnapshotPass
    : public PassWrapper<IreeInputSnapshotPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(IreeInputSnapshotPass)

  explicit IreeInputSnapshotPass(std::shared_ptr<IreeInputSnapshot> snapshot)
      : snapshot(std::move(snapshot)) {}

  StringRef getArgument() const override { return "agent-iree-input-snapshot"; }
  StringRef getDescription() const override {
    return "Keep a copy of the module for the IREE export's spec";
  }

  void runOnOperation() override {
    *snapshot = OwningOpRef<ModuleOp>(getOperation().clone());
    markAllAnalysesPreserved();
  }

  std::shared_ptr<IreeInputSnapshot> snapshot;
};
} // namespace

std::unique_ptr<Pass> cuda_agent::createIreeInputSnapshotPass(
    std::shared_ptr<IreeInputSnapshot> snapshot) {
  return std::make_unique<IreeInputSnapshotPass>(std::move(snapshot));
}

std::unique_ptr<Pass> cuda_agent::createAgentExportIreePass(
    const AgentExportIreePassOptions &options,
    std::shared_ptr<IreeInputSnapshot> snapshot) {
  return std::make_unique<AgentExportIreePass>(options, std::move(snapshot));
}
