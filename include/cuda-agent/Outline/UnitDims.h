//===- UnitDims.h - Drop unit dimensions before outlining -------*- C++ -*-===//
//
// Frontends keep reduced dimensions as size-1 dimensions: torch-mlir writes
// every `keepdim` reduction (softmax's max and sum, layer norm's mean and
// variance) into a `tensor<Nx1xf32>` read through `(d0, d1) -> (d0, 0)`, and
// puts a `tensor.expand_shape` between the reduction and its readers. The
// reshape splits the program into two regions, and the size-1 dimension hides
// the row structure from the agents. The outliner drops those dimensions
// first, so a softmax is one row region again.
//
// A contraction with a dimension of size 1 is one of lower rank in disguise:
// torch's `x @ w` with a Kx1 `w` is a linalg.matmul with one column, a
// matrix-vector product that reads its matrix once, and a linear layer on
// one row a vector-matrix product. The outliner rewrites those into the
// named form of lower rank first, so that their regions are the memory-bound
// matvec and vecmat the agents write for.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_UNITDIMS_H
#define CUDA_AGENT_OUTLINE_UNITDIMS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::cuda_agent {

/// Rewrites the named contractions under `root` with a unit batch, row or
/// column dimension into their named form of lower rank (upstream's
/// rank-reducing contraction patterns: matmul into matvec, vecmat or, with
/// both, dot; batch_matmul into matmul, batch_matvec or batch_vecmat), with
/// a collapse_shape of their operands and an expand_shape of their result.
/// Then, when one was rewritten or a `linalg.generic` reads a keepdim operand
/// (a constant index in its map), drops the size-1 dimensions of every
/// generic that is not a product nor next to one that kept its rank
/// (upstream's unit-extent folding; those products, their epilogues and pads
/// keep their shapes, so no reshape splits them), turns transposes that only
/// move size-1 dimensions into reshapes, and folds the reshape pairs this
/// leaves. Fails only when the rewrite does.
LogicalResult dropUnitDims(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_UNITDIMS_H
