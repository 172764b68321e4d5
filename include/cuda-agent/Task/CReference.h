//===- CReference.h - Regions as plain C loop nests -------------*- C++ -*-===//
//
// The reference the language-model prompts quote next to a region's MLIR:
// the same computation as C loops, readable by any model. It belongs to no
// agent backend.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_CREFERENCE_H
#define CUDA_AGENT_TASK_CREFERENCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::cuda_agent {

/// The region as plain C loop nests over row-major arrays (one loop per
/// linalg loop, bodies spelt statement by statement), a reference any model
/// can read; an error when the region holds something it cannot spell.
llvm::Expected<std::string> renderCReference(llvm::StringRef regionMlir);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_CREFERENCE_H
