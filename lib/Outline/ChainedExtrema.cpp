//===- ChainedExtrema.cpp - A max over dims (2, 3) as one reduction -------===//
//
// See ChainedExtrema.h. The merged reduction iterates over the first
// reduction's loops: it reduces the loops that reduction reduced and the
// loops of its result that the second one reduced, and writes the second
// one's init at the loops neither reduced. Its body is the second one's.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/ChainedExtrema.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The combiner of `generic` when it is a reduction of one input into one
/// init by an extremum of the two (`yield maximumf(in, out)`, either
/// order), its input read at the identity and its result written at the
/// parallel loops in order; else null.
static Operation *getExtremum(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() == 0 || !generic.hasPureTensorSemantics())
    return nullptr;
  if (!generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity())
    return nullptr;
  AffineMap outMap =
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  SmallVector<unsigned> parallel;
  generic.getParallelDims(parallel);
  if (outMap.getNumResults() != parallel.size())
    return nullptr;
  for (auto [i, e] : llvm::enumerate(outMap.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != parallel[i])
      return nullptr;
  }
  Block &body = generic.getRegion().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  Operation *op = &body.front();
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op) ||
      body.getTerminator()->getOperand(0) != op->getResult(0))
    return nullptr;
  Value in = body.getArgument(0), out = body.getArgument(1);
  if (!((op->getOperand(0) == in && op->getOperand(1) == out) ||
        (op->getOperand(0) == out && op->getOperand(1) == in)))
    return nullptr;
  return op;
}

/// The constant a fill writes into `init`, or null.
static Attribute getFillValue(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Attribute value;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return {};
  return value;
}

unsigned cuda_agent::mergeChainedExtrema(Operation *root) {
  SmallVector<linalg::GenericOp> outers;
  root->walk([&](linalg::GenericOp g) { outers.push_back(g); });
  unsigned merged = 0;
  for (linalg::GenericOp outer : outers) {
    Operation *outerOp = getExtremum(outer);
    if (!outerOp)
      continue;
    Value chained = outer.getDpsInputOperand(0)->get();
    auto inner = chained.getDefiningOp<linalg::GenericOp>();
    if (!inner || !chained.hasOneUse())
      continue;
    Operation *innerOp = getExtremum(inner);
    Attribute outerFill = getFillValue(outer.getDpsInitOperand(0)->get());
    if (!innerOp || innerOp->getName() != outerOp->getName() || !outerFill ||
        outerFill != getFillValue(inner.getDpsInitOperand(0)->get()))
      continue;
    // The inner loops the outer one reduces: its reduced loops are the
    // inner result's dimensions, which are the inner parallel loops.
    SmallVector<unsigned> innerParallel;
    inner.getParallelDims(innerParallel);
    SmallVector<utils::IteratorType> iterators =
        inner.getIteratorTypesArray();
    for (auto [d, iterator] :
         llvm::enumerate(outer.getIteratorTypesArray()))
      if (iterator != utils::IteratorType::parallel)
        iterators[innerParallel[d]] = utils::IteratorType::reduction;
    SmallVector<AffineExpr> kept;
    MLIRContext *context = root->getContext();
    for (auto [d, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel)
        kept.push_back(getAffineDimExpr(d, context));
    unsigned loops = iterators.size();
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(loops, context),
        AffineMap::get(loops, 0, kept, context)};
    IRRewriter rewriter(outer);
    auto replacement = linalg::GenericOp::create(
        rewriter, outer.getLoc(), outer->getResultTypes(),
        inner.getDpsInputOperand(0)->get(), outer.getDpsInitOperand(0)->get(),
        maps, iterators);
    rewriter.inlineRegionBefore(outer.getRegion(), replacement.getRegion(),
                                replacement.getRegion().end());
    rewriter.replaceOp(outer, replacement->getResults());
    rewriter.eraseOp(inner);
    ++merged;
  }
  return merged;
}
