//===- RunnerClient.h - The compiler's side of cuda-agent-run ---*- C++ -*-===//
//
// The compiler never touches the GPU: it writes verification jobs (a
// reference bundle and candidate bundles per region) into a directory and
// runs `cuda-agent-run --jobs DIR` as a child process under a watchdog, or
// leaves the directory for a GPU machine (`verify=bundle:DIR`). The runner
// writes DIR/<hash>/result.json per job; this component reads them back into
// the structs of Protocol.h, whose decideJob decides per region. Storing the
// accepted candidates in the kernel database is KernelDb's (ResultImport.h).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUNNER_RUNNERCLIENT_H
#define CUDA_AGENT_RUNNER_RUNNERCLIENT_H

#include "cuda-agent/Runner/Protocol.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// File names inside a candidate bundle besides plan.json and the cubin.
constexpr llvm::StringLiteral kCandidateLaunchName = "launch.json";

/// jobs.json as text: what writeJobSet writes.
std::string printJobSet(const JobSet &jobs);

/// Parses the text of a jobs.json; `origin` names it in errors.
llvm::Expected<JobSet> parseJobSet(llvm::StringRef text,
                                   llvm::StringRef origin);

/// Writes DIR/jobs.json (the bundles must already be in place).
llvm::Error writeJobSet(llvm::StringRef dir, const JobSet &jobs);

/// Reads DIR/jobs.json.
llvm::Expected<JobSet> readJobSet(llvm::StringRef dir);

/// Parses the text of `job`'s result.json; `origin` names it in errors. The
/// verdicts follow `job.candidates`: one the runner did not report fails
/// with the job's error, or "not verified".
llvm::Expected<JobResult> parseJobResult(llvm::StringRef text, const Job &job,
                                         llvm::StringRef origin);

/// Reads the result of every job of `jobs` from `dir`; a missing result.json
/// gives `ran = false`, an unreadable one an error naming it.
llvm::Expected<std::vector<JobResult>> readJobResults(llvm::StringRef dir,
                                                      const JobSet &jobs);

/// Where cuda-agent-run is: `explicitPath` when given, else
/// $CUDA_AGENT_RUN, else beside the running executable, else the build
/// tree's bin directory, else PATH.
llvm::Expected<std::string> findRunner(llvm::StringRef explicitPath);

/// What `cuda-agent-run --probe` said.
struct GpuProbe {
  bool gpu = false;
  std::string device, arch, error;
};

/// Runs `runner --probe` (it never needs a GPU to answer).
llvm::Expected<GpuProbe> probeGpu(llvm::StringRef runner);

/// Runs `runner --jobs DIR` as a child killed after `timeoutSeconds`; the
/// results land in DIR. Fails with the runner's message when it could not
/// run the jobs, or with "timed out" when the watchdog killed it.
llvm::Error runJobs(llvm::StringRef runner, llvm::StringRef dir,
                    unsigned timeoutSeconds);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUNNER_RUNNERCLIENT_H
