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
// The slice may be read through reshapes (`x[..., -1]` collapsed, then
// split into blocks): an expand_shape's index is the linearized index of its
// group, a collapse_shape's the index of the group's one dimension of more
// than one element. A slice of a slice is first merged into one.
//
// Folded only where the reader stays elementwise: its results, and those of
// the elementwise ops after it, feed no reduction, contraction or
// convolution (whose strategies take projected permutations only). The one
// exception is a scan's masked term (ScanChains.h: scanStepTerm)
// that reductions read: the builtin agent's scan evaluates the term at any
// map, so a blocked scan's next level reads the block totals in place. A reader
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

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::cuda_agent {

/// Rewrites every all-parallel linalg op under `root` that reads a static
/// `tensor.extract_slice` (static offsets, sizes and strides; rank-reducing
/// or not) as an input, under the conditions above, into a `linalg.generic`
/// that reads the slice's source through the composed map (named ops are
/// generalized); slices left without users are erased. Returns the number
/// of inputs folded.
unsigned foldSliceReads(Operation *root);

/// A pad of a slice as a pad of the slice's source: `F.pad(t[..., :-1], (1,
/// 0))`, the shift of a scan's totals, reads t with bounds instead of a copy
/// of the slice. The amounts are the pad's less what the slice leaves out
/// before and after it, and may be negative (the padded tensor is shorter
/// than the source with its low padding).
struct PadOfSlice {
  tensor::ExtractSliceOp slice;
  SmallVector<int64_t> low, high;
};

/// `pad` as a pad of its source's source, where its source is a static,
/// unit-stride slice that keeps every dimension, and reading the slice's
/// source with the composed bounds reads the same elements: per dimension,
/// no low padding or a slice from 0, and no high padding or a slice to the
/// end. Else nullopt.
std::optional<PadOfSlice> padOfSlice(tensor::PadOp pad);

/// Whether only pads read `slice`, each as a pad of the slice's source
/// (padOfSlice): such a slice goes into a region with its pads.
bool isSliceUnderPads(tensor::ExtractSliceOp slice);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_SLICEREADS_H
