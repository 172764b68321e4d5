//===- LaunchPlanCheck.h - Validation of a candidate's launch plan -*- C++ -*-===//
//
// A candidate comes with a launch plan (docs/design.md, Contracts):
//   {"launches": [{"kernel": "k0", "grid": [x,y,z], "block": [x,y,z],
//                  "shared_bytes": 0}, ...], "workspace_bytes": 0,
//    "arch": "sm_90a"}
// (`arch` optional: a kernel that needs the arch-specific instructions of
// the session's chip, such as Hopper's wgmma, asks to be built for it.)
// It is checked against the compiled kernel before anything is launched
// (THREATS row 13), so a wrong plan is feedback, not a launch failure.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_CUDA_LAUNCHPLANCHECK_H
#define CUDA_AGENT_CUDA_LAUNCHPLANCHECK_H

#include "cuda-agent/Cuda/NvrtcCompiler.h"
#include "cuda-agent/Runner/Protocol.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>

namespace mlir::cuda_agent {

/// The arch a candidate whose launch plan is `planText` is compiled for in a
/// session for `chip`: `chip`, or the plan's `arch` (wire::kArch) when that is `chip`'s
/// arch-specific form (`chip` + "a"). Any other `arch` is an error the
/// agent is told; a plan that is not JSON gives `chip` (its check fails
/// later with the parse error).
llvm::Expected<std::string> getCandidateArch(llvm::StringRef planText,
                                             llvm::StringRef chip);

/// Largest dynamic shared memory per block on a real arch (`sm_90`: 227 KiB);
/// 48 KiB, the limit without opting in, for an arch not in the table.
int64_t getMaxSharedBytes(llvm::StringRef arch);

/// Validates `plan` for `kernel`: an object with a non-empty `launches` array
/// and an optional `workspace_bytes` in [0, kMaxWorkspaceBytes]; each launch
/// an object naming one of `kernel.entryPoints`, with `grid` and `block` of 1
/// to 3 positive integers (missing trailing dims are 1) within CUDA's limits,
/// at most 1024 threads per block and an optional `shared_bytes` in
/// [0, getMaxSharedBytes(kernel.arch)]; an `arch`, when present, must be
/// the arch `kernel` was compiled for. Unknown keys are rejected (a
/// misspelt `shared_bytes` must not silently become 0). Each launched kernel
/// must take `numBuffers` parameters, all pointers (read from the PTX); when
/// `workspace_bytes` > 0 it may take one more, the workspace pointer.
/// Messages name the launch index and kernel, e.g.
/// `launch 1 (k1): grid[0] = 0 is out of range [1, 2147483647]`.
llvm::Error validateLaunchPlan(const llvm::json::Value &plan,
                               const CompiledKernel &kernel,
                               unsigned numBuffers);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_CUDA_LAUNCHPLANCHECK_H
