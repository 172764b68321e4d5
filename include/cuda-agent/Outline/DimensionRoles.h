//===- DimensionRoles.h - What a product's dimensions are -------*- C++ -*-===//
//
// Questions about the dimensions of a transpose or a convolution that more
// than one outlining step asks: whether a transpose moves data or only
// dimensions of size 1 (a reshape then), and whether a reduction after a
// convolution reduces exactly the convolution's output channels (the
// reduction a convolution's region may take in).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_DIMENSIONROLES_H
#define CUDA_AGENT_OUTLINE_DIMENSIONROLES_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlir::cuda_agent {

/// Whether `permutation` of a tensor of shape `shape` (the `linalg.transpose`
/// convention: result dimension i is input dimension permutation[i]) changes
/// the order of the dimensions that are not 1. When it does not, the
/// transpose is a reshape.
bool movesDataDims(ArrayRef<int64_t> permutation, ArrayRef<int64_t> shape);

/// With `conv` a convolution with one input, one filter and one result, and
/// a reduction with loop kinds `iterators` reading that result through the
/// permutation `readMap`: the total size of the convolution's output
/// channels (its result dimensions the filter indexes and the input does
/// not) when the reduction reduces exactly those dimensions and at least one
/// of them. A pooling's window has no channels: nullopt for it.
std::optional<int64_t>
reducedOutputChannels(linalg::LinalgOp conv, AffineMap readMap,
                      ArrayRef<utils::IteratorType> iterators);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_DIMENSIONROLES_H
