//===- MasksAndPositions.cpp - Fold masks and positions into readers ------===//
//
// See MasksAndPositions.h. Upstream's elementwise-fusion patterns would also
// rewrite every other generic (outs dependencies, fills, constants), which
// would change regions that have neither; here only the fusions of masks and
// positions run, one at a time, each consumer replaced as the upstream
// pattern replaces it. A producer with other readers is copied for each
// generic that fuses it, so no fused op yields its tensor.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/MasksAndPositions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Whether `producer` computes its results from the loop indices alone: no
/// inputs, and no init that its body reads.
static bool computesPositions(linalg::GenericOp producer) {
  if (producer.getNumDpsInputs() != 0)
    return false;
  Block &body = producer.getRegion().front();
  return llvm::all_of(body.getArguments(),
                      [](BlockArgument arg) { return arg.use_empty(); });
}

/// The first operand of a generic under `root` that a mask (an i1 tensor) or
/// positions fill from a generic it can fuse with, or null.
static OpOperand *findFusableOperand(Operation *root) {
  OpOperand *found = nullptr;
  root->walk([&](linalg::GenericOp consumer) {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!type || !producer ||
          !(type.getElementType().isInteger(1) ||
            computesPositions(producer)) ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      found = &operand;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// Replaces each `affine.apply` in `fused`'s body that picks one of its
/// operands (a producer's linalg.index remapped through the reader's
/// projection: `(d0, d1) -> (d1)`) by that operand, and erases the indices
/// that nothing reads then. The body writers read linalg.index, not affine
/// maps.
static void foldIndexPicks(RewriterBase &rewriter, linalg::GenericOp fused) {
  SmallVector<affine::AffineApplyOp> applies(
      fused.getRegion().getOps<affine::AffineApplyOp>());
  for (affine::AffineApplyOp apply : applies) {
    AffineMap map = apply.getAffineMap();
    if (map.getNumResults() != 1)
      continue;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(0)))
      rewriter.replaceOp(apply, apply.getOperand(dim.getPosition()));
  }
  SmallVector<linalg::IndexOp> indices(
      fused.getRegion().getOps<linalg::IndexOp>());
  for (linalg::IndexOp index : indices)
    if (index->use_empty())
      rewriter.eraseOp(index);
}

unsigned cuda_agent::fuseMasksAndPositions(Operation *root) {
  IRRewriter rewriter(root->getContext());
  unsigned fusions = 0;
  while (OpOperand *operand = findFusableOperand(root)) {
    auto consumer = cast<linalg::GenericOp>(operand->getOwner());
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    // A producer read elsewhere too keeps its op for those reads; this
    // reader fuses a copy (the fused op would otherwise yield its tensor too).
    if (!producer->hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      operand->set(
          copy->getResult(cast<OpResult>(operand->get()).getResultNumber()));
      producer = cast<linalg::GenericOp>(copy);
    }
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused))
      break; // areElementwiseOpsFusable said yes: not expected
    // Remarks and errors about the fused op point at the reader.
    fused->fusedOp->setLoc(consumer.getLoc());
    foldIndexPicks(rewriter, cast<linalg::GenericOp>(fused->fusedOp));
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        return use.getOwner() != producer.getOperation();
      });
    rewriter.eraseOp(consumer);
    if (producer->use_empty()) {
      SmallVector<Value> inits(producer.getDpsInits());
      rewriter.eraseOp(producer);
      for (Value init : inits)
        if (init.use_empty() && init.getDefiningOp<tensor::EmptyOp>())
          rewriter.eraseOp(init.getDefiningOp());
    }
    ++fusions;
  }
  return fusions;
}

int64_t cuda_agent::loopDimOf(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op))
      return index.getDim();
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::TruncIOp,
             arith::ExtSIOp, arith::ExtUIOp>(op))
      return -1;
    v = op->getOperand(0);
  }
  return -1;
}

bool cuda_agent::isUpTo(arith::CmpIOp cmp, int64_t i, int64_t k) {
  int64_t lhs = loopDimOf(cmp.getLhs()), rhs = loopDimOf(cmp.getRhs());
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge:
    return lhs == i && rhs == k;
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    return lhs == k && rhs == i;
  default:
    return false;
  }
}

std::optional<std::pair<int64_t, int64_t>>
cuda_agent::triangleMaskDims(linalg::GenericOp generic) {
  if (generic->getNumResults() != 1)
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                    : arith::CmpIOp();
  if (!cmp || !select.getFalseValue().getDefiningOp<arith::ConstantOp>())
    return std::nullopt;
  int64_t lhs = loopDimOf(cmp.getLhs()), rhs = loopDimOf(cmp.getRhs());
  if (lhs < 0 || rhs < 0 || lhs == rhs)
    return std::nullopt;
  if (isUpTo(cmp, lhs, rhs))
    return std::make_pair(lhs, rhs);
  if (isUpTo(cmp, rhs, lhs))
    return std::make_pair(rhs, lhs);
  return std::nullopt;
}
