//===- BooleanTensors.h - Fold i1 tensors into their consumers --*- C++ -*-===//
//
// Frontends compute masks as i1 tensors between elementwise ops:
// torch-mlir's logsumexp tests isinf(max) into a tensor<Nx1xi1> that a
// select reads. i1 is not a region element type (no buffer crosses a region
// boundary as bits), so such a mask would keep both ops out of every region.
// The outliner first fuses each elementwise generic that computes an i1
// tensor into the generics that read it: the comparison moves into the
// reader's body and the mask exists only as a scalar there.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_BOOLEANTENSORS_H
#define CUDA_AGENT_OUTLINE_BOOLEANTENSORS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Fuses every all-parallel `linalg.generic` under `root` that computes an
/// i1 tensor into each `linalg.generic` that reads it (upstream's
/// elementwise fusion, for these operands only), and erases the producer
/// once nothing reads it. A mask that something else reads too (a return)
/// keeps its producer for that, outside every region; each generic reader
/// fuses a copy. Returns the number of fusions.
unsigned fuseBooleanTensors(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_BOOLEANTENSORS_H
