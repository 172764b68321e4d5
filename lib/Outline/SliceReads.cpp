//===- SliceReads.cpp - Fold slices into the maps of their readers --------===//
//
// See SliceReads.h. A kept source dimension d of the slice reads
// `r * stride[d] + offset[d]`, where r is the reader's map result for the
// slice's matching dimension; a dimension a rank-reducing slice drops reads
// the constant `offset[d]`; a dimension whose read would stay a bare loop
// index over fewer elements than the source has is split in a view of the
// source, read at part 0.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/SliceReads.h"
#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

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

/// How a reader reads the source of a slice: through `map`, from the source
/// itself or, where `split` has a nonzero size, from a view of it (an
/// expand_shape) that splits each such source dimension of extent N into
/// (N / size, size).
struct SliceRead {
  AffineMap map;
  SmallVector<int64_t> split;

  bool readsView() const {
    return llvm::any_of(split, [](int64_t size) { return size != 0; });
  }
};

/// The read of `slice`'s source by a reader with input map `map`, or a null
/// map where linalg cannot take it. A result that stays a bare loop index
/// (offset 0, stride 1) over a dimension the slice shortens to `size` would
/// give that loop two sizes: where `size` divides the dimension, the read
/// goes through the split view instead, at part 0 and the loop index (the
/// first of a GLU's halves, the first third of a fused projection); where it
/// does not, there is no read.
static SliceRead composeSliceMap(AffineMap map, tensor::ExtractSliceOp slice) {
  MLIRContext *ctx = map.getContext();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
  SliceRead read;
  read.split.assign(sourceShape.size(), 0);
  SmallVector<AffineExpr> results;
  unsigned kept = 0;
  for (auto [d, extent] : llvm::enumerate(sourceShape)) {
    AffineExpr offset =
        getAffineConstantExpr(slice.getStaticOffsets()[d], ctx);
    if (dropped.test(d)) {
      results.push_back(offset);
      continue;
    }
    AffineExpr index =
        map.getResult(kept++) * slice.getStaticStrides()[d] + offset;
    int64_t size = slice.getStaticSizes()[d];
    if (isa<AffineDimExpr>(index) && size != extent) {
      if (extent % size != 0)
        return {};
      read.split[d] = size;
      results.push_back(getAffineConstantExpr(0, ctx));
    }
    results.push_back(index);
  }
  read.map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                            ctx);
  return read;
}

/// True when `op` reads a foldable slice through a map composeSliceMap takes.
static bool readsFoldableSlice(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    tensor::ExtractSliceOp slice = foldableSlice(in->get());
    return slice && composeSliceMap(op.getMatchingIndexingMap(in), slice).map;
  });
}

/// The view of `slice`'s source that `read` reads: the source, or its
/// expand_shape by `read.split`, built once per slice and split (after the
/// slice, so that it dominates every reader of the slice).
static Value viewFor(tensor::ExtractSliceOp slice, const SliceRead &read,
                     IRRewriter &rewriter,
                     std::map<std::pair<Operation *, SmallVector<int64_t>>,
                              Value> &views) {
  if (!read.readsView())
    return slice.getSource();
  Value &view = views[{slice.getOperation(), read.split}];
  if (view)
    return view;
  RankedTensorType source = slice.getSourceType();
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (auto [extent, size] : llvm::zip(source.getShape(), read.split)) {
    ReassociationIndices group{static_cast<int64_t>(shape.size())};
    if (size != 0) {
      shape.push_back(extent / size);
      group.push_back(shape.size());
      shape.push_back(size);
    } else {
      shape.push_back(extent);
    }
    groups.push_back(group);
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfter(slice);
  view = tensor::ExpandShapeOp::create(rewriter, slice.getLoc(),
                                       source.clone(shape), slice.getSource(),
                                       groups);
  return view;
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
  std::map<std::pair<Operation *, SmallVector<int64_t>>, Value> views;
  for (linalg::LinalgOp op : readers) {
    FailureOr<linalg::GenericOp> asGenericOp = asGeneric(rewriter, op);
    if (failed(asGenericOp))
      continue;
    linalg::GenericOp generic = *asGenericOp;
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      tensor::ExtractSliceOp slice = foldableSlice(input->get());
      if (!slice)
        continue;
      SliceRead read = composeSliceMap(maps[input->getOperandNumber()], slice);
      if (!read.map)
        continue;
      maps[input->getOperandNumber()] = read.map;
      Value source = viewFor(slice, read, rewriter, views);
      rewriter.modifyOpInPlace(generic, [&] { input->set(source); });
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
