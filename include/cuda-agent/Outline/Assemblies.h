//===- Assemblies.h - Tensors assembled from parts --------------*- C++ -*-===//
//
// `torch.cat([x.exp(), y], 1)` and `out[:, :8] = x[:, :8] + y` build one
// tensor from parts: a `tensor.concat`, a `tensor.insert_slice` of a value
// into a destination. Between regions each costs a copy kernel per part and
// writes every computed part twice (its own result, then the copy). The
// outliner makes such an op a member of the region of the parts computed for
// it alone, as that region's output, with the elementwise ops that read it
// at the element they write (RegionGrouping.cpp), and the builtin agent's
// elementwise kernels write each element once from the part it is in
// (Elementwise.cpp). This header says which ops are assemblies and what
// their parts are.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_ASSEMBLIES_H
#define CUDA_AGENT_OUTLINE_ASSEMBLIES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::cuda_agent {

/// Whether `op` assembles a tensor from parts that a region can hold: a
/// `tensor.concat` of static tensors, or a `tensor.insert_slice` of static
/// tensors at static offsets with unit strides that keeps the rank.
bool isAssembly(Operation *op);

/// One part of an assembled tensor: `source` is its value on the box of
/// `sizes` elements at `offsets` of the result.
struct AssemblyPart {
  Value source;
  SmallVector<int64_t> offsets, sizes;
};

/// The parts of the assembly `op` (isAssembly) in order of precedence: an
/// element is the first part's whose box holds it. A concatenation's parts
/// are its operands; an insert_slice's are its source, then its destination
/// (the whole result).
SmallVector<AssemblyPart> getAssemblyParts(Operation *op);

/// Gives every `tensor.insert_slice` under `root` that drops unit
/// dimensions of its box (torch's `out[i] = row`: a row inserted into a
/// matrix) a source of the box's own rank, an expand_shape of the old one,
/// so that it is an assembly a region can hold; where the source is a
/// generic's only use, the generic computes the box's shape instead
/// (upstream's reshape fusion by expansion), and no reshape is left between.
void expandRankReducingInserts(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_ASSEMBLIES_H
