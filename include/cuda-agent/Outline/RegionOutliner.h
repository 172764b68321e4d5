//===- RegionOutliner.h - Kernel region outlining ---------------*- C++ -*-===//
//
// Finds kernel-sized regions of linalg ops on tensors and outlines each into a
// private function carrying a `cuda_agent.region` attribute. This is the first
// step of the agent flow: every later stage (task, agents, verification,
// splice) works on one outlined region at a time.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_REGIONOUTLINER_H
#define CUDA_AGENT_OUTLINE_REGIONOUTLINER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::cuda_agent {

/// Name of the attribute that marks an outlined region function.
constexpr llvm::StringLiteral kRegionAttrName = "cuda_agent.region";

/// How much the outliner fuses around each root op.
enum class FusionMode {
  /// One linalg op per region, with only its fills and empties.
  None,
  /// Also elementwise producers and consumers.
  Elementwise,
  /// Also reductions over the same rows (softmax, layernorm).
  Rows,
};

/// What dominates the work of a region.
enum class KernelKind {
  Elementwise,
  Reduction,
  Contraction,
  Convolution,
  Attention, ///< two products with a softmax between (AttentionChains.h)
  Mixed
};

/// Returns the spelling used in the `kind` field of `cuda_agent.region`.
llvm::StringRef stringifyKernelKind(KernelKind kind);

struct OutlineOptions {
  FusionMode fusion = FusionMode::Rows;
};

/// One outlined region, as recorded in its `cuda_agent.region` attribute.
struct OutlinedRegion {
  func::FuncOp func;
  std::string hash;
  KernelKind kind;
  int64_t flops;
  int64_t bytes;
};

/// Decomposes every aggregated linalg op (`linalg.softmax`, ...) with static
/// tensor operands in `root` into the linalg ops it stands for. Fails only if
/// a decomposition that the op advertises fails.
LogicalResult decomposeAggregatedOps(Operation *root);

/// Outlines the kernel regions of every function in `module` that is not
/// itself an outlined region. Ops left outside any region get a remark that
/// says why. Returns the regions in the order they were created.
FailureOr<SmallVector<OutlinedRegion>>
outlineRegions(ModuleOp module, const OutlineOptions &options);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_REGIONOUTLINER_H
