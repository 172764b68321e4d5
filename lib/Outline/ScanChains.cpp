//===- ScanChains.cpp - A blocked scan as one region ----------------------===//
//
// See ScanChains.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/ScanChains.h"
#include "cuda-agent/Outline/MasksAndPositions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::cuda_agent;

linalg::GenericOp cuda_agent::scanStepTerm(linalg::GenericOp reduction) {
  if (reduction.getNumDpsInputs() != 1 || reduction.getNumDpsInits() != 1 ||
      reduction.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(reduction.getIteratorTypesArray().back()))
    return {};
  auto term =
      reduction.getDpsInputOperand(0)->get().getDefiningOp<linalg::GenericOp>();
  if (!term || term.getNumLoops() != reduction.getNumLoops() ||
      term.getNumReductionLoops() != 0)
    return {};
  std::optional<std::pair<int64_t, int64_t>> dims = triangleMaskDims(term);
  if (!dims || dims->second != int64_t(reduction.getNumLoops()) - 1)
    return {};
  return term;
}

/// The scan step `op` is, or null.
static linalg::GenericOp asScanStep(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && scanStepTerm(generic) ? generic : linalg::GenericOp();
}

/// The ops of `block` that depend on `start`'s results, through any op.
static llvm::SmallPtrSet<Operation *, 32> forwardOf(Operation *start,
                                                    Block &block) {
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Operation *> work{start};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Operation *user : op->getUsers()) {
      Operation *owner = block.findAncestorOpInBlock(*user);
      if (owner && seen.insert(owner).second)
        work.push_back(owner);
    }
  }
  return seen;
}

/// The ops of `within` that `end` depends on (through its operands and the
/// values its regions use from above), with `end`.
static llvm::SetVector<Operation *>
backwardWithin(Operation *end, const llvm::SmallPtrSet<Operation *, 32> &within) {
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.omitUsesFromAbove = false;
  options.filter = [&](Operation *op) {
    return op == end || within.contains(op);
  };
  llvm::SetVector<Operation *> slice;
  (void)getBackwardSlice(end, &slice, options);
  return slice;
}

SmallVector<SmallVector<Operation *>>
cuda_agent::findScanChains(Block &block,
                           llvm::function_ref<bool(Operation *)> isClonable) {
  SmallVector<SmallVector<Operation *>> chains;
  llvm::SmallPtrSet<Operation *, 32> taken;
  for (Operation &op : block) {
    linalg::GenericOp first = asScanStep(&op);
    if (!first || taken.contains(first))
      continue;
    linalg::GenericOp term = scanStepTerm(first);
    // A first step: its term reads no other scan step.
    if (llvm::any_of(term.getDpsInputs(), [](Value v) {
          return asScanStep(v.getDefiningOp());
        }))
      continue;
    llvm::SmallPtrSet<Operation *, 32> after = forwardOf(first, block);
    Value scanned = first.getResult(0);
    for (OpOperand &use : scanned.getUses()) {
      auto combine = dyn_cast<linalg::GenericOp>(use.getOwner());
      if (!combine || combine->getBlock() != &block ||
          combine.getNumReductionLoops() != 0 || combine.isDpsInit(&use) ||
          !combine.getMatchingIndexingMap(&use).isProjectedPermutation())
        continue;
      llvm::SetVector<Operation *> chain = backwardWithin(combine, after);
      // Another scan step after the first: the next level (it reads the
      // first's totals, through slices, pads and reshapes where the length
      // is not a whole number of blocks).
      bool nextLevel = llvm::any_of(chain, [&](Operation *member) {
        return asScanStep(member) && member != first.getOperation();
      });
      if (!nextLevel || llvm::any_of(chain, [&](Operation *member) {
            return taken.contains(member);
          }))
        continue;
      chain.insert(first);
      chain.insert(term);
      // Clonable ops on the chain (the pads of the shifted totals and their
      // slices) move with it when only the chain reads them; left outside,
      // they would read its intermediate values as extra outputs.
      auto onlyChainReads = [&](Operation *member) {
        return llvm::all_of(member->getUsers(), [&](Operation *user) {
          Operation *owner = block.findAncestorOpInBlock(*user);
          return owner && chain.contains(owner);
        });
      };
      SmallVector<Operation *> ops;
      for (Operation *member : chain)
        if (!isClonable(member) || onlyChainReads(member))
          ops.push_back(member);
      llvm::sort(ops, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      taken.insert(ops.begin(), ops.end());
      chains.push_back(std::move(ops));
      break;
    }
  }
  return chains;
}
