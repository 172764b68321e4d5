//===- SplatOperands.h - Fold splat tensor operands into bodies -*- C++ -*-===//
//
// Frontends pass scalars to generics as splat tensor constants: torch-mlir's
// logsumexp selects from `dense<0.0> : tensor<f32>`. Such an operand would
// cross into a region as a tensor: the default lowering makes it a global
// (a constant buffer the plan uploads), which kernels that read the value
// as a literal do not take, and it costs a load per element. The outliner
// first folds each into the body of the generic that reads it, as the
// scalar constant it is.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_SPLATOPERANDS_H
#define CUDA_AGENT_OUTLINE_SPLATOPERANDS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every `linalg.generic` under `root` that reads a splat
/// `arith.constant` tensor as an input into one that reads the scalar in
/// its body instead (the input and its indexing map dropped). Returns the
/// number of inputs folded.
unsigned foldSplatOperands(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_SPLATOPERANDS_H
