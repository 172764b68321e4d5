//===- ChainedExtrema.h - A max over dims (2, 3) as one reduction -*- C++ -*-=//
//
// torch's amax over several dimensions (logsumexp over a feature map's
// spatial dimensions, `x.amax(dim=(2, 3))`) reaches linalg as one max
// reduction per dimension, chained: the max over the last dimension, then
// the max of that over the one before. The two have different rows, so the
// outliner puts them in different regions, and the region of the rest of a
// logsumexp (the exponentials, their sum over both dimensions) sees a max
// over other rows than its sum: no row kernel takes it, and the whole chain
// falls back to the default lowering. A max of maxima is the max over all
// the dimensions at once (and a min of minima): the same value, whatever
// the order, NaNs included. The outliner merges such a chain into one
// reduction over the union of the dimensions before it groups, so the
// logsumexp is one row program.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_CHAINEDEXTREMA_H
#define CUDA_AGENT_OUTLINE_CHAINEDEXTREMA_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every `linalg.generic` under `root` that reduces, with one of
/// `maximumf`, `minimumf`, `maxnumf`, `minnumf`, the result of another such
/// generic with the same combiner (read only by it, both from fills of the
/// same constant, each reading its input at the identity and writing its
/// result at the loops it keeps, in order) into one reduction of the first
/// one's input over both sets of dimensions. Returns the number of
/// reductions merged.
unsigned mergeChainedExtrema(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_CHAINEDEXTREMA_H
