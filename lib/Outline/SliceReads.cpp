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
#include "cuda-agent/Outline/ScanChains.h"

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

/// A slice read through reshapes: the slice, and the expand_shape and
/// collapse_shape ops between it and the reader, the reader's side first.
struct SliceChain {
  tensor::ExtractSliceOp slice;
  SmallVector<Operation *> reshapes;
};

/// The foldable slice that `value` is, or views through reshapes.
static std::optional<SliceChain> findSliceChain(Value value) {
  SliceChain chain;
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      break;
    if (!cast<ShapedType>(op->getResult(0).getType()).hasStaticShape())
      return std::nullopt;
    chain.reshapes.push_back(op);
    value = op->getOperand(0);
  }
  chain.slice = foldableSlice(value);
  if (!chain.slice)
    return std::nullopt;
  return chain;
}

/// `map`, a read of `reshape`'s result, as a read of its source, or a null
/// map. An expand_shape's source index is the linearized index of its group
/// (`d1 * 32 + d2`); a collapse_shape's is the result index at the group's
/// one dimension of more than one element and 0 at the others (a group of
/// several such dimensions would need divisions: no map).
static AffineMap composeReshapeMap(AffineMap map, Operation *reshape) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> results;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape)) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      AffineExpr index = getAffineConstantExpr(0, ctx);
      for (int64_t d : group)
        index = index * shape[d] + map.getResult(d);
      results.push_back(index);
    }
  } else {
    auto collapse = cast<tensor::CollapseShapeOp>(reshape);
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    for (auto [r, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      if (llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; }) > 1)
        return {};
      for (int64_t d : group)
        results.push_back(shape[d] == 1 ? getAffineConstantExpr(0, ctx)
                                        : map.getResult(r));
    }
  }
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, ctx);
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

/// The read of `chain`'s slice source by a reader that reads the chain's
/// end through `map`, or a null map.
static SliceRead composeChainMap(AffineMap map, const SliceChain &chain) {
  for (Operation *reshape : chain.reshapes) {
    map = composeReshapeMap(map, reshape);
    if (!map)
      return {};
  }
  return composeSliceMap(map, chain.slice);
}

/// True when `op` reads a foldable slice through a map composeChainMap takes.
static bool readsFoldableSlice(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    std::optional<SliceChain> chain = findSliceChain(in->get());
    return chain && composeChainMap(op.getMatchingIndexingMap(in), *chain).map;
  });
}

/// True when `op` is a scan's masked term (ScanChains.h: scanStepTerm) and
/// only the scan steps it is the term of read it: the builtin agent's scan
/// evaluates the term at any map.
static bool isScanTerm(linalg::LinalgOp op) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    auto step = dyn_cast<linalg::GenericOp>(user);
    return step && scanStepTerm(step) == op.getOperation();
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

/// Rewrites each static slice of a static slice that keeps every dimension
/// into one slice of the first's source (offsets add, strides multiply), so
/// that a slice of a slice folds like one slice.
static void mergeSlicesOfSlices(Operation *root, IRRewriter &rewriter) {
  SmallVector<tensor::ExtractSliceOp> outer;
  root->walk([&](tensor::ExtractSliceOp slice) {
    tensor::ExtractSliceOp inner = foldableSlice(slice.getSource());
    if (foldableSlice(slice.getResult()) && inner &&
        inner.getDroppedDims().none())
      outer.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : outer) {
    auto inner = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    SmallVector<int64_t> offsets, strides;
    for (auto [o1, s1, o2, s2] :
         llvm::zip(inner.getStaticOffsets(), inner.getStaticStrides(),
                   slice.getStaticOffsets(), slice.getStaticStrides())) {
      offsets.push_back(o1 + o2 * s1);
      strides.push_back(s1 * s2);
    }
    rewriter.setInsertionPoint(slice);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), inner.getSource(), ValueRange{}, ValueRange{},
        ValueRange{}, offsets, slice.getStaticSizes(), strides);
    if (inner->use_empty())
      rewriter.eraseOp(inner);
  }
}

unsigned cuda_agent::foldSliceReads(Operation *root) {
  IRRewriter rewriter(root->getContext());
  mergeSlicesOfSlices(root, rewriter);
  SmallVector<linalg::LinalgOp> readers;
  root->walk([&](linalg::LinalgOp op) {
    if (isAllParallel(op) && readsFoldableSlice(op) &&
        (staysElementwise(op) || isScanTerm(op)))
      readers.push_back(op);
  });
  unsigned folded = 0;
  // The slices and reshapes read, readers' side first, erased when unread.
  llvm::SetVector<Operation *> slices;
  std::map<std::pair<Operation *, SmallVector<int64_t>>, Value> views;
  for (linalg::LinalgOp op : readers) {
    FailureOr<linalg::GenericOp> asGenericOp = asGeneric(rewriter, op);
    if (failed(asGenericOp))
      continue;
    linalg::GenericOp generic = *asGenericOp;
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      std::optional<SliceChain> chain = findSliceChain(input->get());
      if (!chain)
        continue;
      SliceRead read =
          composeChainMap(maps[input->getOperandNumber()], *chain);
      if (!read.map)
        continue;
      maps[input->getOperandNumber()] = read.map;
      Value source = viewFor(chain->slice, read, rewriter, views);
      rewriter.modifyOpInPlace(generic, [&] { input->set(source); });
      slices.insert(chain->reshapes.begin(), chain->reshapes.end());
      slices.insert(chain->slice);
      ++folded;
    }
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
  SmallVector<Operation *> unread = slices.takeVector();
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : unread)
      if (op && op->use_empty()) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
  }
  return folded;
}

std::optional<PadOfSlice> cuda_agent::padOfSlice(tensor::PadOp pad) {
  tensor::ExtractSliceOp slice = foldableSlice(pad.getSource());
  if (!slice || !pad.getLow().empty() || !pad.getHigh().empty() ||
      slice.getDroppedDims().any() ||
      llvm::any_of(slice.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return std::nullopt;
  PadOfSlice read{slice, {}, {}};
  ArrayRef<int64_t> extents = slice.getSourceType().getShape();
  for (auto [d, extent] : llvm::enumerate(extents)) {
    int64_t offset = slice.getStaticOffsets()[d];
    int64_t after = extent - offset - slice.getStaticSizes()[d];
    int64_t low = pad.getStaticLow()[d], high = pad.getStaticHigh()[d];
    if ((low != 0 && offset != 0) || (high != 0 && after != 0))
      return std::nullopt;
    read.low.push_back(low - offset);
    read.high.push_back(high - after);
  }
  return read;
}

bool cuda_agent::isSliceUnderPads(tensor::ExtractSliceOp slice) {
  return llvm::all_of(slice->getUsers(), [](Operation *user) {
    auto pad = dyn_cast<tensor::PadOp>(user);
    return pad && padOfSlice(pad);
  });
}
