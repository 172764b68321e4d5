//===- RegionHash.h - Canonical hash of an outlined region ------*- C++ -*-===//
//
// The hash that keys a region everywhere downstream: the kernel database, the
// replay agent's directories and the runner's job folders. It must not depend
// on anything a user can change without changing the computation.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_REGIONHASH_H
#define CUDA_AGENT_OUTLINE_REGIONHASH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::cuda_agent {

/// Returns `op` printed in generic form, without locations and in a local
/// scope (values defined outside `op` print as placeholders, not names).
std::string printOpCanonically(Operation *op);

/// Returns the canonical text of a region function: `func` printed in generic
/// form, without locations, under the fixed name `region`, without any
/// `cuda_agent.*` attribute and without memoized linalg attributes. The
/// outliner orders a region's ops and arguments canonically, so this text
/// does not depend on SSA names, function names, locations or the order of
/// independent ops in the source program.
std::string printCanonicalRegion(func::FuncOp func);

/// Returns the SHA-256 of `printCanonicalRegion(func)` as 64 lowercase hex
/// digits.
std::string computeRegionHash(func::FuncOp func);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_REGIONHASH_H
