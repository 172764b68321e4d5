//===- DeadProducers.h - Erase what a rewrite left unread -------*- C++ -*-===//
//
// The outliner's rewrites replace an op and leave the ops that fed it (its
// init's fill and empty tensor, a comparisons' generic) with no reader. Each
// rewrite erases them with this, so no dead op is left for the grouping to
// place or remark on.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_DEADPRODUCERS_H
#define CUDA_AGENT_OUTLINE_DEADPRODUCERS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::cuda_agent {

/// Erases the op defining each of `values` when nothing reads it any more and
/// erasing it changes nothing else (`wouldOpBeTriviallyDead`), and then, the
/// same way, the ops that only it read.
void eraseDeadProducers(RewriterBase &rewriter, ValueRange values);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_DEADPRODUCERS_H
