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

/// Lowers a copy of `func` (a region or a public function on tensors, or a
/// spliced region) with the default pipeline, stopping with the host in gpu
/// ops, and returns its launch plan, with the tensor-level source as a
/// public `@region` when `func` is on tensors. The module is not changed.
FailureOr<LaunchPlan> lowerToLaunchPlan(func::FuncOp func,
                                        const DefaultLoweringOptions &options);

/// Which functions get bundles.
enum class BundleScope {
  /// The regions; the public functions when there is no region.
  Auto,
  /// The regions only.
  Regions,
  /// The public functions only, whole programs with the regions they call
  /// (spliced or lowered the default way).
  Programs,
};

/// Lowers every region function of `module` (those with `cuda_agent.region`)
/// with the default pipeline and writes its bundle to DIR/<region hash>/, or
/// the public functions with a body, in DIR/ when there is one such function
/// and DIR/<name>/ otherwise, as `scope` says. The module itself is not
/// changed: each function is lowered on a copy.
LogicalResult emitBundles(ModuleOp module, StringRef dir,
                          const DefaultLoweringOptions &options,
                          BundleScope scope = BundleScope::Auto);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_BUNDLEEMITTER_H
