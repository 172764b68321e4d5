//===- Generalize.cpp - A linalg op as a linalg.generic -------------------===//
//
// See Generalize.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::cuda_agent;

FailureOr<linalg::GenericOp> cuda_agent::asGeneric(RewriterBase &rewriter,
                                                   linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  return linalg::generalizeNamedOp(rewriter, op);
}
