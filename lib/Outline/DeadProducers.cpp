//===- DeadProducers.cpp - Erase what a rewrite left unread ---------------===//
//
// See DeadProducers.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/DeadProducers.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::cuda_agent;

void cuda_agent::eraseDeadProducers(RewriterBase &rewriter,
                                    ValueRange values) {
  SmallVector<Operation *> worklist;
  for (Value value : values)
    if (Operation *def = value.getDefiningOp())
      worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val();
    if (!def->use_empty() || !wouldOpBeTriviallyDead(def))
      continue;
    for (Value operand : def->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
    rewriter.eraseOp(def);
  }
}
