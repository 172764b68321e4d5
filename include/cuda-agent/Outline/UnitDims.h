//===- UnitDims.h - Drop unit dimensions from linalg generics ---*- C++ -*-===//
//
// Frontends keep reduced dimensions as size-1 dimensions: torch-mlir writes
// every `keepdim` reduction (softmax's max and sum, layer norm's mean and
// variance) into a `tensor<Nx1xf32>` read through `(d0, d1) -> (d0, 0)`, and
// puts a `tensor.expand_shape` between the reduction and its readers. The
// reshape splits the program into two regions, and the size-1 dimension hides
// the row structure from the agents. The outliner drops those dimensions
// first, so a softmax is one row region again.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_UNITDIMS_H
#define CUDA_AGENT_OUTLINE_UNITDIMS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::cuda_agent {

/// When a `linalg.generic` under `root` reads a keepdim operand (a constant
/// index in its map), drops the size-1 dimensions of every generic that is
/// not a product nor next to one (upstream's unit-extent folding; products,
/// their epilogues and pads keep their shapes, so no reshape splits them),
/// then folds the reshape pairs this leaves. Fails only when the rewrite does.
LogicalResult dropUnitDimsFromGenerics(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_UNITDIMS_H
