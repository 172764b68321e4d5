//===- RegionGrouping.h - Which linalg ops share a kernel region -*- C++ -*-===//
//
// The outliner's grouping (RegionGrouping.cpp): each linalg op's class and
// whether it may be part of a region, and the partition of a block's
// eligible ops into regions (elementwise chains fused into their roots,
// reductions over the same rows sharing a pass, a convolution with a
// reduction over its channels, the writers of one concatenation's parts).
// RegionOutliner.cpp outlines the groups.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_REGIONGROUPING_H
#define CUDA_AGENT_OUTLINE_REGIONGROUPING_H

#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::cuda_agent::outline {

/// The role a linalg op plays in grouping.
enum class OpClass { Fill, Elementwise, Reduction, Contraction, Convolution };

/// The class of `op`.
OpClass classify(linalg::LinalgOp op);

/// The kind of kernel an op of class `cls` makes.
KernelKind kindOf(OpClass cls);

/// True for a `tensor.pad` a region computes itself from its source.
bool isFusablePad(Operation *op);

/// True for ops cloned into every region that uses them rather than grouped.
bool isClonable(Operation *op);

/// Whether an op outside `members` (top-level ops of `result`'s block) reads
/// `result`: the result is an output of the region of `members`.
bool isReadOutside(Value result,
                   const llvm::SmallPtrSetImpl<Operation *> &members);

/// A candidate region inside one block.
struct Group {
  SmallVector<Operation *> ops; // In block order.
  SmallVector<OpClass> rootClasses;
  SmallVector<std::string> rowSignatures; // Of reduction roots.
  /// Two products with a softmax between (mergeAttentionChains).
  bool attention = false;
};

/// The op of `group` of class `cls` when it is the group's only root.
linalg::LinalgOp onlyRoot(const Group &group, OpClass cls);

/// Merges each attention among `groups` (cuda-agent/Outline/
/// AttentionChains.h: the group of a product, the group of a softmax over
/// its rows and the group of a product that reads the softmax, with the
/// reshapes between them) into one group, where `isConvex` holds for it and
/// nothing reads its values but its output (AttentionChains.cpp).
void mergeAttentionChains(SmallVectorImpl<Group> &groups,
                          function_ref<bool(ArrayRef<Operation *>)> isConvex);

class BlockGrouper {
public:
  BlockGrouper(Block &block, const OutlineOptions &options)
      : block(block), options(options) {}

  /// Partitions the eligible linalg ops of the block into groups, in order of
  /// their first op.
  SmallVector<Group> run(DenseMap<Operation *, std::string> &reasons);

private:
  bool canMerge(const Group &a, const Group &b) const;
  bool isConvex(ArrayRef<Operation *> ops) const;

  Block &block;
  const OutlineOptions &options;
  DenseMap<Operation *, unsigned> position;
};

} // namespace mlir::cuda_agent::outline

#endif // CUDA_AGENT_OUTLINE_REGIONGROUPING_H
