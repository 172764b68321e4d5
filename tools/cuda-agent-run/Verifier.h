//===- Verifier.h - The child verifier's trials and timing -------*- C++ -*-===//
//
// The child verifier: one candidate against the reference (and the f64
// oracle where the bundle has one), in the same context. Its trials, checks
// and verdicts are in Verify.cpp, its timed runs, their input and output
// checks, the offset trial and the floors in VerifyTiming.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_VERIFIER_H
#define CUDA_AGENT_RUN_VERIFIER_H

#include "DeviceChecks.h"
#include "Driver.h"
#include "Floors.h"
#include "Inputs.h"
#include "PartClock.h"
#include "Runner.h"
#include "Tolerance.h"
#include "Verify.h"
#include "VerifyState.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace mlir::cuda_agent::verify {

using json = nlohmann::ordered_json;

/// Formats `value` like printf("%.<digits>g").
std::string formatNumber(double value, int digits = 3);

class Verifier {
public:
  /// `oracle`: the reference's f64 oracle, or null.
  Verifier(const Driver &driver, const Plan &reference, const Plan &candidate,
           const Plan *oracle, const VerifyOptions &options);

  /// Runs the trials (and timing) and returns the candidate's entry.
  json run();

private:
  /// The verifier's own device memory: per input set (two when timing, one
  /// otherwise) a copy of every input and of every reference output, and
  /// one more copy of every output for the candidate's first run.
  void allocateOutputState();

  /// The input set of trial `t` (1-based): the sets take turns.
  InputSet &getSetOfTrial(int t) { return sets[size_t(t - 1) % sets.size()]; }

  /// The index of `port`'s buffer in `plan` (the reference's, the
  /// candidate's or the oracle's).
  size_t indexIn(const Port &port, const Plan &plan) const;

  static CUdeviceptr pointerOf(PlanRunner &runner, const Port &port, bool isCandidate);

  /// Generates trial `t`'s inputs (`data`) into the copies of `set`, once
  /// for the reference's and every candidate run.
  void makeInputs(InputSet &set, int t, const TrialInputs &data);

  /// Fills `runner`'s buffers for a run on `set`: inputs (and inouts) from
  /// its copies, temps (the workspace among them) zeroed, outputs poisoned:
  /// with the dtype's poison byte for a checked run, or for timed run
  /// `timedRun` (>= 0) with seeded random bytes made by a kernel, a
  /// different pattern every run, so that a kernel cannot tell a timed run
  /// from a checked one by its output buffer, nor find last run's answer
  /// there. In a timed run the pure inputs are the set's resident buffers
  /// (bindResidentInputs()), checked after every candidate run instead of
  /// copied in; inouts are still restored. The reference's timed outputs are
  /// never read and it is trusted not to sense them: they are poisoned once,
  /// before the first timed run. `restoreInputs` false: the inputs already
  /// hold `set`'s contents (checked bitwise after the previous run).
  void prepare(PlanRunner &runner, const Plan &plan, bool isCandidate,
               const InputSet &set, int timedRun = -1, bool restoreInputs = true);

  /// Returns the name of the first pure input whose contents differ from
  /// `set`'s, or "".
  std::string findChangedInput(PlanRunner &runner, bool isCandidate, const InputSet &set);

  /// One checked reference run on `set`'s inputs, on fresh allocations. Its
  /// outputs are captured into `set` on the device (masked) and its buffers
  /// scrubbed and freed (release(): the scrub after use and the scrub
  /// before freeing in one pass).
  void runReference(InputSet &set);

  /// With an oracle: one checked oracle run on `set`'s inputs, its outputs
  /// captured into `set` (before runReference(), which measures the
  /// reference's error against them). Trusted like the reference.
  void runOracle(InputSet &set);

  /// With an oracle: the candidate's output `o` compared with the oracle's
  /// for `set` under the oracle rule (getOracleTolerance()).
  Comparison compareWithOracle(const InputSet &set, size_t o);

  /// One checked candidate run on `set`'s inputs, on its current
  /// allocations, outputs poisoned. `restoreInputs` false: the inputs were
  /// compared bitwise with `set`'s after the previous run and still hold it.
  void runCandidate(const InputSet &set, bool restoreInputs = true);

  /// Copies the candidate's outputs into the saved copies.
  void saveCandidateOutputs();

  /// Where the candidate's output `o` first differs from its saved copy, as
  /// "[i, j] (x vs y)" (saved first), or "" when it does not.
  std::string describeChangeSinceSaved(size_t o);

  /// Element `i` of the candidate's output `o` against its saved copy, as
  /// "[i, j] (x vs y)" (saved first).
  std::string describeDifference(size_t o, uint64_t i);

  /// "got 1.5" or, when the element still holds the poison, "got nan (never
  /// written: still the 0xFF poison)".
  std::string describeGot(const Port &port, uint64_t gotBits, double value) const;

  [[noreturn]] void rejectTrial(json &trial, const std::string &reason);

  void runTrials();

  /// The tolerance of an output: its dtype's (TF32's where the reference
  /// allows it), widened by the reference's reduction length.
  Tolerance toleranceOf(const BufferSpec &spec) const;

  /// Fills the trial record with the worst output's errors and rejects on
  /// the first mismatch: an output off the reference's by more than the
  /// tolerance, unless the oracle rule accepts it (with an oracle, both
  /// sides' errors against it are recorded per output).
  void compareTrial(json &trial, const std::string &trialName,
                    const std::vector<DeviceComparison> &comparisons, const InputSet &set);

  /// The input sets of the timed runs, the last trial's first: the last two
  /// trials', or with a single trial the last one and one more set, made
  /// with its own reference run.
  std::array<InputSet *, 2> takeTimingSets();

  /// Puts the contents of the two timed input sets into device buffers that
  /// stay put for all timed runs: the first set's into the (fresh)
  /// reference runner's own input buffers, the second's into the
  /// candidate's; a timed run on a set points both plans' pure inputs at
  /// that set's buffers (bindSet()), so no input is copied per run. Each is
  /// hashed with a fresh secret key; checkResidentInputs() compares that
  /// hash after every timed candidate run, so the inputs cannot carry state
  /// from one run to the next any more than when they were restored.
  void bindResidentInputs(const std::array<InputSet *, 2> &timed);

  /// Points both plans' pure inputs at timed input set `s`'s buffers.
  void bindSet(size_t s);

  /// Rejects the candidate if timed run `run` changed a pure input of set
  /// `s` (keyed hash on the GPU, one read of each input).
  void checkResidentInputs(size_t s, int run, const InputSet &set);

  /// Checks the candidate's buffers right after timed run `run` on `set`:
  /// guards intact, every output within tolerance of the reference's
  /// outputs for that set (compared on the GPU).
  void checkTimedRun(int run, const InputSet &set);

  /// The offset trial (kOffsetTrialAlignment, Protocol.h): one more checked
  /// run of the candidate on the last trial's inputs with every buffer at an
  /// address aligned to exactly 64 bytes, where IREE may place a binding,
  /// compared with the reference's outputs for them. Its outcome is recorded,
  /// not a verdict (the compiler's runtime gives cuMemAlloc's alignment); it
  /// runs last because a kernel that faults on a misaligned access breaks
  /// the context.
  json runOffsetTrial();

  /// Interleaved timing, rotating between two input sets held resident
  /// (bindResidentInputs()), every run prepared by prepare() as a timed run
  /// (outside the timed interval), the candidate's inputs checked after
  /// every run and the last run on each set checked in full; then one more
  /// checked candidate run (a kernel may change behaviour after many
  /// launches) and the roofline and compute floors.
  /// The preparation of timed runs is measured apart from their kernels
  /// (it synchronizes, so that its kernels are not counted in the runs').
  void runTiming();

  const Driver &driver;
  const Plan &reference, &candidate;
  const Plan *oracle; ///< the reference's f64 oracle, or null
  const VerifyOptions &options;
  json entry;
  std::unique_ptr<PlanRunner> refRunner, candRunner, oracleRunner;
  std::unique_ptr<BlockPool> pool; ///< shared by both runners
  std::unique_ptr<DeviceChecks> checks;
  std::string loadFailure;
  std::vector<Port> inputs, outputs;
  std::vector<InputSet> sets;      ///< two when timing, else one
  std::vector<OutputState> states; ///< one per output
  /// Per timed input set, per input port (data 0: an inout, restored per
  /// run instead): the buffer holding it, the key of its hash, the hash.
  struct ResidentInputs {
    std::vector<CUdeviceptr> data;
    std::vector<uint64_t> keys;
    std::vector<BufferHash> hashes;
  };
  std::array<ResidentInputs, 2> resident;
  PartClock trialParts, timingParts; ///< where the phases' time goes
  /// With an oracle: the largest errors against it over every output and
  /// trial, and whether the oracle rule accepted any output.
  double worstRefOracleErr = 0, worstCandOracleErr = 0;
  bool acceptedByOracle = false;
};

} // namespace mlir::cuda_agent::verify

#endif // CUDA_AGENT_RUN_VERIFIER_H
