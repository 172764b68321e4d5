//===- Jobs.h - Verification jobs written by the compiler -------*- C++ -*-===//
//
// `cuda-agent-run --jobs DIR` runs the verification jobs that
// `--agent-lower="verify=bundle:DIR"` wrote on a machine without a GPU:
//
//   DIR/jobs.json      {"version": 1, "chip", "min_speedup", "timeout",
//                       "trials", "jobs": [{"hash", "function", "kind",
//                       "reference": "<hash>/reference",
//                       "candidates": [{"name", "bundle": "<hash>/..."}]}]}
//   DIR/<hash>/reference/           the default lowering of the region
//   DIR/<hash>/candidates/<name>/   one bundle per compiled candidate
//
// Each job is one --verify run (with --time); its summary goes to
// DIR/<hash>/result.json with the device it ran on and when (verified_at). The
// compiler reads the results back (`verify=gpu`) or `cuda-agent-db
// import-results DIR` stores the accepted kernels for a later `verify=db`.
// The keys, the version and the defaults are Protocol.h's.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_JOBS_H
#define CUDA_AGENT_RUN_JOBS_H

#include "Error.h"
#include "Verify.h"

#include "cuda-agent/Runner/Protocol.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::cuda_agent {

/// A checked jobs.json.
struct JobsFile {
  std::filesystem::path dir;
  /// Every field of jobs.json, as the compiler wrote it (a field that is
  /// missing or of another type keeps JobSet's default).
  JobSet set;
  /// The settings jobs.json gives; they override the command line's.
  std::optional<double> minSpeedup, timeoutSeconds;
  std::optional<int> trials;
  /// What the runner runs per job: bundle paths checked to stay inside DIR.
  struct CheckedJob {
    std::string hash, function;
    std::filesystem::path reference;
    std::vector<std::filesystem::path> candidates;
    /// The region's flops (the compute floor); 0 when jobs.json has none.
    int64_t flops = 0;
  };
  std::vector<CheckedJob> list;
};

/// Reads and checks DIR/jobs.json: its version, a hash per job, and bundle
/// paths that stay inside DIR. Throws RunnerError(kExitUsage) naming the
/// problem.
JobsFile loadJobs(const std::filesystem::path &dir);

/// loadJobs() on the text of a jobs.json; bundle paths are taken relative to
/// `dir`, which is not read.
JobsFile parseJobs(std::string_view text, const std::filesystem::path &dir);

/// Verifies the candidate bundles of one job against its reference bundle
/// and returns the summary (verifyBundles, or a stand-in in tests).
using VerifyJobFunction = std::function<nlohmann::ordered_json(
    const std::filesystem::path &reference,
    const std::vector<std::filesystem::path> &candidates,
    const VerifyOptions &options, ExitCode &exitCode)>;

/// Runs every job of `file` with `verify` on `device` (the probe's
/// description of it), writes each job's result.json, and returns
/// {"status": "ok", "device", "jobs": [{"hash", "exit_code", "candidates",
/// "accepted", "result"}]}. `base` supplies the device ordinal and the
/// timing settings; jobs.json supplies min_speedup, timeout and trials, and
/// each job's flops (VerifyOptions::flops, when positive). A job whose
/// reference cannot run is recorded with its exit code and the next job
/// still runs.
nlohmann::ordered_json runJobs(const JobsFile &file,
                               const nlohmann::ordered_json &device,
                               const VerifyOptions &base,
                               const VerifyJobFunction &verify);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_JOBS_H
