//===- Verify.cpp - Candidate verification against a reference --*- C++ -*-===//
//
// The child side of verification (verifyOne; the parent, verifyBundles, is
// VerifyBundles.cpp): it holds a PlanRunner for the reference
// and one for the candidate in the same context and runs the trials. Inside
// the child a candidate's failure of any kind travels as CandidateRejected
// and ends as a "fail" verdict; a RunnerError there is the reference's (or
// the machine's) and ends the whole verification.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "BufferPlacement.h"
#include "DeviceChecks.h"
#include "Driver.h"
#include "Floors.h"
#include "Inputs.h"
#include "PartClock.h"
#include "VerifyState.h"
#include "Result.h"
#include "Runner.h"
#include "StateCheck.h"
#include "Tolerance.h"
#include "cuda-agent/Runner/Protocol.h"

#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <unistd.h>

using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::verify;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

/// Formats `value` like printf("%.<digits>g").
static std::string formatNumber(double value, int digits = 3) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*g", digits, value);
  return text;
}

std::vector<std::string> VerifyOptions::toChildArgs() const {
  std::vector<std::string> args = {
      "--trials",      std::to_string(trials),
      "--seed",        std::to_string(seed),
      "--device",      std::to_string(device),
      "--warmup",      std::to_string(warmup),
      "--runs",        std::to_string(runs),
      "--min-speedup", formatNumber(minSpeedup, 17),
      "--roofline-bw", formatNumber(rooflineBw, 17)};
  if (peakFlops > 0)
    args.insert(args.end(), {"--peak-flops", formatNumber(peakFlops, 17)});
  if (flops > 0)
    args.insert(args.end(), {"--flops", std::to_string(flops)});
  if (time)
    args.push_back("--time");
  if (!childTestFault.empty())
    args.push_back("--child-test-fault=" + childTestFault);
  return args;
}

static json describeParts(const PartClock &clock) {
  json parts = json::object();
  for (const auto &[name, seconds] : clock.getTotals())
    parts[name] = seconds;
  return parts;
}

static json describeTiming(const TimingStats &stats, int warmup) {
  return {{"median_us", stats.medianUs}, {"min_us", stats.minUs},
          {"max_us", stats.maxUs},       {"p10_us", stats.p10Us},
          {"p90_us", stats.p90Us},       {"mean_us", stats.meanUs},
          {"runs", stats.runs},          {"warmup", warmup}};
}

//===----------------------------------------------------------------------===//
// The child: one candidate against the reference
//===----------------------------------------------------------------------===//

namespace {

class Verifier {
public:
  /// `oracle`: the reference's f64 oracle, or null.
  Verifier(const Driver &driver, const Plan &reference, const Plan &candidate,
           const Plan *oracle, const VerifyOptions &options)
      : driver(driver), reference(reference), candidate(candidate), oracle(oracle),
        options(options), entry(makeCandidateEntry(candidate.bundle)),
        refRunner(asReference([&] {
          return std::make_unique<PlanRunner>(driver, reference, options.device,
                                              /*allocate=*/false);
        })),
        checks(asReference(
            [&] { return std::make_unique<DeviceChecks>(driver, options.device); })) {
    for (size_t i = 0; i < reference.buffers.size(); ++i) {
      const BufferSpec &buffer = reference.buffers[i];
      if (buffer.role == Role::Temp)
        continue;
      size_t c = 0;
      while (candidate.buffers[c].name != buffer.name)
        ++c; // findInterfaceMismatch() guarantees it exists
      size_t k = 0;
      while (oracle && oracle->buffers[k].name != buffer.name)
        ++k; // verifyOne() checked the oracle's interface
      if (buffer.isFilled())
        inputs.push_back({&buffer, i, c, k});
      if (buffer.role == Role::Output || buffer.role == Role::InOut)
        outputs.push_back({&buffer, i, c, k});
    }
    if (oracle)
      oracleRunner = withContext("oracle", [&] {
        return std::make_unique<PlanRunner>(driver, *oracle, options.device,
                                            /*allocate=*/false);
      });
    // A candidate whose kernels do not load fails here, in its constructor.
    // That is a verdict, so it is deferred to run(). One that keeps state
    // between launches is not even loaded.
    loadFailure = findCandidateState(candidate).reason;
    if (loadFailure.empty()) {
      try {
        candRunner = std::make_unique<PlanRunner>(driver, candidate, options.device,
                                                  /*allocate=*/false);
      } catch (const RunnerError &error) {
        loadFailure = error.what();
      }
    }
    // Both runners reallocate every trial; scrubbed blocks circulate through
    // one pool instead of being freed and allocated again.
    pool = std::make_unique<BlockPool>(driver);
    refRunner->setBlockPool(pool.get());
    if (candRunner)
      candRunner->setBlockPool(pool.get());
    if (oracleRunner)
      oracleRunner->setBlockPool(pool.get());
  }

  /// Runs the trials (and timing) and returns the candidate's entry.
  json run() {
    auto phaseStart = std::chrono::steady_clock::now();
    auto endPhase = [&](const char *name) {
      auto now = std::chrono::steady_clock::now();
      entry["phase_s"][name] = std::chrono::duration<double>(now - phaseStart).count();
      phaseStart = now;
    };
    try {
      if (!loadFailure.empty())
        throw CandidateRejected(loadFailure);
      allocateOutputState();
      endPhase("allocate");
      runTrials();
      endPhase("trials");
      if (options.time) {
        runTiming();
        endPhase("timing");
      }
      markPassed(entry);
      if (options.trials >= 1) {
        entry[wire::kOffsetTrial] = runOffsetTrial();
        endPhase("offset_trial");
      }
    } catch (const CandidateRejected &rejection) {
      markFailed(entry, rejection.what());
    }
    if (oracle) {
      entry[wire::kRefOracleErr] = worstRefOracleErr;
      entry[wire::kCandOracleErr] = worstCandOracleErr;
      entry[wire::kAcceptedByOracle] = acceptedByOracle;
    }
    entry["trial_phase_s"] = describeParts(trialParts);
    if (options.time)
      entry["timing_phase_s"] = describeParts(timingParts);
    return entry;
  }

private:
  /// The verifier's own device memory: per input set (two when timing, one
  /// otherwise) a copy of every input and of every reference output, and
  /// one more copy of every output for the candidate's first run.
  void allocateOutputState() {
    sets.resize(options.time ? 2 : 1);
    for (InputSet &set : sets) {
      for (const Port &port : inputs)
        set.inputs.push_back({checks->allocate(port.spec->numBytes())});
      for (const Port &port : outputs) {
        set.expected.push_back({checks->allocate(port.spec->numBytes())});
        if (oracle)
          set.oracle.push_back({checks->allocate(port.spec->numBytes())});
      }
      set.refOracleErr.assign(outputs.size(), 0);
    }
    for (const Port &port : outputs) {
      OutputState state;
      state.saved = checks->allocate(port.spec->numBytes());
      states.push_back(state);
    }
  }

  /// The input set of trial `t` (1-based): the sets take turns.
  InputSet &getSetOfTrial(int t) { return sets[size_t(t - 1) % sets.size()]; }

  /// The index of `port`'s buffer in `plan` (the reference's, the
  /// candidate's or the oracle's).
  size_t indexIn(const Port &port, const Plan &plan) const {
    return &plan == &candidate ? port.cand : &plan == oracle ? port.oracle : port.ref;
  }

  static CUdeviceptr pointerOf(PlanRunner &runner, const Port &port, bool isCandidate) {
    return runner.getBufferPointer(isCandidate ? port.cand : port.ref);
  }

  /// Generates trial `t`'s inputs (`data`) into the copies of `set`, once
  /// for the reference's and every candidate run.
  void makeInputs(InputSet &set, int t, const TrialInputs &data) {
    set.trial = t;
    for (size_t p = 0; p < inputs.size(); ++p)
      checks->generate(set.inputs[p], *inputs[p].spec, data.seed, inputs[p].ref,
                       data.distribution);
  }

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
               const InputSet &set, int timedRun = -1, bool restoreInputs = true) {
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferSpec &buffer = plan.buffers[b];
      if (buffer.isFilled()) {
        bool resident = timedRun >= 0 && buffer.role == Role::Input;
        for (size_t p = 0; p < inputs.size(); ++p)
          if (indexIn(inputs[p], plan) == b && !resident &&
              (restoreInputs || buffer.role == Role::InOut))
            checks->restore(set.inputs[p], runner.getBufferPointer(b), *inputs[p].spec);
      } else if (buffer.role == Role::Output && timedRun >= 0) {
        if (isCandidate)
          checks->poison(runner.getBufferPointer(b), buffer.numBytes(),
                         getPoisonSeed(options.seed, timedRun, b, isCandidate));
        else if (timedRun == 0)
          runner.fill(b, getPoisonByte(buffer.dtype));
      } else if (buffer.role == Role::Constant) {
        runner.upload(b, buffer.data);
      } else {
        runner.fill(b, buffer.role == Role::Output ? getPoisonByte(buffer.dtype) : 0);
      }
    }
  }

  /// Returns the name of the first pure input whose contents differ from
  /// `set`'s, or "".
  std::string findChangedInput(PlanRunner &runner, bool isCandidate, const InputSet &set) {
    for (size_t p = 0; p < inputs.size(); ++p)
      if (inputs[p].spec->role == Role::Input &&
          checks->firstDifference(set.inputs[p], pointerOf(runner, inputs[p], isCandidate),
                                  *inputs[p].spec))
        return inputs[p].spec->name;
    return "";
  }

  /// One checked reference run on `set`'s inputs, on fresh allocations. Its
  /// outputs are captured into `set` on the device (masked) and its buffers
  /// scrubbed and freed (release(): the scrub after use and the scrub
  /// before freeing in one pass).
  void runReference(InputSet &set) {
    asReference([&] {
      refRunner->reallocate();
      prepare(*refRunner, reference, false, set);
      refRunner->runChecked();
      for (const std::string &violation : refRunner->findGuardViolations())
        throw RunnerError(kExitChecks, "wrote outside buffer " + violation);
      std::string changed = findChangedInput(*refRunner, false, set);
      if (!changed.empty())
        throw RunnerError(kExitChecks, "changed input " + changed);
      for (size_t o = 0; o < outputs.size(); ++o) {
        CUdeviceptr data = pointerOf(*refRunner, outputs[o], false);
        checks->capture(data, *outputs[o].spec, set.expected[o]);
        if (oracle) {
          const BufferSpec &spec = *outputs[o].spec;
          set.refOracleErr[o] =
              checks->compare(set.oracle[o], data, spec, toleranceOf(spec)).comparison.maxAbsErr;
          worstRefOracleErr = std::max(worstRefOracleErr, set.refOracleErr[o]);
        }
      }
      refRunner->release();
    });
  }

  /// With an oracle: one checked oracle run on `set`'s inputs, its outputs
  /// captured into `set` (before runReference(), which measures the
  /// reference's error against them). Trusted like the reference.
  void runOracle(InputSet &set) {
    if (!oracle)
      return;
    withContext("oracle", [&] {
      oracleRunner->reallocate();
      prepare(*oracleRunner, *oracle, false, set);
      oracleRunner->runChecked();
      for (size_t o = 0; o < outputs.size(); ++o)
        checks->capture(oracleRunner->getBufferPointer(outputs[o].oracle), *outputs[o].spec,
                        set.oracle[o]);
      oracleRunner->release();
    });
  }

  /// With an oracle: the candidate's output `o` compared with the oracle's
  /// for `set` under the oracle rule (getOracleTolerance()).
  Comparison compareWithOracle(const InputSet &set, size_t o) {
    const BufferSpec &spec = *outputs[o].spec;
    Comparison c = asCandidate([&] {
                     return checks->compare(
                         set.oracle[o], pointerOf(*candRunner, outputs[o], true), spec,
                         getOracleTolerance(set.refOracleErr[o], set.oracle[o].scale));
                   }).comparison;
    c.ok = c.ok && isWithinOracleBound(c.maxAbsErr, set.refOracleErr[o]);
    worstCandOracleErr = std::max(worstCandOracleErr, c.maxAbsErr);
    return c;
  }

  /// One checked candidate run on `set`'s inputs, on its current
  /// allocations, outputs poisoned. `restoreInputs` false: the inputs were
  /// compared bitwise with `set`'s after the previous run and still hold it.
  void runCandidate(const InputSet &set, bool restoreInputs = true) {
    asCandidate([&] {
      prepare(*candRunner, candidate, true, set, -1, restoreInputs);
      candRunner->runChecked();
      for (const std::string &violation : candRunner->findGuardViolations())
        throw CandidateRejected("wrote outside buffer " + violation +
                                ": guard bytes changed");
      std::string changed = findChangedInput(*candRunner, true, set);
      if (!changed.empty())
        throw CandidateRejected("changed input " + changed);
    });
  }

  /// Copies the candidate's outputs into the saved copies.
  void saveCandidateOutputs() {
    asCandidate([&] {
      for (size_t o = 0; o < outputs.size(); ++o)
        CU_CHECK(driver, cuMemcpyDtoDAsync, states[o].saved,
                 pointerOf(*candRunner, outputs[o], true), outputs[o].spec->numBytes(),
                 nullptr);
      CU_CHECK(driver, cuStreamSynchronize, nullptr);
    });
  }

  /// Where the candidate's output `o` first differs from its saved copy, as
  /// "[i, j] (x vs y)" (saved first), or "" when it does not.
  std::string describeChangeSinceSaved(size_t o) {
    std::optional<uint64_t> i = asCandidate([&] {
      return checks->firstDifference(states[o].saved, pointerOf(*candRunner, outputs[o], true),
                                     *outputs[o].spec);
    });
    return i ? describeDifference(o, *i) : "";
  }

  /// Element `i` of the candidate's output `o` against its saved copy, as
  /// "[i, j] (x vs y)" (saved first).
  std::string describeDifference(size_t o, uint64_t i) {
    return asCandidate([&]() -> std::string {
      const Port &port = outputs[o];
      CUdeviceptr now = pointerOf(*candRunner, port, true);
      return formatDims(unflattenIndex(i, port.spec->shape)) + " (" +
             formatValue(checks->readElement(states[o].saved, *port.spec, i)) + " vs " +
             formatValue(checks->readElement(now, *port.spec, i)) + ")";
    });
  }

  /// "got 1.5" or, when the element still holds the poison, "got nan (never
  /// written: still the 0xFF poison)".
  std::string describeGot(const Port &port, uint64_t gotBits, double value) const {
    unsigned size = getInfo(port.spec->dtype).size;
    uint8_t poison = getPoisonByte(port.spec->dtype);
    bool poisoned = true;
    for (unsigned k = 0; k < size; ++k)
      poisoned &= uint8_t(gotBits >> (8 * k)) == poison;
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%02X", poison);
    return "got " + formatValue(value) +
           (poisoned ? std::string(" (never written: still the ") + hex + " poison)"
                     : "");
  }

  [[noreturn]] void rejectTrial(json &trial, const std::string &reason) {
    trial["ok"] = false;
    entry["trials"].push_back(trial);
    throw CandidateRejected(reason);
  }

  void runTrials() {
    for (int t = 1; t <= options.trials; ++t) {
      Distribution distribution =
          kTrialDistributions[(t - 1) % std::size(kTrialDistributions)];
      std::string trialName = "trial " + std::to_string(t) + " (" +
                              getDistributionName(distribution) + ")";
      json trial = {{"trial", t}, {"distribution", getDistributionName(distribution)}};
      InputSet &set = getSetOfTrial(t);
      trialParts.measure("inputs", [&] {
        asReference([&] { makeInputs(set, t, {options.seed * 1000 + t, distribution}); });
      });
      trialParts.measure("oracle", [&] { runOracle(set); });
      trialParts.measure("reference", [&] { runReference(set); });
      trialParts.measure("candidate", [&] {
        asCandidate([&] { candRunner->reallocate(); });
        runCandidate(set);
        saveCandidateOutputs();
        runCandidate(set, /*restoreInputs=*/false);
      });

      // One pass over each output: the comparison with the reference's and,
      // in the same kernel, the race check against the saved first run.
      std::vector<DeviceComparison> comparisons;
      trialParts.measure("compare", [&] {
        for (size_t o = 0; o < outputs.size(); ++o)
          comparisons.push_back(asCandidate([&] {
            return checks->compare(set.expected[o],
                                   pointerOf(*candRunner, outputs[o], true),
                                   *outputs[o].spec, toleranceOf(*outputs[o].spec),
                                   states[o].saved);
          }));
      });
      for (size_t o = 0; o < outputs.size(); ++o)
        if (std::optional<uint64_t> i = comparisons[o].otherDifference)
          rejectTrial(trial, "outputs differ between two identical runs (race): " +
                                 outputs[o].spec->name + " first differs at " +
                                 describeDifference(o, *i) + " on " + trialName);

      if (t > 1)
        for (size_t o = 0; o < outputs.size(); ++o)
          if (comparisons[o].gotHash == states[o].previousCand &&
              set.expected[o].hash != states[o].previousRef)
            rejectTrial(trial, "output " + outputs[o].spec->name +
                                   " does not change when inputs change (trials " +
                                   std::to_string(t - 1) + " and " +
                                   std::to_string(t) +
                                   " gave identical bytes; the reference's differ)");

      compareTrial(trial, trialName, comparisons, set);
      entry["trials"].push_back(trial);
      for (size_t o = 0; o < outputs.size(); ++o) {
        states[o].previousRef = set.expected[o].hash;
        states[o].previousCand = comparisons[o].gotHash;
      }
    }
  }

  /// The tolerance of an output: its dtype's (TF32's where the reference
  /// allows it), widened by the reference's reduction length.
  Tolerance toleranceOf(const BufferSpec &spec) const {
    return getTolerance(spec.dtype, reference.reductionLength,
                        reference.reductionAccumulator,
                        reference.tf32Products);
  }

  /// Fills the trial record with the worst output's errors and rejects on
  /// the first mismatch: an output off the reference's by more than the
  /// tolerance, unless the oracle rule accepts it (with an oracle, both
  /// sides' errors against it are recorded per output).
  void compareTrial(json &trial, const std::string &trialName,
                    const std::vector<DeviceComparison> &comparisons, const InputSet &set) {
    json perOutput = json::object();
    std::optional<size_t> failed;
    std::string oracleNote; // the failed output's errors against the oracle
    double worstAbs = 0, worstRel = 0;
    size_t worstOutput = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const BufferSpec &spec = *outputs[o].spec;
      const Comparison &c = comparisons[o].comparison;
      json &record = perOutput[spec.name] = {
          {"max_abs_err", c.maxAbsErr},
          {"max_rel_err", c.maxRelErr},
          {"worst_index", unflattenIndex(c.worst, spec.shape)},
          {"bad_elements", c.numBad},
          {"ok", c.ok}};
      bool ok = c.ok;
      if (oracle) {
        Comparison byOracle = compareWithOracle(set, o);
        bool rescued = !c.ok && byOracle.ok;
        record[wire::kRefOracleErr] = set.refOracleErr[o];
        record[wire::kCandOracleErr] = byOracle.maxAbsErr;
        record[wire::kAcceptedByOracle] = rescued;
        acceptedByOracle |= rescued;
        ok = c.ok || byOracle.ok;
        if (!ok && !failed)
          oracleNote = "; against the f64 oracle: error " + formatNumber(byOracle.maxAbsErr) +
                       ", the reference's " + formatNumber(set.refOracleErr[o]) +
                       " (allowed " + formatNumber(kOracleErrorFactor) + "x)";
      }
      record["ok"] = ok;
      if (!ok && !failed)
        failed = o;
      if (c.maxAbsErr >= worstAbs)
        worstOutput = o;
      worstAbs = std::max(worstAbs, c.maxAbsErr);
      worstRel = std::max(worstRel, c.maxRelErr);
    }
    size_t shown = failed ? *failed : worstOutput;
    trial["max_abs_err"] = worstAbs;
    trial["max_rel_err"] = worstRel;
    if (!outputs.empty()) {
      trial["worst_output"] = outputs[shown].spec->name;
      trial["worst_index"] = unflattenIndex(comparisons[shown].comparison.worst,
                                            outputs[shown].spec->shape);
    }
    trial["outputs"] = perOutput;
    trial["ok"] = !failed.has_value();
    if (!failed)
      return;
    const Port &port = outputs[*failed];
    const Comparison &c = comparisons[*failed].comparison;
    Tolerance tolerance = toleranceOf(*port.spec);
    std::string bound =
        tolerance.exact ? "exact match required"
                        : "rtol " + formatNumber(tolerance.rtol) + ", atol " +
                              formatNumber(tolerance.atol) + " x max|ref| " +
                              formatNumber(c.scale, 4);
    rejectTrial(trial, "mismatch in " + port.spec->name + " at " +
                           formatDims(unflattenIndex(c.worst, port.spec->shape)) +
                           " on " + trialName + ": " +
                           describeGot(port, comparisons[*failed].gotBits, c.got) +
                           ", expected " + formatValue(c.expected) + " (" +
                           std::to_string(c.numBad) + " of " +
                           std::to_string(c.numElements) + " elements off; " +
                           bound + ")" + oracleNote);
  }

  /// The input sets of the timed runs, the last trial's first: the last two
  /// trials', or with a single trial the last one and one more set, made
  /// with its own reference run.
  std::array<InputSet *, 2> takeTimingSets() {
    int last = std::max(options.trials, 1);
    InputSet &lastSet = getSetOfTrial(last), &other = getSetOfTrial(last + 1);
    if (last < 2) {
      int t = last + 1;
      Distribution distribution =
          kTrialDistributions[(t - 1) % std::size(kTrialDistributions)];
      asReference([&] { makeInputs(other, t, {options.seed * 1000 + t, distribution}); });
      runOracle(other);
      runReference(other);
    }
    return {&lastSet, &other};
  }

  /// Puts the contents of the two timed input sets into device buffers that
  /// stay put for all timed runs: the first set's into the (fresh)
  /// reference runner's own input buffers, the second's into the
  /// candidate's; a timed run on a set points both plans' pure inputs at
  /// that set's buffers (bindSet()), so no input is copied per run. Each is
  /// hashed with a fresh secret key; checkResidentInputs() compares that
  /// hash after every timed candidate run, so the inputs cannot carry state
  /// from one run to the next any more than when they were restored.
  void bindResidentInputs(const std::array<InputSet *, 2> &timed) {
    asReference([&] {
      refRunner->reallocate(); // released after the last reference run
      for (size_t s = 0; s < timed.size(); ++s) {
        ResidentInputs &r = resident[s];
        r = ResidentInputs();
        for (size_t p = 0; p < inputs.size(); ++p) {
          CUdeviceptr data = 0;
          uint64_t key = 0;
          BufferHash hash{};
          if (inputs[p].spec->role == Role::Input) {
            data = s == 0 ? refRunner->getBufferPointer(inputs[p].ref)
                          : candRunner->getBufferPointer(inputs[p].cand);
            checks->restore(timed[s]->inputs[p], data, *inputs[p].spec);
            key = DeviceChecks::makeKey();
            hash = checks->hash(data, *inputs[p].spec, key);
          }
          r.data.push_back(data);
          r.keys.push_back(key);
          r.hashes.push_back(hash);
        }
      }
    });
  }

  /// Points both plans' pure inputs at timed input set `s`'s buffers.
  void bindSet(size_t s) {
    for (size_t p = 0; p < inputs.size(); ++p)
      if (CUdeviceptr data = resident[s].data[p]) {
        refRunner->bindBuffer(inputs[p].ref, data);
        candRunner->bindBuffer(inputs[p].cand, data);
      }
  }

  /// Rejects the candidate if timed run `run` changed a pure input of set
  /// `s` (keyed hash on the GPU, one read of each input).
  void checkResidentInputs(size_t s, int run, const InputSet &set) {
    for (size_t p = 0; p < inputs.size(); ++p) {
      if (!resident[s].data[p])
        continue;
      BufferHash now = asCandidate([&] {
        return checks->hash(resident[s].data[p], *inputs[p].spec, resident[s].keys[p]);
      });
      if (now != resident[s].hashes[p])
        throw CandidateRejected("changed input " + inputs[p].spec->name + " on timed run " +
                                std::to_string(run + 1) + " (inputs of trial " +
                                std::to_string(set.trial) + ")");
    }
  }

  /// Checks the candidate's buffers right after timed run `run` on `set`:
  /// guards intact, every output within tolerance of the reference's
  /// outputs for that set (compared on the GPU).
  void checkTimedRun(int run, const InputSet &set) {
    std::string where = "timed run " + std::to_string(run + 1) + " (inputs of trial " +
                        std::to_string(set.trial) + ")";
    asCandidate([&] {
      for (const std::string &violation : candRunner->findGuardViolations())
        throw CandidateRejected("wrote outside buffer " + violation +
                                ": guard bytes changed on " + where);
      // The reference's buffers hold the first timed input set, which the
      // candidate reads in place.
      for (const std::string &violation : refRunner->findGuardViolations())
        throw CandidateRejected("wrote outside buffer " + violation +
                                ": guard bytes changed on " + where +
                                " (the input set held in the reference's buffers)");
    });
    for (size_t o = 0; o < outputs.size(); ++o) {
      const BufferSpec &spec = *outputs[o].spec;
      Comparison c = asCandidate([&] {
                       return checks->compare(set.expected[o],
                                              pointerOf(*candRunner, outputs[o], true),
                                              spec, toleranceOf(spec));
                     }).comparison;
      if (!c.ok && !(oracle && compareWithOracle(set, o).ok))
        throw CandidateRejected(
            "output of a timed run differs from the reference's: " + spec.name +
            " at " + formatDims(unflattenIndex(c.worst, spec.shape)) + " on " + where +
            ": got " + formatValue(c.got) + ", expected " + formatValue(c.expected) +
            " (" + std::to_string(c.numBad) + " of " + std::to_string(c.numElements) +
            " elements off; the kernel behaves differently when timed)");
    }
  }

  /// The offset trial (kOffsetTrialAlignment, Protocol.h): one more checked
  /// run of the candidate on the last trial's inputs with every buffer at an
  /// address aligned to exactly 64 bytes, where IREE may place a binding,
  /// compared with the reference's outputs for them. Its outcome is recorded,
  /// not a verdict (the compiler's runtime gives cuMemAlloc's alignment); it
  /// runs last because a kernel that faults on a misaligned access breaks
  /// the context.
  json runOffsetTrial() {
    json record = {{wire::kAlignment, kOffsetTrialAlignment}};
    try {
      const InputSet &set = getSetOfTrial(options.trials);
      std::string where = "with every buffer at a " + std::to_string(kOffsetTrialAlignment) +
                          "-byte (not " + std::to_string(2 * kOffsetTrialAlignment) +
                          "-byte) aligned address, inputs of trial " + std::to_string(set.trial);
      asCandidate([&] {
        candRunner->unbindBuffers();
        candRunner->reallocate(kOffsetTrialAlignment);
      });
      for (size_t b = 0; b < candidate.buffers.size(); ++b)
        if (!isExactlyAligned(candRunner->getBufferPointer(b), kOffsetTrialAlignment))
          throw CandidateRejected("the runner could not place buffer '" +
                                  candidate.buffers[b].name + "' " + where);
      try {
        runCandidate(set);
      } catch (const CandidateRejected &rejection) {
        throw CandidateRejected(std::string(rejection.what()) + " " + where);
      }
      for (size_t o = 0; o < outputs.size(); ++o) {
        const BufferSpec &spec = *outputs[o].spec;
        Comparison c = asCandidate([&] {
                         return checks->compare(set.expected[o],
                                                pointerOf(*candRunner, outputs[o], true), spec,
                                                toleranceOf(spec));
                       }).comparison;
        if (!c.ok && !(oracle && compareWithOracle(set, o).ok))
          throw CandidateRejected("mismatch in " + spec.name + " at " +
                                  formatDims(unflattenIndex(c.worst, spec.shape)) + " " + where +
                                  ": got " + formatValue(c.got) + ", expected " +
                                  formatValue(c.expected) + " (" + std::to_string(c.numBad) +
                                  " of " + std::to_string(c.numElements) + " elements off)");
      }
      record[wire::kOk] = true;
    } catch (const CandidateRejected &rejection) {
      record[wire::kOk] = false;
      record[wire::kReason] = rejection.what();
    }
    return record;
  }

  /// Interleaved timing, rotating between two input sets held resident
  /// (bindResidentInputs()), every run prepared by prepare() as a timed run
  /// (outside the timed interval), the candidate's inputs checked after
  /// every run and the last run on each set checked in full; then one more
  /// checked candidate run (a kernel may change behaviour after many
  /// launches) and the roofline and compute floors.
  /// The preparation of timed runs is measured apart from their kernels
  /// (it synchronizes, so that its kernels are not counted in the runs').
  void runTiming() {
    std::array<InputSet *, 2> timed;
    timingParts.measure("input_sets", [&] {
      timed = takeTimingSets();
      bindResidentInputs(timed);
    });
    std::vector<double> refTimes, candTimes;
    int warmup = options.warmup, runs = options.runs;
    auto synchronize = [&] { CU_CHECK(driver, cuStreamSynchronize, nullptr); };
    for (int run = 0; run < warmup + runs; ++run) {
      size_t s = size_t(run) % timed.size();
      const InputSet &set = *timed[s];
      asCandidate([&] { bindSet(s); });
      timingParts.measure("prepare_reference", [&] {
        asReference([&] {
          prepare(*refRunner, reference, false, set, run);
          synchronize();
        });
      });
      double refUs = timingParts.measure(
          "reference_runs", [&] { return asReference([&] { return refRunner->timeOnce(); }); });
      timingParts.measure("prepare_candidate", [&] {
        asCandidate([&] {
          prepare(*candRunner, candidate, true, set, run);
          synchronize();
        });
      });
      double candUs = timingParts.measure(
          "candidate_runs", [&] { return asCandidate([&] { return candRunner->timeOnce(); }); });
      timingParts.measure("input_checks", [&] { checkResidentInputs(s, run, set); });
      if (run == 0 && refUs + candUs >= kSlowTimedRunUs) {
        // Slow plans: few runs (see kSlowTimedRunUs); this one is the
        // warm-up, or the first timed run when none was asked for.
        warmup = std::min(warmup, 1);
        runs = std::min(options.runs,
                        std::max(kMinTimedRuns,
                                 int(std::ceil(kTimedKernelBudgetUs / (refUs + candUs)))));
      }
      if (run >= warmup) {
        refTimes.push_back(refUs);
        candTimes.push_back(candUs);
      }
      if (run >= warmup + runs - int(timed.size()))
        timingParts.measure("output_checks", [&] { checkTimedRun(run, set); });
    }
    int total = warmup + runs;
    timingParts.measure("release", [&] {
      asCandidate([&] { candRunner->unbindBuffers(); });
      asReference([&] { refRunner->release(); });
    });
    TimingStats refStats = summarizeTimes(refTimes);
    TimingStats candStats = summarizeTimes(candTimes);
    uint64_t bytes = getInterfaceBytes(reference);
    double floorUs = double(bytes) / options.rooflineBw * 1e6;
    int64_t flops = options.flops > 0 ? options.flops : reference.flops;
    PeakRate peak = getPeakRate(reference);
    if (options.peakFlops > 0)
      peak = {options.peakFlops, "rate given by --peak-flops"};
    double computeFloorUs = double(flops) / peak.flopsPerSecond * 1e6;
    recordTiming(entry, refStats.medianUs, candStats.medianUs, options.minSpeedup);
    entry["roofline_floor_us"] = floorUs;
    entry["compute_floor_us"] = flops > 0 ? json(computeFloorUs) : json(nullptr);
    entry["timed_input_sets"] = std::min(total, int(timed.size()));
    entry["ref_time"] = describeTiming(refStats, warmup);
    entry["cand_time"] = describeTiming(candStats, warmup);

    // The saved copies hold the last trial's first run.
    timingParts.measure("after_timing", [&] {
      runCandidate(*timed[0]);
      for (size_t o = 0; o < outputs.size(); ++o) {
        std::string difference = describeChangeSinceSaved(o);
        if (!difference.empty())
          throw CandidateRejected("output " + outputs[o].spec->name +
                                  " changed after the timing runs at " + difference +
                                  " (the kernel behaves differently when run many times)");
      }
    });
    if (candStats.medianUs < options.rooflineMargin * floorUs)
      throw CandidateRejected(
          "faster than the roofline floor: " + formatNumber(candStats.medianUs) +
          " us < " + formatNumber(options.rooflineMargin) + " x " +
          formatNumber(floorUs) + " us floor (" + std::to_string(bytes) +
          " bytes at " + formatNumber(options.rooflineBw) + " B/s; suspicious)");
    if (flops > 0 && candStats.medianUs < options.rooflineMargin * computeFloorUs)
      throw CandidateRejected(
          "faster than the compute floor: " + formatNumber(candStats.medianUs) +
          " us < " + formatNumber(options.rooflineMargin) + " x " +
          formatNumber(computeFloorUs) + " us floor (" + std::to_string(flops) +
          " flops at " + formatNumber(peak.flopsPerSecond) + " FLOP/s, the " +
          peak.unit + "; suspicious)");
  }

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

/// --child-test-fault: misbehaves like a broken child would.
void applyChildTestFault(const std::string &fault) {
  if (fault == "hang") {
    for (;;)
      pause();
  } else if (fault == "crash") {
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
  } else if (fault == "exit") {
    _exit(5);
  }
}

} // namespace

json mlir::cuda_agent::verifyOne(const fs::path &referencePath,
                                 const fs::path &candidatePath,
                                 const VerifyOptions &options) {
  Plan reference = withContext("reference", [&] { return loadPlan(referencePath); });
  Plan candidate = withContext("candidate", [&] { return loadPlan(candidatePath); });
  std::string mismatch = findInterfaceMismatch(reference, candidate);
  if (!mismatch.empty())
    throw RunnerError(kExitUsage, mismatch);
  // The reference's f64 oracle, when the compiler wrote one into its bundle.
  std::optional<Plan> oracle;
  fs::path oraclePath = referencePath / kOracleBundleName;
  if (fs::exists(oraclePath / "plan.json")) {
    oracle = withContext("oracle", [&] { return loadPlan(oraclePath); });
    std::string oracleMismatch = findInterfaceMismatch(reference, *oracle);
    if (!oracleMismatch.empty())
      throw RunnerError(kExitUsage, "oracle: " + oracleMismatch);
  }
  applyChildTestFault(options.childTestFault);
  // Deliberately leaked: after a candidate's fault the context is broken and
  // tearing the runners down could block before the verdict is printed. The
  // child exits right after printing it.
  auto started = std::chrono::steady_clock::now();
  auto *driver = new Driver();
  auto *verifier =
      new Verifier(*driver, reference, candidate, oracle ? &*oracle : nullptr, options);
  double setup =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  json entry = verifier->run();
  entry["phase_s"]["setup"] = setup; // driver, contexts, modules, buffers
  return {{"status", "ok"}, {"candidate", std::move(entry)}};
}
