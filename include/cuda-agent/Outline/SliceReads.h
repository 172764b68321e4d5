//===- SliceReads.h - Fold slices into the maps of their readers -*- C++ -*-===//
//
// `x[:, 2:10].exp()`, a split of a fused projection, a crop: frontends read
// part of a tensor through a `tensor.extract_slice`, which bufferizes to a
// subview and, between regions, costs a copy kernel (read and write of the
// slice) before the region that reads it. An elementwise op can read the
// slice's source directly, the slice's offsets and strides folded into its
// indexing map (`(d0, d1) -> (d0, d1 + 2)`), so the slice costs nothing and
// the region reads only what it uses.
//
// Folded only where the reader stays elementwise: its results, and those of
// the elementwise ops after it, feed no reduction, contraction or
// convolution (whose strategies take projected permutations only). A reader
// of a tensor another region computes does not join that region (the
// outliner's readsOutOfPlace): it reads elements other threads compute, so
// it runs after the whole tensor is written.
//
// A slice that starts at 0 with stride 1 and shortens a dimension the reader
// indexes by a bare loop index (`y[:, :16]` of 32 columns, a GLU's value
// half) cannot be a map of the source: linalg would infer two sizes for that
// loop. Where the slice's size divides the dimension, the reader reads a view
// of the source instead, a `tensor.expand_shape` that splits the dimension
// into (parts, size), at part 0: `(d0, d1) -> (d0, 0, d1)` of a 4x2x16 view.
// The view costs no copy (reshapes are views between regions). Where the size
// does not divide the dimension, the slice stays a slice.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_SLICEREADS_H
#define CUDA_AGENT_OUTLINE_SLICEREADS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every all-parallel linalg op under `root` that reads a static
/// `tensor.extract_slice` (static offsets, sizes and strides; rank-reducing
/// or not) as an input, under the conditions above, into a `linalg.generic`
/// that reads the slice's source through the composed map (named ops are
/// generalized); slices left without users are erased. Returns the number
/// of inputs folded.
unsigned foldSliceReads(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_SLICEREADS_H
