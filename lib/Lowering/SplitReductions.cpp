//===- SplitReductions.cpp - Long reductions in parallel parts -------------===//
//
// The default lowering maps the parallel loops of a linalg op to threads and
// runs its reductions inside each thread. An op with few outputs and a long
// reduction (a loss: every element summed into a scalar; a layer norm over
// 16 rows of 4M) then runs on a handful of threads, each reading millions of
// elements one after another: seconds per call at KernelBench sizes, which
// makes the verifier's reference, and every program that keeps the default
// kernel, that slow. splitLongReductions splits such a reduction with
// upstream's linalg::splitReduction into partial results computed in
// parallel and a reduction of the partials, again and again until no long
// serial reduction is left; an op whose reduction loops do not collapse into
// one (a batch norm's, around its channels), which upstream's refuses, by
// splitOneReduction, the same rewrite at its innermost reduction loop.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The reduction extent, product of the reduction loops, and the parallel
/// extent, product of the others; nullopt when a loop is dynamic.
struct Extents {
  int64_t parallel = 1;
  int64_t reduction = 1;
};

std::optional<Extents> extentsOf(linalg::LinalgOp op) {
  Extents extents;
  for (auto [range, iterator] :
       llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    (linalg::isReductionIterator(iterator) ? extents.reduction
                                           : extents.parallel) *= range;
  }
  return extents;
}

/// Whether an op of `extents` is split at all: some outputs but fewer than
/// kSplitThreads / kSplitParallelFactor, a reduction of at least
/// kMinSplitReduction elements.
bool needsSplit(Extents extents) {
  return extents.parallel > 0 &&
         extents.parallel * kSplitParallelFactor < kSplitThreads &&
         extents.reduction >= kMinSplitReduction;
}

/// How many parallel parts to split the reduction loop of `extent` of an op
/// of `extents` into: the largest divisor of `extent` that brings the
/// threads up to kSplitThreads and leaves each part at least kMinSplitPart
/// elements of the whole reduction; 1 when there is none.
int64_t splitRatio(Extents extents, int64_t extent) {
  int64_t limit = std::min(kSplitThreads / extents.parallel,
                           extents.reduction / kMinSplitPart);
  for (int64_t ratio = std::min(limit, extent); ratio > 1; --ratio)
    if (extent % ratio == 0)
      return ratio;
  return 1;
}

/// The combining op of `op`'s one output (one op with a neutral element), or
/// null.
Operation *combinerOf(linalg::GenericOp op) {
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return nullptr;
  return combiners.front();
}

/// Whether `op` can be split: one output, indexed by parallel loops only
/// (not keepdim's constant 0, which splitReduction mistakes for a loop),
/// whose value is combined by one op with a neutral element, and no loop
/// indices read in the body.
bool isSplittable(linalg::GenericOp op) {
  return op.getNumDpsInits() == 1 && op.hasPureTensorSemantics() &&
         op.getBody()->getOps<linalg::IndexOp>().empty() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0))
             .isProjectedPermutation() &&
         combinerOf(op);
}

/// `op` with its reduction loops collapsed into one where they are
/// consecutive and contiguous in every operand (a loss over every element,
/// a norm over the last dimensions); else with only its trailing run of
/// reduction loops collapsed where that can be (a batch norm's h and w,
/// around its channels); else `op` itself.
linalg::GenericOp collapseReductions(linalg::GenericOp op,
                                     RewriterBase &rewriter) {
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  // All of them when they are one consecutive run; else the trailing run.
  unsigned first = dims.size() - 1;
  while (first > 0 && dims[first - 1] + 1 == dims[first])
    --first;
  ReassociationIndices group(dims.begin() + first, dims.end());
  if (group.size() < 2 ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {group}, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.replaceOp(op, collapsed->results);
  return cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}

/// Whether every input of `op` reads loop `dim`, if at all, as one whole
/// dimension of its own (which an expand_shape can split).
bool readsAsWholeDimension(linalg::GenericOp op, unsigned dim) {
  AffineExpr loop = getAffineDimExpr(dim, op.getContext());
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    return llvm::count_if(map.getResults(), [&](AffineExpr e) {
             return e.isFunctionOfDim(dim);
           }) <= 1 &&
           llvm::all_of(map.getResults(), [&](AffineExpr e) {
             return !e.isFunctionOfDim(dim) || e == loop;
           });
  });
}

/// splitReduction for an op with several reduction loops (which upstream's
/// refuses): loop `dim` becomes (dim, s), `dim` * `ratio` + s, with s a new
/// parallel loop, the last; the inputs that read `dim` are expanded to match;
/// the partials, one per output element and s, are reduced by a second op
/// into the original init. Returns that second op.
linalg::GenericOp splitOneReduction(linalg::GenericOp op, unsigned dim,
                                    int64_t ratio, RewriterBase &rewriter) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops();
  int64_t extent = op.getStaticLoopRanges()[dim];
  AffineExpr outer = getAffineDimExpr(dim, ctx);
  AffineExpr part = getAffineDimExpr(loops, ctx);
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    SmallVector<AffineExpr> results;
    for (auto [position, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(input).getResults())) {
      results.push_back(expr);
      if (expr != outer)
        continue;
      results.push_back(part);
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape[position] = extent / ratio;
      shape.insert(shape.begin() + position + 1, ratio);
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0, j = 0; i < type.getRank(); ++i) {
        if (i == int64_t(position)) {
          groups.push_back({j, j + 1});
          j += 2;
        } else {
          groups.push_back({j++});
        }
      }
      value = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
          value, groups);
    }
    inputs.push_back(value);
    maps.push_back(AffineMap::get(loops + 1, 0, results, ctx));
  }
  Value init = op.getDpsInits().front();
  auto initType = cast<RankedTensorType>(init.getType());
  Operation *combiner = combinerOf(op);
  SmallVector<int64_t> partialShape(initType.getShape());
  partialShape.push_back(ratio);
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, *arith::getNeutralElement(combiner));
  Value partialInit =
      linalg::FillOp::create(
          rewriter, loc, neutral,
          tensor::EmptyOp::create(rewriter, loc, partialShape,
                                  initType.getElementType())
              .getResult())
          .getResult(0);
  SmallVector<AffineExpr> outResults(
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults());
  outResults.push_back(part);
  maps.push_back(AffineMap::get(loops + 1, 0, outResults, ctx));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto partials = linalg::GenericOp::create(
      rewriter, loc, TypeRange{partialInit.getType()}, inputs,
      ValueRange{partialInit}, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), partials.getRegion(),
                             partials.getRegion().begin());

  // The partials' reduction, by the same combiner.
  unsigned rank = initType.getRank();
  SmallVector<AffineExpr> kept;
  for (unsigned i = 0; i < rank; ++i)
    kept.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> finalMaps = {
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx),
      AffineMap::get(rank + 1, 0, kept, ctx)};
  SmallVector<utils::IteratorType> finalIterators(rank,
                                                  utils::IteratorType::parallel);
  finalIterators.push_back(utils::IteratorType::reduction);
  Value accumulator = op.getRegionOutputArgs().front();
  auto combine = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType}, partials.getResults(),
      ValueRange{init}, finalMaps, finalIterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping mapping;
        for (Value operand : combiner->getOperands())
          mapping.map(operand, operand == accumulator ? args[1] : args[0]);
        linalg::YieldOp::create(b, l, b.clone(*combiner, mapping)->getResults());
      });
  rewriter.replaceOp(op, combine.getResults());
  return combine;
}

} // namespace

void cuda_agent::splitLongReductions(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<linalg::LinalgOp> worklist;
  func.walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() > 0)
      worklist.push_back(op);
  });
  while (!worklist.empty()) {
    linalg::LinalgOp op = worklist.pop_back_val();
    std::optional<Extents> extents = extentsOf(op);
    if (!extents || !needsSplit(*extents))
      continue;
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic) || !isSplittable(*generic))
      continue;
    linalg::GenericOp collapsed = collapseReductions(*generic, rewriter);
    SmallVector<unsigned> dims;
    collapsed.getReductionDims(dims);
    // The innermost reduction loop: the parts of neighbouring threads are
    // neighbouring elements.
    unsigned dim = dims.back();
    int64_t ratio =
        splitRatio(*extents, collapsed.getStaticLoopRanges()[dim]);
    if (ratio == 1)
      continue;
    if (dims.size() > 1) {
      if (readsAsWholeDimension(collapsed, dim))
        worklist.push_back(splitOneReduction(collapsed, dim, ratio, rewriter));
      continue;
    }
    unsigned outputRank =
        cast<ShapedType>(collapsed.getDpsInits().front().getType()).getRank();
    rewriter.setInsertionPoint(collapsed);
    // The parts interleave (innerParallel): neighbouring threads read
    // neighbouring elements, and the new parallel loop is the last one, the
    // one on threadIdx.x.
    FailureOr<linalg::SplitReductionResult> split = linalg::splitReduction(
        rewriter, collapsed, [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{ratio, outputRank,
                                               /*innerParallel=*/true};
        });
    if (succeeded(split))
      worklist.push_back(split->resultCombiningLinalgOp);
  }
}
