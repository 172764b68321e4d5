//===- Verify.h - Candidate verification against a reference ----*- C++ -*-===//
//
// `cuda-agent-run --verify REF CAND...` decides, for each candidate bundle,
// whether it computes what the reference bundle computes and whether it is
// faster. The answers to the cheating patterns of docs/threats.md live here:
//
//  - plans: same input/output buffers as the reference (temps may differ),
//    checked before any process touches the GPU;
//  - isolation: every candidate runs in its own child process
//    (`--verify-one`) under a watchdog, because a faulting kernel breaks its
//    CUDA context and a looping one never returns;
//  - trials: fresh seeded inputs from cycling distributions, fresh
//    allocations, reference outputs scrubbed before they are freed, outputs
//    poisoned before every candidate run, guards and inputs checked after it,
//    every candidate run twice (bitwise equal, or it races), outputs that do
//    not change when the reference's do, per-dtype tolerances (Tolerance.h);
//  - state: a candidate whose objects or PTX declare writable state that
//    outlives a launch is rejected before it is loaded (StateCheck.h); the
//    workspace, zeroed before every run, is its only scratch memory;
//  - timing: reference and candidate interleaved, rotating between two
//    input sets kept on the device (DeviceChecks' masked copies, with the
//    reference's outputs for each); before every timed run (outside the
//    events) inputs restored, outputs re-poisoned with seeded random bytes
//    and temps zeroed; the last timed run of each input set compared on the
//    GPU with the reference's outputs; one more checked run after timing; a
//    roofline floor (bytes / bandwidth) and a compute floor (flops / peak
//    rate, Floors.h) below which a time is rejected as suspicious.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_VERIFY_H
#define CUDA_AGENT_RUN_VERIFY_H

#include "Error.h"
#include "Plan.h"

#include "cuda-agent/Runner/Protocol.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

struct VerifyOptions {
  int trials = kDefaultTrials; ///< one per distribution of kTrialDistributions
  uint64_t seed = 0;
  /// Draw `seed` afresh for each verification (each job of --jobs) instead,
  /// so that no kernel can be written for inputs known in advance; the
  /// summary's "seed" says which, and --seed reproduces it.
  bool drawSeed = false;
  int device = 0;
  bool time = false;
  int warmup = 5;
  int runs = 20;
  double minSpeedup = kDefaultMinSpeedup; ///< "faster" needs ref/cand >= this
  double rooflineBw = kDefaultRooflineBandwidth; ///< bytes/s; device copy
  double rooflineMargin = 0.9;   ///< reject times below margin x floor
  /// FLOP/s of the compute floor; 0: the fastest unit of the reference
  /// plan's chip for the region's dtype (Floors.h).
  double peakFlops = 0;
  /// The region's flops; 0: the reference plan's "flops" (jobs.json gives
  /// each job's).
  int64_t flops = 0;
  double timeoutSeconds = kDefaultTimeoutSeconds; ///< per candidate child
  /// Testing only: makes the child "hang", "crash" or "exit" (without a
  /// result) before it touches the driver, to exercise the watchdog.
  std::string childTestFault;

  /// The command-line options that reproduce these settings in a child.
  std::vector<std::string> toChildArgs() const;
};

/// --verify: checks every plan, runs one child per candidate and returns the
/// combined summary. Sets `exitCode`: kExitOk, kExitUsage when a candidate
/// plan was rejected, or the child's code when the reference could not run
/// (kExitCuda: no GPU, CUDA error; kExitChecks: the reference broke a check).
/// Throws RunnerError(kExitUsage) when the reference plan is bad.
nlohmann::ordered_json verifyBundles(const std::filesystem::path &reference,
                                     const std::vector<std::filesystem::path> &candidates,
                                     const VerifyOptions &options, ExitCode &exitCode);

/// --verify-one (the child): verifies one candidate in this process and
/// returns {"status": "ok", "candidate": {...}}. A candidate failure of any
/// kind is a verdict; a reference failure throws RunnerError.
nlohmann::ordered_json verifyOne(const std::filesystem::path &reference,
                                 const std::filesystem::path &candidate,
                                 const VerifyOptions &options);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_VERIFY_H
