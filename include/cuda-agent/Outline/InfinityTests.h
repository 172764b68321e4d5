//===- InfinityTests.h - A row's all(x == -inf) as max(x) == -inf -*- C++ -*-=//
//
// torch's attention (`scaled_dot_product_attention`, `_safe_softmax`) guards
// its softmax with `where(all(s == -inf, dim), 0, softmax(s))`, which
// torch-mlir writes as an i1 tensor of comparisons and an `andi` reduction
// of it into another i1 tensor. i1 is not a region element type, so the
// guard stays out of every region: the default lowering reads the scores
// twice more, a thread per row. The outliner first rewrites such a
// reduction into the extreme of the row compared once: all(x == -inf) is
// max(x) == -inf (`arith.maximumf`, which propagates a NaN as the
// comparison of a NaN does: false), all(x == +inf) is min(x) == +inf. The
// comparison is then an elementwise mask that MasksAndPositions fuses into
// its reader, and the f32 reduction joins the softmax's row region.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_INFINITYTESTS_H
#define CUDA_AGENT_OUTLINE_INFINITYTESTS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Rewrites every `linalg.generic` under `root` that reduces, with `andi`
/// from a `true` fill, the comparisons `x == -inf` (or `x == +inf`) of a
/// float tensor x, whether a separate elementwise generic or its own body
/// compares, into a max (min) reduction of x and an elementwise comparison
/// of it. Returns the number of reductions rewritten.
unsigned foldInfinityTests(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_INFINITYTESTS_H
