//===- UnusedResults.h - Erase unused linalg results ------------*- C++ -*-===//
//
// Frontends compute results nobody reads: torch-mlir's max over a dimension
// also computes the argmax as an i64 result that `.values` drops. Such a
// result would keep its op out of every region (i64 is not a region element
// type) and cost a buffer and stores; the outliner erases it first.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_UNUSEDRESULTS_H
#define CUDA_AGENT_OUTLINE_UNUSEDRESULTS_H

#include "mlir/IR/Operation.h"

namespace mlir::cuda_agent {

/// Erases from every `linalg.generic` under `root` the results that have no
/// use, with their init operands and the body ops only they need, as long as
/// the op keeps at least one result. A result whose accumulator another
/// result's computation reads (`out` block argument used elsewhere) stays.
/// Returns the number of results erased.
unsigned eraseUnusedLinalgResults(Operation *root);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_UNUSEDRESULTS_H
