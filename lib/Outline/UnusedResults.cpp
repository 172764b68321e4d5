//===- UnusedResults.cpp - Erase unused linalg results ----------*- C++ -*-===//
//
// See UnusedResults.h. Upstream's erase-unused-operands-and-results patterns
// keep a dead result whose `out` block argument the body reads, which is the
// argmax of a max reduction (select(cmp, index, out)); here the body ops that
// only feed the dead result are erased with it, so its accumulator goes too.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/UnusedResults.h"
#include "cuda-agent/Outline/DeadProducers.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Returns true when result `index` of `op` can go with the body ops that
/// only compute it: its `out` block argument feeds nothing another result
/// needs.
static bool canEraseResult(linalg::GenericOp op, unsigned index) {
  Block &body = op.getRegion().front();
  Operation *yield = body.getTerminator();
  llvm::SmallPtrSet<Operation *, 8> dead;
  auto onlyFeedsDead = [&](Value value) {
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield ? use.getOperandNumber() != index
                        : !dead.contains(user))
        return false;
    }
    return true;
  };
  // Users come after their operands in the body: one reverse sweep.
  for (Operation &inner : llvm::reverse(body.without_terminator()))
    if (isPure(&inner) && llvm::all_of(inner.getResults(), onlyFeedsDead))
      dead.insert(&inner);
  return onlyFeedsDead(body.getArgument(op.getNumDpsInputs() + index));
}

/// Rebuilds `op` without its results in `erased`, returns the new op.
static linalg::GenericOp dropResults(linalg::GenericOp op,
                                     ArrayRef<unsigned> erased,
                                     IRRewriter &rewriter) {
  unsigned numInputs = op.getNumDpsInputs();
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<AffineMap> allMaps = op.getIndexingMapsArray();
  SmallVector<AffineMap> maps(allMaps.begin(), allMaps.begin() + numInputs);
  for (auto [index, init] : llvm::enumerate(op.getDpsInits())) {
    if (llvm::is_contained(erased, index))
      continue;
    inits.push_back(init);
    types.push_back(op->getResult(index).getType());
    maps.push_back(allMaps[numInputs + index]);
  }
  rewriter.setInsertionPoint(op);
  auto generic = linalg::GenericOp::create(
      rewriter, op.getLoc(), types, op.getDpsInputs(), inits, maps,
      op.getIteratorTypesArray());
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  Block &body = generic.getRegion().front();
  Operation *yield = body.getTerminator();
  SmallVector<Value> yielded;
  for (auto [index, value] : llvm::enumerate(yield->getOperands()))
    if (!llvm::is_contained(erased, index))
      yielded.push_back(value);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<linalg::YieldOp>(yield, yielded);
  // The ops that fed only the erased results, users first.
  SmallVector<Operation *> bodyOps;
  for (Operation &inner : body.without_terminator())
    bodyOps.push_back(&inner);
  for (Operation *inner : llvm::reverse(bodyOps))
    if (inner->use_empty() && isPure(inner))
      rewriter.eraseOp(inner);
  for (unsigned index : llvm::reverse(erased))
    body.eraseArgument(numInputs + index);
  unsigned next = 0;
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (!llvm::is_contained(erased, index))
      rewriter.replaceAllUsesWith(result, generic->getResult(next++));
  SmallVector<Value> droppedInits;
  for (unsigned index : erased)
    droppedInits.push_back(op.getDpsInits()[index]);
  rewriter.eraseOp(op);
  // The erased results' accumulators (a fill of an empty tensor), now dead.
  eraseDeadProducers(rewriter, droppedInits);
  return generic;
}

unsigned cuda_agent::eraseUnusedLinalgResults(Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics() && op->getNumResults() > 1)
      generics.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  unsigned count = 0;
  for (linalg::GenericOp op : generics) {
    SmallVector<unsigned> erased;
    for (OpResult result : op->getResults())
      if (result.use_empty() && canEraseResult(op, result.getResultNumber()))
        erased.push_back(result.getResultNumber());
    if (erased.empty() || erased.size() == op->getNumResults())
      continue;
    dropResults(op, erased, rewriter);
    count += erased.size();
  }
  return count;
}
