//===- PtxEntries.h - Kernel entries read from PTX text ---------*- C++ -*-===//
//
// Private to CudaAgentCuda: the compiler lists a candidate's kernels from its
// PTX, and the launch-plan check reads their parameter lists from it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_CUDA_PTXENTRIES_H
#define CUDA_AGENT_LIB_CUDA_PTXENTRIES_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// One `.entry` of a PTX module.
struct PtxEntry {
  std::string name;
  /// Each parameter's declaration without `.param` and without its name,
  /// e.g. `.u64` or `.align 4 .b8 [12]`.
  std::vector<std::string> params;
  /// The blocks per cluster the entry requires (`.reqnctapercluster`, from
  /// `__cluster_dims__`), {1, 1, 1} when it declares none.
  std::array<int64_t, 3> cluster = {1, 1, 1};
};

/// Returns the `.entry` functions of `ptx` in order (`.visible`, `.weak`
/// and unqualified alike). Text that is not well-formed PTX gives fewer
/// entries, never an error.
std::vector<PtxEntry> parsePtxEntries(llvm::StringRef ptx);

/// True when `param` (as in PtxEntry::params) is a 64-bit integer scalar,
/// the form NVVM gives every pointer parameter.
bool isPointerSizedParam(llvm::StringRef param);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_LIB_CUDA_PTXENTRIES_H
