//===- IncludeScanner.h - Header checks for candidate sources ---*- C++ -*-===//
//
// A candidate may include the CUDA toolkit's own headers and nothing else
// (THREATS row 1). NVRTC happily opens absolute paths and `../` paths
// relative to its include directories and prints what it read into its log,
// which goes back to the agent; so the source is scanned before NVRTC sees
// it. The scan is deliberately conservative: it may reject an include-looking
// line inside a comment or a string, but it must never miss a real directive.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_CUDA_INCLUDESCANNER_H
#define CUDA_AGENT_CUDA_INCLUDESCANNER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::cuda_agent {

/// Checks every `#include`, `%:include`, `#include_next`, `#import`, `#embed`
/// and `__has_include(...)` in `source` against `includeDirs`: the header
/// name must be relative, must not contain `..` or a backslash, and must name
/// a regular file inside one of the directories (after resolving symlinks).
/// A computed include (`#include MACRO`) is rejected. Also rejects NUL bytes
/// and carriage returns not followed by a newline, which would make the
/// scanner's idea of a line differ from the preprocessor's. Error messages
/// name the line and the header.
llvm::Error checkCandidateIncludes(llvm::StringRef source,
                                   llvm::ArrayRef<std::string> includeDirs);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_CUDA_INCLUDESCANNER_H
