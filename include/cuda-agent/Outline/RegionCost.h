//===- RegionCost.h - What an outlined region computes and moves -*- C++ -*-===//
//
// The size of an outlined region, recorded on its call and in its reference
// plan: the arithmetic it does (flops) and the least traffic any kernel for
// it must move (bytes), the verifier's roofline floor.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_REGIONCOST_H
#define CUDA_AGENT_OUTLINE_REGIONCOST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace mlir::cuda_agent {

/// Sums loop volume times the number of arithmetic body ops (constants and
/// casts do not count) over the linalg ops of `func`.
int64_t countFlops(func::FuncOp func);

/// Bytes of every result of `func` and of what it reads of each argument
/// (all of it, or only the part that slices folded into its readers reach,
/// SliceReads.h): the least traffic any kernel for the region must move.
int64_t countBytes(func::FuncOp func);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_REGIONCOST_H
