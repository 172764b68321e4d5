//===- NvrtcCompiler.h - In-process compile of candidate kernels -*- C++ -*-===//
//
// The "candidate compile" step of the closed loop: an agent's CUDA C++ source
// is checked (size, headers) and compiled by NVRTC inside the compiler
// process into a cubin plus PTX for one target arch. Nothing here runs the
// code; a rejection or an NVRTC log comes back as an llvm::Error whose message
// is fit to be fed back to the agent.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_CUDA_NVRTCCOMPILER_H
#define CUDA_AGENT_CUDA_NVRTCCOMPILER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// How a candidate is compiled. The defaults are what the closed loop uses.
struct CompileOptions {
  /// Real target arch (`sm_90`, `sm_90a`, `sm_80`, ...). A cubin is produced
  /// for it, so a virtual arch (`compute_90`) is rejected.
  std::string arch = "sm_90";
  /// Sources larger than this are rejected before NVRTC sees them
  /// (THREATS row 15).
  size_t maxSourceBytes = 256 * 1024;
  /// The NVRTC log kept in errors and in CompiledKernel::log is cut to this
  /// many bytes, with a note saying how much was cut.
  unsigned maxLogBytes = 4096;
  /// Extra NVRTC flags from the compiler's own configuration (never from the
  /// agent), e.g. `-lineinfo` or `--use_fast_math`. Flags that would change
  /// the arch or the include paths are rejected: set those fields instead.
  std::vector<std::string> extraFlags;
  /// The CUDA toolkit's include directory, the only place headers may come
  /// from. Empty means getDefaultToolkitIncludeDir(). Its `cccl`
  /// subdirectory, when present, is searched too (CUDA 13 keeps libcu++,
  /// CUB and Thrust there).
  std::string toolkitIncludeDir;
};

/// A candidate that compiled.
struct CompiledKernel {
  /// PTX text for the arch's virtual counterpart (no trailing NUL).
  std::string ptx;
  /// The cubin (an ELF image, starts with "\x7fELF") for CompileOptions::arch.
  std::string cubin;
  /// The NVRTC log (warnings), trimmed to CompileOptions::maxLogBytes.
  std::string log;
  /// Names of the `.entry` functions in the PTX, in PTX order, each also
  /// present in the cubin. `extern "C"` kernels appear under their own name;
  /// others appear mangled (`_Z...`) and so cannot be named by a plan.
  std::vector<std::string> entryPoints;
  /// The real arch it was compiled for (`sm_90`).
  std::string arch;
};

/// Returns `$CUDA_HOME/include` when the environment variable CUDA_HOME is
/// set and non-empty, otherwise the include directory of the toolkit the
/// project was configured with (CMake's CUDA_AGENT_CUDA_HOME).
std::string getDefaultToolkitIncludeDir();

/// The CUDA version of the NVRTC this process uses, "major.minor" (e.g.
/// "13.0"): part of the kernel database key.
std::string getCudaVersion();

/// Compiles one candidate with NVRTC (`-std=c++17`,
/// `--gpu-architecture=<arch>`, `--no-source-include`, include paths limited
/// to the toolkit). Before NVRTC runs, rejects a source over maxSourceBytes,
/// one holding NUL bytes or bare carriage returns, and any `#include` (or
/// `__has_include`) of something that is not a toolkit header; the message
/// names the header and its line. A compile error gives an error whose
/// message holds the trimmed NVRTC log. A source that compiles but defines no
/// kernel is rejected too, and so is one whose PTX declares writable state
/// that outlives a launch (findModuleState(): module-scope `.global`
/// variables, device malloc); the message names each variable. Never throws; thread safe.
llvm::Expected<CompiledKernel> compileCandidate(llvm::StringRef source,
                                                const CompileOptions &options);

/// Compiles `sources` on `jobs` threads (0: one per hardware thread). The
/// result has one entry per source, in the order of `sources`.
std::vector<llvm::Expected<CompiledKernel>>
compileCandidates(llvm::ArrayRef<std::string> sources,
                  const CompileOptions &options, unsigned jobs);

/// compileCandidates() with source i compiled for `archs[i]` instead of
/// `options.arch` (an arch-specific `sm_90a` beside the session's `sm_90`);
/// `archs` has one entry per source.
std::vector<llvm::Expected<CompiledKernel>>
compileCandidates(llvm::ArrayRef<std::string> sources,
                  llvm::ArrayRef<std::string> archs,
                  const CompileOptions &options, unsigned jobs);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_CUDA_NVRTCCOMPILER_H
