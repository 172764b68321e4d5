//===- ConcatParts.h - Concatenations written in parts ----------*- C++ -*-===//
//
// `torch.cat([x.exp(), x.relu()], dim=1)`: a `tensor.concat` bufferizes to
// one buffer and a copy into each part of it, so every branch is written
// twice (its own result, then the copy) and each copy is a kernel of its own.
// Where the parts have one size along the concatenated dimension, the result
// is a view of (..., parts, size, ...) and each branch can write its part in
// place: the elementwise op that computes a branch writes at
// `(d0, k, d1)` into the previous part's result, the first into an empty
// tensor, and a `tensor.collapse_shape` (a view) gives the concatenation's
// shape. A branch no elementwise op computes alone (an argument, a value
// with other readers) is copied into its part by a generic of its own, which
// joins the others' region. So the whole concatenation is one region, and a
// kernel writes each element once.
//
// The elements a part's op does not write are its init's (the parts before
// it): the builtin agent's elementwise kernels branch on the part index, the
// default lowering writes each part with its own loops.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_CONCATPARTS_H
#define CUDA_AGENT_OUTLINE_CONCATPARTS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every `tensor.concat` of static tensors under `root` whose
/// operands have one size along the concatenated dimension, at least one of
/// them the only result of an all-parallel linalg op that the concatenation
/// alone reads and whose body does not read its init, into its parts written
/// in place (above). Returns the number of concatenations rewritten.
unsigned writeConcatsInParts(Operation *root);

/// Whether an output map holds a part index (a constant result): its op
/// writes one part of a concatenation in place.
bool hasPartIndex(AffineMap outMap);

/// `outMap` without its part indices (the map of the part itself).
AffineMap withoutPartIndices(AffineMap outMap);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_CONCATPARTS_H
