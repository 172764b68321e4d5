//===- BooleanTensors.cpp - Fold i1 tensors into their consumers ----------===//
//
// See BooleanTensors.h. Upstream's elementwise-fusion patterns would also
// rewrite every other generic (outs dependencies, fills, constants), which
// would change regions that have no mask; here only the fusions of i1
// operands run, one at a time, each consumer replaced as the upstream
// pattern replaces it. A mask with other readers is copied for each generic
// that fuses it, so no fused op yields an i1 tensor.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/BooleanTensors.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The first operand of a generic under `root` that an i1 tensor fills from
/// a generic it can fuse with, or null.
static OpOperand *findBooleanOperand(Operation *root) {
  OpOperand *found = nullptr;
  root->walk([&](linalg::GenericOp consumer) {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || !type.getElementType().isInteger(1) ||
          !operand.get().getDefiningOp<linalg::GenericOp>() ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      found = &operand;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

unsigned cuda_agent::fuseBooleanTensors(Operation *root) {
  IRRewriter rewriter(root->getContext());
  unsigned fusions = 0;
  while (OpOperand *operand = findBooleanOperand(root)) {
    auto consumer = cast<linalg::GenericOp>(operand->getOwner());
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    // A mask read elsewhere too keeps its op for those reads; this reader
    // fuses a copy (the fused op would otherwise yield the i1 tensor too).
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
