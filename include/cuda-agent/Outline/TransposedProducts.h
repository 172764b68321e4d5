//===- TransposedProducts.h - A product's transpose as its output map -*- C++ -*-===//
//
// `torch.bmm(a, b).transpose(1, 2)`, attention's `(q @ k^T).transpose(...)`:
// a frontend transposes a product's result with a `linalg.transpose`, which
// the outliner puts in the product's region as a second op whose output has
// another shape than the product (no contraction strategy writes that), or,
// between regions, costs a copy kernel. The product can write the transposed
// result itself: the same contraction with its output map permuted, `(b, m,
// n, k) -> (b, n, m)`, which the strategies take like any projected
// permutation. The transpose costs nothing then.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_TRANSPOSEDPRODUCTS_H
#define CUDA_AGENT_OUTLINE_TRANSPOSEDPRODUCTS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every static `linalg.transpose` under `root` whose input is the
/// only use of a contraction's result (not a convolution's) into that
/// contraction as a `linalg.generic` writing the transposed result: its
/// output map permuted, its init a fill of the transposed shape where it was
/// a fill, else the init transposed. A transpose that moves only dimensions
/// of size 1 is left to the reshapes (UnitDims.h). Returns the number of
/// transposes folded.
unsigned foldTransposedProducts(Operation *root);

/// Rewrites every static `linalg.transpose` under `root` whose only reader
/// is a `tensor.collapse_shape` that merges only dimensions the transpose
/// keeps together and in order (attention's k^T, 2x4x8x16 from 2x4x16x8,
/// collapsed to 8x8x16 for a batched product) into the collapse of the
/// transpose's input and a transpose of that: the transpose then reads
/// nothing through a reshape and meets the product that reads it, whose
/// region takes it. Returns the number of transposes moved.
unsigned collapseBeforeTransposes(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_TRANSPOSEDPRODUCTS_H
