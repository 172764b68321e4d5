//===- BundleEmitter.h - Bundles of the default lowering ---------*- C++ -*-===//
//
// Writes the default lowering of each region as a bundle for cuda-agent-run:
// the reference every candidate kernel is verified and timed against.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_PIPELINES_BUNDLEEMITTER_H
#define CUDA_AGENT_PIPELINES_BUNDLEEMITTER_H

#include "cuda-agent/Lowering/LaunchPlan.h"
#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"

namespace mlir::cuda_agent {

/// Lowers every region function of `module` (those with `cuda_agent.region`)
/// with the default pipeline and writes its bundle to DIR/<region hash>/; a
/// module without regions gets one bundle per public function with a body,
/// in DIR/ when there is one such function and DIR/<name>/ otherwise, unless
/// `regionsOnly` is set. The module itself is not changed: each function is
/// lowered on a copy.
LogicalResult emitBundles(ModuleOp module, StringRef dir,
                          const DefaultLoweringOptions &options,
                          bool regionsOnly = false);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_BUNDLEEMITTER_H
