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
// serial reduction is left.
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

/// How many parallel parts to split a reduction of `extents` into: the
/// largest divisor of the reduction that brings the threads up to
/// kSplitThreads and leaves each part at least kMinSplitPart elements; 1 when
/// the op has enough threads already or its reduction is short.
int64_t splitRatio(Extents extents) {
  if (extents.parallel * kSplitParallelFactor >= kSplitThreads ||
      extents.reduction < kMinSplitReduction)
    return 1;
  int64_t limit = std::min(kSplitThreads / extents.parallel,
                           extents.reduction / kMinSplitPart);
  for (int64_t ratio = limit; ratio > 1; --ratio)
    if (extents.reduction % ratio == 0)
      return ratio;
  return 1;
}

/// Whether splitReduction can take `op` once its reduction loops are one:
/// one output, indexed by parallel loops only (not keepdim's constant 0,
/// which splitReduction mistakes for a loop), whose value is combined by one
/// op with a neutral element, no loop indices read in the body, and the
/// reduction loops consecutive and contiguous in every operand.
bool isSplittable(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      !op.getBody()->getOps<linalg::IndexOp>().empty() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0))
           .isProjectedPermutation())
    return false;
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return false;
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  for (unsigned i = 1; i < dims.size(); ++i)
    if (dims[i] != dims[i - 1] + 1)
      return false;
  ReassociationIndices group(dims.begin(), dims.end());
  return linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group});
}

/// `op` with its reduction loops collapsed into one (the op itself when it
/// has one).
FailureOr<linalg::GenericOp> withOneReduction(linalg::GenericOp op,
                                              RewriterBase &rewriter) {
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  if (dims.size() == 1)
    return op;
  ReassociationIndices group(dims.begin(), dims.end());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {group}, rewriter);
  if (failed(collapsed))
    return failure();
  rewriter.replaceOp(op, collapsed->results);
  if (auto generic =
          dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation()))
    return generic;
  return failure();
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
    if (!extents || splitRatio(*extents) == 1)
      continue;
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic) || !isSplittable(*generic))
      continue;
    FailureOr<linalg::GenericOp> single = withOneReduction(*generic, rewriter);
    if (failed(single))
      continue;
    int64_t ratio = splitRatio(*extents);
    unsigned outputRank =
        cast<ShapedType>(single->getDpsInits().front().getType()).getRank();
    rewriter.setInsertionPoint(*single);
    // The parts interleave (innerParallel): neighbouring threads read
    // neighbouring elements, and the new parallel loop is the last one, the
    // one on threadIdx.x.
    FailureOr<linalg::SplitReductionResult> split = linalg::splitReduction(
        rewriter, *single, [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{ratio, outputRank,
                                               /*innerParallel=*/true};
        });
    if (succeeded(split))
      worklist.push_back(split->resultCombiningLinalgOp);
  }
}
