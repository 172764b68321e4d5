//===- SliceReads.cpp - Fold slices into the maps of their readers --------===//
//
// See SliceReads.h. A kept source dimension d of the slice reads
// `r * stride[d] + offset[d]`, where r is the reader's map result for the
// slice's matching dimension; a dimension a rank-reducing slice drops reads
// the constant `offset[d]`.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/SliceReads.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The slice defining `value` when its offsets, sizes and strides are static
/// and its source is a static tensor, else null.
static tensor::ExtractSliceOp foldableSlice(Value value) {
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
      ShapedType::isDynamicShape(slice.getStaticStrides()) ||
      ShapedType::isDynamicShape(slice.getStaticSizes()) ||
      !slice.getSourceType().hasStaticShape())
    return {};
  return slice;
}

/// The outliner's elementwise class (no reduction loop), on tensors.
static bool isAllParallel(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumReductionLoops() == 0;
}

/// True when every user of `op`'s results, through the all-parallel linalg
/// ops after it, is an all-parallel linalg op or no linalg op at all.
static bool staysElementwise(linalg::LinalgOp op) {
  SmallVector<Operation *> work{op};
  llvm::SmallPtrSet<Operation *, 8> seen{op};
  while (!work.empty()) {
    Operation *current = work.pop_back_val();
    for (Operation *user : current->getUsers()) {
      auto linalgUser = dyn_cast<linalg::LinalgOp>(user);
      if (!linalgUser)
        continue;
      if (!isAllParallel(linalgUser))
        return false;
      if (seen.insert(user).second)
        work.push_back(user);
    }
  }
  return true;
}

/// The map through which a reader with input map `map` reads the source of
/// `slice`, or null where linalg cannot take it: a result that stays a bare
/// loop index (offset 0, stride 1) over a dimension the slice shortens would
/// give that loop two sizes.
static AffineMap composeSliceMap(AffineMap map, tensor::ExtractSliceOp slice) {
  MLIRContext *ctx = map.getContext();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
  SmallVector<AffineExpr> results;
  unsigned kept = 0;
  for (auto [d, size] : llvm::enumerate(sourceShape)) {
    AffineExpr offset =
        getAffineConstantExpr(slice.getStaticOffsets()[d], ctx);
    if (dropped.test(d)) {
      results.push_back(offset);
      continue;
    }
    AffineExpr read =
        map.getResult(kept++) * slice.getStaticStrides()[d] + offset;
    if (isa<AffineDimExpr>(read) && slice.getStaticSizes()[d] != size)
      return {};
    results.push_back(read);
  }
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, ctx);
}

/// True when `op` reads a foldable slice through a map composeSliceMap takes.
static bool readsFoldableSlice(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    tensor::ExtractSliceOp slice = foldableSlice(in->get());
    return slice && composeSliceMap(op.getMatchingIndexingMap(in), slice);
  });
}

unsigned cuda_agent::foldSliceReads(Operation *root) {
  SmallVector<linalg::LinalgOp> readers;
  root->walk([&](linalg::LinalgOp op) {
    if (isAllParallel(op) && readsFoldableSlice(op) && staysElementwise(op))
      readers.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  unsigned folded = 0;
  llvm::SetVector<Operation *> slices;
  for (linalg::LinalgOp op : readers) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        continue;
      generic = *generalized;
    }
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      tensor::ExtractSliceOp slice = foldableSlice(input->get());
      AffineMap read =
          slice ? composeSliceMap(maps[input->getOperandNumber()], slice)
                : AffineMap();
      if (!read)
        continue;
      maps[input->getOperandNumber()] = read;
      rewriter.modifyOpInPlace(generic, [&] { input->set(slice.getSource()); });
      slices.insert(slice);
      ++folded;
    }
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
  for (Operation *slice : slices)
    if (slice->use_empty())
      rewriter.eraseOp(slice);
  return folded;
}
