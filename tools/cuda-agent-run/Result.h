//===- Result.h - The verdicts the runner reports ---------------*- C++ -*-===//
//
// The JSON that `--verify` prints and `--jobs` stores as
// DIR/<hash>/result.json, written with the keys and the acceptance rule of
// Protocol.h, which the compiler reads it back with: one entry per candidate
// (its verdict and, when timed, its times and decision) inside a summary that
// names the reference; a job's result adds the device it ran on, when, and the
// exit code.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_RESULT_H
#define CUDA_AGENT_RUN_RESULT_H

#include "Error.h"

#include "cuda-agent/Runner/Protocol.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace mlir::cuda_agent {

/// The summary of a verification against the bundle `reference` before any
/// candidate is added: {"status": "ok", "reference": {"bundle", "time"},
/// "candidates": []}.
nlohmann::ordered_json
makeVerifySummary(const std::filesystem::path &reference);

/// The entry of the candidate bundle `bundle` before any verdict: failed
/// with no reason, untimed, not accepted.
nlohmann::ordered_json makeCandidateEntry(const std::filesystem::path &bundle);

/// The entry of a candidate that failed before it ran, for `reason`.
nlohmann::ordered_json
makeFailedCandidateEntry(const std::filesystem::path &bundle,
                         const std::string &reason);

/// Records the median times of the reference and the candidate, the
/// speedup and the timing decision (Protocol.h's getTimingDecision).
void recordTiming(nlohmann::ordered_json &entry, double refUs, double candUs,
                  double minSpeedup);

/// Marks `entry` as having passed every check; it is accepted when its
/// timing decision says faster (Protocol.h's isAccepted).
void markPassed(nlohmann::ordered_json &entry);

/// Marks `entry` as failed for `reason`, not accepted.
void markFailed(nlohmann::ordered_json &entry, const std::string &reason);

/// A job's result.json: the verification `summary` with the `device` it ran
/// on (--probe's description), the time `verifiedAt` and `exitCode`.
nlohmann::ordered_json makeJobResult(nlohmann::ordered_json summary,
                                     const nlohmann::ordered_json &device,
                                     const std::string &verifiedAt,
                                     ExitCode exitCode);

/// The number of accepted candidates of a summary or job result.
int countAccepted(const nlohmann::ordered_json &result);

/// The current UTC time as ISO 8601, e.g. "2026-11-30T01:22:21Z".
std::string utcNow();

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_RESULT_H
