//===- RunnerClient.h - The compiler's side of cuda-agent-run ----*- C++
//-*-===//
//
// The compiler never touches the GPU: it writes verification jobs (a
// reference bundle and candidate bundles per region) into a directory and
// runs `cuda-agent-run --jobs DIR` as a child process under a watchdog, or
// leaves the directory for a GPU machine (`verify=bundle:DIR`). The runner
// writes DIR/<hash>/result.json per job; this component reads them back,
// decides per region, and turns accepted candidates into kernel database
// records (`cuda-agent-db import-results DIR`).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUNNER_RUNNERCLIENT_H
#define CUDA_AGENT_RUNNER_RUNNERCLIENT_H

#include "cuda-agent/KernelDb/KernelDb.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// The version of jobs.json written here (cuda-agent-run's kJobsVersion).
constexpr int kJobsVersion = 1;

/// File names inside a candidate bundle besides plan.json and the cubin.
constexpr llvm::StringLiteral kCandidateLaunchName = "launch.json";

/// One candidate of a job: its bundle is DIR/<bundle>, holding plan.json,
/// the cubin, kernel.cu (the source) and launch.json (the agent's plan).
struct JobCandidate {
  std::string name, agent, model;
  /// The prompt a language model answered (Candidate::promptVersion).
  std::string promptVersion;
  unsigned turn = 1;
  std::string bundle; ///< Relative to the jobs directory.
};

/// The verification of one region.
struct Job {
  std::string hash, function, region, kind;
  std::string reference; ///< Relative to the jobs directory.
  std::vector<JobCandidate> candidates;
  /// The region's size, as agent-outline counted it.
  int64_t flops = 0, bytes = 0;
  /// The region's MLIR (KernelTask::regionMlir), stored with its verified
  /// kernels for few-shot prompts; may be empty.
  std::string regionMlir;
};

/// What jobs.json holds: the jobs and what their results are keyed by.
struct JobSet {
  std::string chip, cudaVersion;
  int contractVersion = 0;
  double minSpeedup = 1.05;
  unsigned timeoutSeconds = 20;
  unsigned trials = 4;
  std::vector<Job> jobs;
};

/// Writes DIR/jobs.json (the bundles must already be in place).
llvm::Error writeJobSet(llvm::StringRef dir, const JobSet &jobs);

/// Reads DIR/jobs.json.
llvm::Expected<JobSet> readJobSet(llvm::StringRef dir);

/// The runner's verdict on one candidate.
struct CandidateVerdict {
  JobCandidate candidate;
  std::string verify; ///< "pass" or "fail"
  std::string reason;
  std::optional<double> refUs, candUs, speedup;
  bool accepted = false;
  llvm::json::Value record = nullptr; ///< The runner's JSON for it.
};

/// The outcome of one job, from DIR/<hash>/result.json.
struct JobResult {
  const Job *job = nullptr;
  /// False when there is no result.json (the job has not run).
  bool ran = false;
  /// Set when the job as a whole failed (no GPU, the reference faulted).
  std::string error;
  /// The device it ran on, e.g. "NVIDIA H200", and when (ISO 8601 UTC).
  std::string device, verifiedAt;
  std::vector<CandidateVerdict> verdicts;
};

/// Reads the result of every job of `jobs` from `dir`; a missing result.json
/// gives `ran = false`, an unreadable one an error naming it.
llvm::Expected<std::vector<JobResult>> readJobResults(llvm::StringRef dir,
                                                      const JobSet &jobs);

/// A region's decision from its job's result.
struct JobDecision {
  /// The winner among `result.verdicts`, if any.
  std::optional<size_t> winner;
  /// One sentence: why the winner, or why none.
  std::string reason;
};

/// The fastest accepted candidate wins when its speedup reaches
/// `minSpeedup`; otherwise the reason says what stopped each.
JobDecision decideJob(const JobResult &result, double minSpeedup);

/// The database record of verdict `verdict` of `result`: source and launch
/// plan read from its bundle, the key from `jobs`.
llvm::Expected<KernelRecord> makeKernelRecord(llvm::StringRef dir,
                                              const JobSet &jobs,
                                              const JobResult &result,
                                              const CandidateVerdict &verdict);

/// Stores every accepted candidate of `result` in `db` and returns how many;
/// `winnerId` gets the database id of candidate `winner` (-1 when it is not
/// given or not accepted). Stops at the first record that cannot be made or
/// stored.
llvm::Expected<int> storeAcceptedKernels(KernelDb &db, llvm::StringRef dir,
                                         const JobSet &jobs,
                                         const JobResult &result,
                                         std::optional<size_t> winner,
                                         int64_t &winnerId);

/// What importJobResults did.
struct ImportedResults {
  int jobsRun = 0, jobsNotRun = 0, kernelsAdded = 0, decisions = 0;
};

/// Stores every accepted candidate of the jobs in `dir` in `db`, and one
/// decision per job that ran.
llvm::Expected<ImportedResults> importJobResults(KernelDb &db,
                                                 llvm::StringRef dir);

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
