//===- TransposedConvolutions.h - A strided transposed conv by phases -*- C++
//-*-===//
//
// torch-mlir writes a transposed convolution of stride s as a convolution of
// stride 1 over its input spread onto a grid of zeros: `tensor.insert_slice`
// of x with strides s into a zero-filled tensor, then the flipped filter
// slid over it. In 2-D at stride 2, three taps in four multiply a zero, and
// the zero grid is four times the input. Each output element o = p + s q
// (its phase p in [0, s) per spatial dimension) reads the grid only at the
// taps k = k0 + s t that land on it (k0 = (offset - p) mod s), and there
// the grid holds x[q + t + c] for one constant c: a stride-1 convolution of
// x (sliced or zero-padded) with the filter's taps of that phase. The
// outliner rewrites such a convolution into one convolution per phase,
// each written into its phase of the output by a strided `insert_slice`:
// the same sums without their zero terms. A dilated filter's taps that land
// on x are every (s / gcd(d, s))-th, at dilation d / gcd(d, s), or none for
// the phases gcd(d, s) does not reach. The convolution's elementwise
// epilogue is applied by each phase to its part, so it stays in the
// phase's region.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_TRANSPOSEDCONVOLUTIONS_H
#define CUDA_AGENT_OUTLINE_TRANSPOSEDCONVOLUTIONS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every `linalg.conv_{1,2,3}d_ncw..._fcw...` under `root` of unit
/// strides (any dilation) whose input is a static `tensor.insert_slice` of a
/// tensor into a zero fill, whole along the batch and channel dimensions
/// and strided along a spatial one, into one convolution per output phase.
/// Returns the number of convolutions rewritten.
unsigned splitTransposedConvolutions(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_TRANSPOSEDCONVOLUTIONS_H
