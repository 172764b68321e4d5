//===- AgentExportIree.h - The IREE export in a pipeline ---------*- C++ -*-===//
//
// The agent-export-iree pass with the module before outlining: under
// --agent-lower, a first pass keeps a copy of the pipeline's input, and the
// export checks the preprocessing spec's patterns against it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_EXPORT_AGENTEXPORTIREE_H
#define CUDA_AGENT_EXPORT_AGENTEXPORTIREE_H

#include "cuda-agent/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>

namespace mlir::cuda_agent {

/// The module a pipeline started with, shared by the two passes.
using IreeInputSnapshot = OwningOpRef<ModuleOp>;

/// A pass that copies the module it runs on into `snapshot`.
std::unique_ptr<Pass>
createIreeInputSnapshotPass(std::shared_ptr<IreeInputSnapshot> snapshot);

/// agent-export-iree, its spec checked against `snapshot` (filled by the
/// time it runs).
std::unique_ptr<Pass>
createAgentExportIreePass(const AgentExportIreePassOptions &options,
                          std::shared_ptr<IreeInputSnapshot> snapshot);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_EXPORT_AGENTEXPORTIREE_H
