//===- MasksAndPositions.h - Fold masks and positions into readers -*- C++ -*-===//
//
// Frontends compute masks as i1 tensors between elementwise ops:
// torch-mlir's logsumexp tests isinf(max) into a tensor<Nx1xi1> that a
// select reads. i1 is not a region element type (no buffer crosses a region
// boundary as bits), so such a mask would keep both ops out of every region.
// They also compute positions as tensors: torch.arange is a generic with no
// inputs that yields its linalg.index (an i64 tensor by default, again not a
// region element type), and a triangular mask compares two of them. The
// outliner first fuses each elementwise generic that computes an i1 tensor,
// or computes from its loop indices alone, into the generics that read it:
// the comparison or the index moves into the reader's body and exists only
// as a scalar there, recomputed where it is read instead of loaded.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_MASKSANDPOSITIONS_H
#define CUDA_AGENT_OUTLINE_MASKSANDPOSITIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::cuda_agent {

/// Fuses every all-parallel `linalg.generic` under `root` that computes an
/// i1 tensor, or has no inputs and does not read its init (positions), into
/// each `linalg.generic` that reads it (upstream's elementwise fusion, for
/// these operands only), and erases the producer once nothing reads it. A
/// producer that something else reads too (a return) keeps its op for that,
/// outside every region; each generic reader fuses a copy. Returns the
/// number of fusions.
unsigned fuseMasksAndPositions(Operation *root);

/// The loop dimension `v` is (a `linalg.index`, through index casts and
/// integer extensions or truncations), or -1.
int64_t loopDimOf(Value v);

/// Whether `cmp` compares the loop dimensions i and k as `k <= i` (or
/// `i >= k`).
bool isUpTo(arith::CmpIOp cmp, int64_t i, int64_t k);

/// The loop dimensions (i, k) of a triangular mask: `generic` has one result
/// and its body yields `select(k <= i, v, c)` with a constant c, the term of
/// a scan written as a masked reduction over k. Else nullopt.
std::optional<std::pair<int64_t, int64_t>>
triangleMaskDims(linalg::GenericOp generic);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_MASKSANDPOSITIONS_H
