//===- VerifyState.h - What the child verifier keeps -------------*- C++ -*-===//
//
// The child verifier's (Verify.cpp) vocabulary: how a rejection travels, the
// ports (buffers the reference, the candidate and the oracle share), the
// input sets kept on the device with the reference's (and the oracle's)
// outputs, the per-output state across trials, the poison, and the limits of
// the time-based count of timed runs.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_VERIFYSTATE_H
#define CUDA_AGENT_RUN_VERIFYSTATE_H

#include "DeviceChecks.h"
#include "Driver.h"
#include "Inputs.h"
#include "Plan.h"

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mlir::cuda_agent::verify {

/// Timed runs whose reference and candidate together take at least this
/// long (the first timed run says) are few: a warm-up of one and as many
/// runs as fit kTimedKernelBudgetUs, at least kMinTimedRuns. A multi-ms
/// kernel's median is steady over a handful of runs, and every timed run
/// costs the verifier its preparation and input check besides the kernels.
constexpr double kSlowTimedRunUs = 1000;
/// The kernel time (reference + candidate) that timed runs of slow plans
/// add up to.
constexpr double kTimedKernelBudgetUs = 50000;
/// The fewest timed runs of a slow plan (two input sets, so each is timed
/// at least twice).
constexpr int kMinTimedRuns = 5;

/// A verdict: the candidate failed a check. The message is the reason.
class CandidateRejected : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Runs `body`, turning any RunnerError (a CUDA error, a bad launch) into a
/// rejection of the candidate.
template <typename Body>
auto asCandidate(Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const RunnerError &error) {
    throw CandidateRejected(error.what());
  }
}

/// Runs `body` on the reference's behalf: errors get "reference: " in front.
template <typename Body>
auto asReference(Body &&body) -> decltype(body()) {
  return withContext("reference", std::forward<Body>(body));
}

/// Output poison: 0xFF bytes are NaN in every float type; integers get
/// 0xA5A5..., an unlikely value that is not 0 or -1.
inline uint8_t getPoisonByte(DType type) { return getInfo(type).isFloat ? 0xFF : 0xA5; }

/// A buffer both plans have: an input (input/inout) or output (output/inout).
struct Port {
  const BufferSpec *spec; ///< the reference's
  size_t ref, cand;       ///< buffer indices in either plan
  size_t oracle = 0;      ///< and in the oracle's, when there is one
};

/// The inputs of one trial: every filled buffer is the seeded stream of
/// (seed, its reference buffer index, distribution), generated on the GPU.
struct TrialInputs {
  uint64_t seed = 0;
  Distribution distribution = Distribution::Normal;
};

/// The inputs of one trial and the reference's outputs for them, both kept
/// on the device as masked copies. The verifier keeps two when it times, so
/// that the timed runs can rotate between the last two trials' inputs and
/// check the last run of each against the reference's outputs.
struct InputSet {
  int trial = 0;                    ///< the trial that made it
  std::vector<DeviceCopy> inputs;   ///< one per input port
  std::vector<DeviceCopy> expected; ///< one per output port, with scale and hash
  /// With an oracle, per output port: its outputs (masked, with scale) and
  /// the reference's largest absolute error against them.
  std::vector<DeviceCopy> oracle;
  std::vector<double> refOracleErr;
};

/// Per output: the candidate's first run of the trial, kept on the device,
/// and the hashes of the previous trial's outputs.
struct OutputState {
  CUdeviceptr saved = 0; ///< the candidate's first run of the trial
  BufferHash previousRef{}, previousCand{};
};

/// The seed of the random poison of `buffer` before timed run `run`: a
/// different pattern for every run, buffer and side.
inline uint64_t getPoisonSeed(uint64_t seed, int run, size_t buffer, bool isCandidate) {
  return (seed * 0x100000001B3ull + uint64_t(run)) * 0x9E3779B97F4A7C15ull ^
         (uint64_t(buffer) << 1 | uint64_t(isCandidate));
}

} // namespace mlir::cuda_agent::verify

#endif // CUDA_AGENT_RUN_VERIFYSTATE_H
