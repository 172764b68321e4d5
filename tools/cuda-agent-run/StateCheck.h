//===- StateCheck.h - Candidate state that outlives a launch ----*- C++ -*-===//
//
// The runner's side of "no state that outlives a launch" (the compiler's is
// in compileCandidate()): before a candidate bundle is loaded, every object
// it would run and the PTX its plan carries are searched for writable
// module-scope state. A kernel holding such state could remember an answer
// keyed by a fingerprint of its inputs and replay it on later launches.
//
//   - PTX, preferred: the plan's "ptx" text (the compiler keeps there the
//     PTX it compiled a candidate's cubin from; when present, the cubins are
//     not inspected) and every object ending in .ptx. findModuleState() of
//     cuda-agent/Cuda/ModuleState.h, the compiler's own rules: `.global`
//     variables the module may write (a read-only lookup table passes) and
//     device malloc;
//   - cubin (ELF) of a bundle without PTX (hand-made bundles): every data
//     symbol (STT_OBJECT) defined in a `.nv.global` or `.nv.global.init`
//     section, i.e. every __device__ or __managed__ variable, and an
//     undefined `malloc`. A cubin cannot tell a used variable from a dead
//     one (ptxas gives every one an address slot), so this is stricter than
//     the PTX rule: nvcc drops dead variables, NVRTC keeps constexpr ones;
//   - fatbin: its uncompressed PTX texts, else its ELF images; a fatbin with
//     neither (compressed) cannot be inspected and is rejected.
// cuModuleGetGlobal would only confirm names one already knows; the symbol
// table lists them.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_STATECHECK_H
#define CUDA_AGENT_RUN_STATECHECK_H

#include "Plan.h"

#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// The names of the writable global variables a cubin (ELF image) defines
/// and uses, plus "malloc" when it calls the device heap. Empty for a clean image; an
/// image that is not ELF64 gives {"?"} (cannot be inspected).
std::vector<std::string> findCubinState(const char *data, size_t size);

/// What findCandidateState() found.
struct StateFinding {
  /// "" when no object of the plan and not its "ptx" text declare writable
  /// state that outlives a launch, else the rejection reason naming the
  /// object and every variable found.
  std::string reason;
  /// The reason is that an object cannot be inspected (not PTX, ELF or a
  /// fatbin holding either uncompressed). The parent leaves that verdict to
  /// the child, where an object of that kind mostly fails to load anyway.
  bool uninspectable = false;
};

StateFinding findCandidateState(const Plan &plan);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_STATECHECK_H
