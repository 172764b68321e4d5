//===- Protocol.h - What the compiler and cuda-agent-run say ----*- C++ -*-===//
//
// The runner protocol, spelled once. The compiler (lib/Runner, llvm::json)
// writes DIR/jobs.json and reads DIR/<hash>/result.json; cuda-agent-run
// (tools/cuda-agent-run, nlohmann-json, no LLVM) reads the one and writes the
// other. Both include this header for the file names, the version, every key
// and value either side reads, the defaults both fall back to, the plain
// structs the files are read into, and the acceptance rule: when a timed
// candidate is faster, when it is accepted, and which candidate of a region
// wins and why (decideJob). It needs only the C++ standard library and
// GpuTarget.h, so the MLIR-free runner includes it as it is. The golden
// files of unittests/Runner/Golden pin the wire format.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUNNER_PROTOCOL_H
#define CUDA_AGENT_RUNNER_PROTOCOL_H

#include "cuda-agent/Target/GpuTarget.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::cuda_agent {

//===----------------------------------------------------------------------===//
// Files, version and defaults
//===----------------------------------------------------------------------===//

/// The version of jobs.json that the compiler writes and the runner reads.
inline constexpr int kJobsVersion = 1;

/// DIR/jobs.json, and DIR/<hash>/result.json per job.
inline constexpr char kJobsFileName[] = "jobs.json";
inline constexpr char kResultFileName[] = "result.json";

/// The reference/candidate time ratio that counts as faster.
inline constexpr double kDefaultMinSpeedup = 1.05;
/// Seconds before a candidate's child process is killed.
inline constexpr unsigned kDefaultTimeoutSeconds = 20;
/// Verification trials per candidate (one per input distribution).
inline constexpr unsigned kDefaultTrials = 4;
/// The f64 oracle of a reference bundle REF, when the compiler wrote one:
/// REF/<kOracleBundleName>/ (plan.json and objects, like any bundle).
inline constexpr char kOracleBundleName[] = "oracle";
/// How many times the reference's own error (its largest absolute
/// difference from the f64 oracle) a candidate's error may be, when an
/// oracle exists (isWithinOracleBound).
inline constexpr double kOracleErrorFactor = 2.0;
/// How many times the reference's error against the f64 oracle a
/// candidate's may be even when its output is within the tolerance of the
/// reference's (isWithinPrecisionBound): the tolerance is wide enough for
/// any summation order, and a kernel whose sums lose precision (tensor cores
/// that round their accumulations toward zero, summed over thousands of
/// instructions) fits in it on long reductions. Measured on the H200
/// (docs/perf.md): 3xTF32 kernels with one accumulator were 3.7-4x the
/// default lowering's error at K = 256-576, 6x at 1024, 13x at 8192; those
/// adding their tensor-core sums in f32 every few steps 0.16-1.4x. Not
/// lower: the f16 x f16 -> f32 wgmma products of K = 4096, which sum as
/// cuBLAS's do, were 5.2x (2026-12-04).
inline constexpr double kPrecisionFactor = 8.0;
/// The offset trial's alignment: IREE guarantees only that each dispatch
/// binding starts at a multiple of 64 bytes (buffers are suballocated from
/// larger allocations), where cuMemAlloc gives 256 or more. After a
/// candidate passes, the verifier runs it once more with every buffer at an
/// address that is a multiple of this and not of twice it, and records the
/// outcome (wire::kOffsetTrial) without changing the verdict: the compiler's
/// own runtime allocates with cuMemAlloc, and the IREE export leaves a
/// kernel that failed the trial to IREE's codegen.
inline constexpr uint64_t kOffsetTrialAlignment = 64;
/// Largest workspace a candidate's plan may ask for (4 GiB: an f32 8192^3
/// product's operands packed as 3xTF32 parts take 1.6 GB): the plan check
/// refuses more, so the builtin agent does not offer more.
inline constexpr int64_t kMaxWorkspaceBytes = int64_t(4) << 30;
/// Bytes per second of the roofline floor below which a time is suspicious:
/// the default target's measured copy bandwidth.
inline constexpr double kDefaultRooflineBandwidth =
    kDefaultGpuTarget.copyBandwidth;

//===----------------------------------------------------------------------===//
// Keys and values
//===----------------------------------------------------------------------===//

/// The keys and values of the runner's JSON files and summaries.
namespace wire {
// jobs.json, top level.
inline constexpr char kVersion[] = "version";
inline constexpr char kChip[] = "chip";
inline constexpr char kCuda[] = "cuda";
inline constexpr char kContract[] = "contract";
inline constexpr char kMinSpeedup[] = "min_speedup";
inline constexpr char kTimeout[] = "timeout";
inline constexpr char kTrials[] = "trials";
inline constexpr char kJobs[] = "jobs";
// jobs.json, one job.
inline constexpr char kHash[] = "hash";
inline constexpr char kFunction[] = "function";
inline constexpr char kRegion[] = "region";
inline constexpr char kKind[] = "kind";
inline constexpr char kReference[] = "reference"; // also result.json
inline constexpr char kFlops[] = "flops";
inline constexpr char kBytes[] = "bytes";
inline constexpr char kRegionMlir[] = "region_mlir";
inline constexpr char kCandidates[] = "candidates"; // also result.json
// jobs.json, one candidate of a job.
inline constexpr char kName[] = "name"; // also a device's name
inline constexpr char kAgent[] = "agent";
inline constexpr char kModel[] = "model";
inline constexpr char kPromptVersion[] = "prompt_version";
inline constexpr char kTurn[] = "turn";
inline constexpr char kBundle[] = "bundle"; // also result.json
// A reference plan's precision, the `precision=` option's value
// (KernelTask::precision): "tf32" when the region's products of f32
// operands may round them to TF32 (10-bit mantissa); absent when they must
// be exact to the f32 tolerance (the default, "f32").
inline constexpr char kPrecision[] = "precision";
inline constexpr char kPrecisionF32[] = "f32";
inline constexpr char kPrecisionTf32[] = "tf32";

// result.json (the --verify summary plus the job's device and time), the
// runner's one-line summaries on stdout and --probe.
inline constexpr char kStatus[] = "status";
inline constexpr char kError[] = "error";
inline constexpr char kDevice[] = "device";
inline constexpr char kVerifiedAt[] = "verified_at";
inline constexpr char kExitCode[] = "exit_code";
inline constexpr char kGpu[] = "gpu";
inline constexpr char kDevices[] = "devices";
// A device's arch; also the key of a candidate's launch plan asking for
// the arch-specific build of the chip, `sm_90a` (LaunchPlanCheck.h).
inline constexpr char kArch[] = "arch";
inline constexpr char kMemoryBytes[] = "memory_bytes";
// result.json, one candidate's verdict.
inline constexpr char kVerify[] = "verify";
inline constexpr char kReason[] = "reason";
inline constexpr char kRefUs[] = "ref_us";
inline constexpr char kCandUs[] = "cand_us";
inline constexpr char kSpeedup[] = "speedup";
inline constexpr char kDecision[] = "decision";
inline constexpr char kAccepted[] = "accepted";
// result.json, one candidate's verdict, when the reference has an oracle:
// the largest absolute difference from the oracle's outputs over every
// output and trial, of the reference and of the candidate, and whether the
// oracle rule (isWithinOracleBound) accepted an output that missed the
// tolerance around the reference's.
inline constexpr char kRefOracleErr[] = "ref_oracle_err";
inline constexpr char kCandOracleErr[] = "cand_oracle_err";
inline constexpr char kAcceptedByOracle[] = "accepted_by_oracle";
// result.json, one candidate's verdict, when it passed: the offset trial
// (kOffsetTrialAlignment), {"alignment": 64, "ok": true|false, "reason"}.
inline constexpr char kOffsetTrial[] = "offset_trial";
inline constexpr char kAlignment[] = "alignment";
inline constexpr char kOk[] = "ok";

// Values.
inline constexpr char kStatusOk[] = "ok";
inline constexpr char kStatusError[] = "error";
inline constexpr char kPass[] = "pass"; ///< "verify": every check passed
inline constexpr char kFail[] = "fail";
inline constexpr char kFaster[] = "faster"; ///< "decision" of a timed run
inline constexpr char kSlower[] = "slower";
inline constexpr char kNotTimed[] = "not-timed";
} // namespace wire

//===----------------------------------------------------------------------===//
// What the files hold
//===----------------------------------------------------------------------===//

/// One candidate of a job: its bundle is DIR/<bundle>, holding plan.json,
/// the cubin, kernel.cu (the source) and launch.json (the agent's plan).
struct JobCandidate {
  std::string name, agent, model;
  /// The prompt a language model answered (Candidate::promptVersion).
  std::string promptVersion;
  unsigned turn = 1;
  std::string bundle; ///< Relative to the jobs directory.

  bool operator==(const JobCandidate &other) const {
    return name == other.name && agent == other.agent && model == other.model &&
           promptVersion == other.promptVersion && turn == other.turn &&
           bundle == other.bundle;
  }
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

  bool operator==(const Job &other) const {
    return hash == other.hash && function == other.function &&
           region == other.region && kind == other.kind &&
           reference == other.reference && candidates == other.candidates &&
           flops == other.flops && bytes == other.bytes &&
           regionMlir == other.regionMlir;
  }
};

/// What jobs.json holds: the jobs and what their results are keyed by.
struct JobSet {
  std::string chip, cudaVersion;
  int contractVersion = 0;
  double minSpeedup = kDefaultMinSpeedup;
  unsigned timeoutSeconds = kDefaultTimeoutSeconds;
  unsigned trials = kDefaultTrials;
  std::vector<Job> jobs;

  bool operator==(const JobSet &other) const {
    return chip == other.chip && cudaVersion == other.cudaVersion &&
           contractVersion == other.contractVersion &&
           minSpeedup == other.minSpeedup &&
           timeoutSeconds == other.timeoutSeconds && trials == other.trials &&
           jobs == other.jobs;
  }
};

/// The runner's verdict on one candidate, from result.json.
struct CandidateVerdict {
  JobCandidate candidate;
  std::string verify; ///< wire::kPass or wire::kFail
  std::string reason;
  std::optional<double> refUs, candUs, speedup;
  bool accepted = false;
  /// With an oracle: the reference's and the candidate's largest absolute
  /// error against it (wire::kRefOracleErr, wire::kCandOracleErr).
  std::optional<double> refOracleErr, candOracleErr;
  /// The runner's whole JSON for it, compact (stored with the kernel).
  std::string record;
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

//===----------------------------------------------------------------------===//
// The acceptance rule
//===----------------------------------------------------------------------===//

/// An output that misses the tolerance around the reference's output is
/// still right when the f64 oracle says the candidate is at least nearly as
/// accurate: its largest absolute error against the oracle (`candErr`) is at
/// most kOracleErrorFactor times the reference's (`refErr`). This settles
/// long reductions, where the default lowering sums sequentially in f32 and
/// a tree-summed candidate is the more accurate side. The runner applies it
/// per element (every element within kOracleErrorFactor x `refErr` of the
/// oracle's, non-finite values agreeing), which is the same bound.
inline bool isWithinOracleBound(double candErr, double refErr) {
  return std::isfinite(candErr) && std::isfinite(refErr) &&
         candErr <= kOracleErrorFactor * refErr;
}

/// Whether a candidate whose output is within the tolerance of the
/// reference's is as precise as the task asks, where an f64 oracle exists:
/// its largest absolute error against the oracle (`candErr`) is at most
/// kPrecisionFactor times the reference's (`refErr`), or at most `floor`
/// (the output type's own absolute tolerance at the output's scale, so that
/// a reference that is exact, as on small integers, leaves a candidate a
/// rounding).
inline bool isWithinPrecisionBound(double candErr, double refErr,
                                   double floor) {
  return std::isfinite(candErr) &&
         (candErr <= floor ||
          (std::isfinite(refErr) && candErr <= kPrecisionFactor * refErr));
}

/// A timed candidate is faster when the reference's median time over its
/// own reaches `minSpeedup`.
inline bool isFaster(double speedup, double minSpeedup) {
  return speedup >= minSpeedup;
}

/// The "decision" of a timed candidate: wire::kFaster or wire::kSlower.
inline const char *getTimingDecision(double speedup, double minSpeedup) {
  return isFaster(speedup, minSpeedup) ? wire::kFaster : wire::kSlower;
}

/// A candidate is accepted when it passed every check and its timing
/// decision is wire::kFaster (an untimed candidate never is).
inline bool isAccepted(bool passed, std::string_view decision) {
  return passed && decision == wire::kFaster;
}

/// `value` printed with `precision` decimals, the way llvm::formatv's
/// "{0:F<precision>}" prints it ("nan", "INF" and "-INF" included), so the
/// reasons read the same on either side.
inline std::string formatFixed(double value, int precision) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return std::signbit(value) ? "-INF" : "INF";
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", precision, value);
  return text;
}

/// A speedup as the reasons print it: "3.10x".
inline std::string formatSpeedup(double speedup) {
  return formatFixed(speedup, 2) + "x";
}

/// A region's decision from its job's result.
struct JobDecision {
  /// The winner among `result.verdicts`, if any.
  std::optional<size_t> winner;
  /// One sentence: why the winner, or why none.
  std::string reason;
};

/// The fastest candidate that passed wins when the runner accepted it and
/// its speedup reaches `minSpeedup`; otherwise the reason says what stopped
/// it (the job did not run, it failed, no candidate passed, or the best one
/// was too slow).
inline JobDecision decideJob(const JobResult &result, double minSpeedup) {
  JobDecision decision;
  if (!result.ran) {
    decision.reason = "not verified: the job has not run";
    return decision;
  }
  if (result.verdicts.empty()) {
    decision.reason = result.error.empty()
                          ? "no candidate to verify"
                          : "verification failed: " + result.error;
    return decision;
  }
  std::optional<size_t> bestPassed;
  for (size_t index = 0; index < result.verdicts.size(); ++index) {
    const CandidateVerdict &verdict = result.verdicts[index];
    if (verdict.verify != wire::kPass || !verdict.speedup)
      continue;
    if (!bestPassed || *verdict.speedup > *result.verdicts[*bestPassed].speedup)
      bestPassed = index;
  }
  if (!bestPassed) {
    const CandidateVerdict &first = result.verdicts.front();
    decision.reason =
        "none of " + std::to_string(result.verdicts.size()) +
        " candidate(s) passed verification (" + first.candidate.name + ": " +
        (first.reason.empty() ? first.verify : first.reason) + ")";
    return decision;
  }
  const CandidateVerdict &best = result.verdicts[*bestPassed];
  std::string timing = formatFixed(best.candUs.value_or(0), 1) + " us vs " +
                       formatFixed(best.refUs.value_or(0), 1) +
                       " us for the default lowering";
  if (!best.accepted || !isFaster(*best.speedup, minSpeedup)) {
    decision.reason = "the best verified candidate, " + best.candidate.name +
                      ", is " + formatSpeedup(*best.speedup) +
                      " the speed of the default lowering (" + timing +
                      "); min-speedup is " + formatSpeedup(minSpeedup);
    return decision;
  }
  decision.winner = *bestPassed;
  decision.reason = best.candidate.agent + "/" + best.candidate.name + ": " +
                    formatSpeedup(*best.speedup) + " faster (" + timing +
                    (result.device.empty() ? "" : ", on " + result.device) +
                    ")";
  return decision;
}

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUNNER_PROTOCOL_H
