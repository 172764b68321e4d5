//===- Generalize.h - A linalg op as a linalg.generic ------------*- C++ -*-===//
//
// Rewrites that take maps or iterators the named ops do not have (a slice
// folded into a reader's map, a unit parallel loop) work on linalg.generic:
// this gives them one for any linalg op.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_GENERALIZE_H
#define CUDA_AGENT_OUTLINE_GENERALIZE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::cuda_agent {

/// `op` itself when it is a linalg.generic, else the generic that replaces it
/// (upstream's generalizeNamedOp, at `op`); fails for ops with no generic
/// form.
FailureOr<linalg::GenericOp> asGeneric(RewriterBase &rewriter,
                                       linalg::LinalgOp op);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_GENERALIZE_H
