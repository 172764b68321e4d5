//===- AttentionChains.cpp - Attention as one region ----------------------===//
//
// See cuda-agent/Outline/AttentionChains.h. Runs on the grouper's groups
// (RegionGrouping.h): a product's group, a softmax's group of row
// reductions that reads it and a product's group that reads the softmax
// become one group, with the reshapes between them (torch-mlir's attention
// multiplies heads x queries as one batch dimension and takes the softmax
// over heads and queries apart: an expand_shape of the scores and a
// collapse_shape of the probabilities).
//
//===----------------------------------------------------------------------===//

#include "RegionGrouping.h"

#include "cuda-agent/Outline/AttentionChains.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace mlir::cuda_agent::outline {

namespace {

/// `value` read through the reshape that defines it, if one does: its
/// source, the reshape going to `views`.
Value throughReshape(Value value, SmallVectorImpl<Operation *> &views) {
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return value;
  views.push_back(def);
  return def->getOperand(0);
}

/// The extents of `product`'s reduced dimension and of its columns, when
/// it is an f32 contraction of one row, column and reduced dimension each.
std::optional<std::pair<int64_t, int64_t>>
productExtents(linalg::LinalgOp product) {
  if (product.getNumDpsInputs() != 2 || product->getNumResults() != 1 ||
      !getElementTypeOrSelf(product->getResult(0).getType()).isF32())
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(product);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = product.getStaticLoopRanges();
  return std::make_pair(ranges[dims->k.front()], ranges[dims->n.front()]);
}

/// Whether the reduction `op`'s body combines with an op of type OpTy.
template <typename OpTy> bool combinesWith(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumReductionLoops() == 1 &&
         llvm::any_of(generic.getRegion().front(),
                      [](Operation &inner) { return isa<OpTy>(inner); });
}

/// The index of the group holding `op`, or -1.
int groupOf(ArrayRef<Group> groups, Operation *op) {
  for (auto [i, g] : llvm::enumerate(groups))
    if (llvm::is_contained(g.ops, op))
      return i;
  return -1;
}

/// Whether every user of `op`'s results is one of `members`.
bool onlyReadBy(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &members) {
  Block *block = op->getBlock();
  for (Operation *user : op->getUsers()) {
    Operation *owner = block->findAncestorOpInBlock(*user);
    if (!owner || !members.contains(owner))
      return false;
  }
  return true;
}

/// Merges the attention whose second product is the root of `groups[c]`
/// into that group, if there is one; returns whether it did.
bool mergeAttentionInto(SmallVectorImpl<Group> &groups, int c,
                        function_ref<bool(ArrayRef<Operation *>)> isConvex) {
  // O = P V: the second product, its first operand the probabilities.
  linalg::LinalgOp second = onlyRoot(groups[c], OpClass::Contraction);
  if (!second)
    return false;
  std::optional<std::pair<int64_t, int64_t>> secondExtents =
      productExtents(second);
  if (!secondExtents || !isAttentionHeadDim(secondExtents->second))
    return false;
  SmallVector<Operation *> views;
  Value probabilities =
      throughReshape(second.getDpsInputOperand(0)->get(), views);
  int b = groupOf(groups, probabilities.getDefiningOp());
  if (b < 0 || b == c)
    return false;
  // The softmax: reductions over the same rows, a max and a sum.
  const Group &softmax = groups[b];
  if (softmax.rootClasses.size() < 2 ||
      !llvm::all_of(softmax.rootClasses,
                    [](OpClass k) { return k == OpClass::Reduction; }) ||
      !llvm::all_equal(softmax.rowSignatures) ||
      !llvm::any_of(softmax.ops, combinesWith<arith::MaximumFOp>) ||
      !llvm::any_of(softmax.ops, combinesWith<arith::AddFOp>))
    return false;
  // The scores: the one computed value the softmax reads from outside.
  int a = -1;
  bool fromOneProduct = true;
  for (Operation *op : softmax.ops)
    for (Value operand : op->getOperands()) {
      SmallVector<Operation *> scoreViews;
      Value source = throughReshape(operand, scoreViews);
      int g = groupOf(groups, source.getDefiningOp());
      if (g < 0 || g == b)
        continue;
      fromOneProduct &= a < 0 || a == g;
      a = g;
      for (Operation *view : scoreViews)
        if (!llvm::is_contained(views, view))
          views.push_back(view);
    }
  if (!fromOneProduct || a < 0 || a == c)
    return false;
  linalg::LinalgOp first = onlyRoot(groups[a], OpClass::Contraction);
  if (!first)
    return false;
  std::optional<std::pair<int64_t, int64_t>> firstExtents =
      productExtents(first);
  if (!firstExtents || !isAttentionHeadDim(firstExtents->first))
    return false;
  // One region: nothing but its output read outside it.
  SmallVector<Operation *> ops(groups[a].ops);
  llvm::append_range(ops, softmax.ops);
  llvm::append_range(ops, groups[c].ops);
  llvm::append_range(ops, views);
  llvm::SmallPtrSet<Operation *, 32> members(ops.begin(), ops.end());
  bool closed = llvm::all_of(ops, [&](Operation *op) {
    return llvm::is_contained(groups[c].ops, op) || onlyReadBy(op, members);
  });
  llvm::sort(ops, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  if (!closed || !isConvex(ops))
    return false;
  Group merged;
  merged.ops = std::move(ops);
  for (int g : {a, b, c}) {
    llvm::append_range(merged.rootClasses, groups[g].rootClasses);
    llvm::append_range(merged.rowSignatures, groups[g].rowSignatures);
  }
  merged.attention = true;
  groups[c] = std::move(merged);
  for (int g : {std::max(a, b), std::min(a, b)})
    groups.erase(groups.begin() + g);
  return true;
}

} // namespace

void mergeAttentionChains(SmallVectorImpl<Group> &groups,
                          function_ref<bool(ArrayRef<Operation *>)> isConvex) {
  for (int c = 0; c < int(groups.size());)
    c = mergeAttentionInto(groups, c, isConvex) ? 0 : c + 1;
}

} // namespace mlir::cuda_agent::outline
