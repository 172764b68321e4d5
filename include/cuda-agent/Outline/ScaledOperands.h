//===- ScaledOperands.h - A product of scaled operands, scaled after -*- C++ -*-===//
//
// torch's attention scales q and k by sqrt(scale) each before q @ k^T
// (`scaled_dot_product_attention`'s decomposition): two elementwise generics
// over the operands, each a region of its own before the product that
// writes a scaled copy of its operand. (c q)(c k) is c (c (q k)): the outliner
// moves such a scale from an operand to the product's result, where it is
// an epilogue that the product's region takes, and the operand is read as
// it lies (through its reshapes).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_SCALEDOPERANDS_H
#define CUDA_AGENT_OUTLINE_SCALEDOPERANDS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every contraction under `root` (not a convolution) that starts
/// from a fill of zero and reads, directly or through reshapes that nothing
/// else reads, an elementwise generic of one input that only multiplies it
/// by a value of no loop index (`x * c`, `c * x`): the contraction reads x
/// instead, and a copy of that generic over the product's result multiplies
/// it. Returns the number of scales moved.
unsigned hoistOperandScales(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_SCALEDOPERANDS_H
