//===- Verify.cpp - Candidate verification against a reference --*- C++ -*-===//
//
// The parent side (verifyBundles) checks plans and drives one child per
// candidate; the child side (verifyOne) holds a PlanRunner for the reference
// and one for the candidate in the same context and runs the trials. Inside
// the child a candidate's failure of any kind travels as CandidateRejected
// and ends as a "fail" verdict; a RunnerError there is the reference's (or
// the machine's) and ends the whole verification.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "Child.h"
#include "Driver.h"
#include "Floors.h"
#include "Inputs.h"
#include "Runner.h"
#include "StateCheck.h"
#include "Tolerance.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <sstream>
#include <unistd.h>

using namespace mlir::cuda_agent;
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

std::string mlir::cuda_agent::findInterfaceMismatch(const Plan &reference,
                                                    const Plan &candidate) {
  auto find = [](const Plan &plan, const std::string &name) -> const BufferSpec * {
    for (const BufferSpec &buffer : plan.buffers)
      if (buffer.name == name)
        return &buffer;
    return nullptr;
  };
  for (const BufferSpec &want : reference.buffers) {
    if (want.role == Role::Temp)
      continue;
    const BufferSpec *have = find(candidate, want.name);
    std::string prefix = "plan mismatch: candidate buffer " + want.name + " has ";
    if (!have)
      return "plan mismatch: candidate lacks buffer " + want.name + " (" +
             getRoleName(want.role) + ") of the reference";
    if (have->role != want.role)
      return prefix + "role " + getRoleName(have->role) + " but reference has " +
             getRoleName(want.role);
    if (have->dtype != want.dtype)
      return prefix + "dtype " + getInfo(have->dtype).name +
             " but reference has " + getInfo(want.dtype).name;
    if (have->shape != want.shape)
      return prefix + "shape " + formatDims(have->shape) + " but reference has " +
             formatDims(want.shape);
  }
  for (const BufferSpec &have : candidate.buffers) {
    const BufferSpec *want = find(reference, have.name);
    if (have.role != Role::Temp && (!want || want->role == Role::Temp))
      return "plan mismatch: candidate has buffer " + have.name + " (" +
             getRoleName(have.role) +
             ") that the reference lacks (only temps may differ)";
  }
  return "";
}

/// The candidate entry of the summary before any verdict details.
static json makeEntry(const fs::path &bundle) {
  return {{"bundle", fs::absolute(bundle).string()},
          {"verify", "fail"},
          {"reason", ""},
          {"trials", json::array()},
          {"ref_us", nullptr},
          {"cand_us", nullptr},
          {"speedup", nullptr},
          {"decision", "not-timed"},
          {"accepted", false}};
}

static json makeFailedEntry(const fs::path &bundle, const std::string &reason) {
  json entry = makeEntry(bundle);
  entry["reason"] = reason;
  return entry;
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
uint8_t getPoisonByte(DType type) { return getInfo(type).isFloat ? 0xFF : 0xA5; }

/// A buffer both plans have: an input (input/inout) or output (output/inout).
struct Port {
  const BufferSpec *spec; ///< the reference's
  size_t ref, cand;       ///< buffer indices in either plan
};

using Bytes = std::vector<uint8_t>;
using PortData = std::vector<Bytes>; ///< one per port

/// The inputs of one trial and the reference's outputs for them; timing
/// rotates between the last two.
struct InputSet {
  int trial;
  PortData inputs, expected;
};

/// The seed of the poison before timed run `run` of buffer `buffer`.
uint64_t getPoisonSeed(uint64_t seed, int run, size_t buffer, bool isCandidate) {
  return (seed * 0x100000001B3ull + uint64_t(run)) * 0x9E3779B97F4A7C15ull ^
         (uint64_t(buffer) << 1 | uint64_t(isCandidate));
}

class Verifier {
public:
  Verifier(const Driver &driver, const Plan &reference, const Plan &candidate,
           const VerifyOptions &options)
      : reference(reference), candidate(candidate), options(options),
        entry(makeEntry(candidate.bundle)),
        refRunner(asReference([&] {
          return std::make_unique<PlanRunner>(driver, reference, options.device);
        })) {
    for (size_t i = 0; i < reference.buffers.size(); ++i) {
      const BufferSpec &buffer = reference.buffers[i];
      if (buffer.role == Role::Temp)
        continue;
      size_t c = 0;
      while (candidate.buffers[c].name != buffer.name)
        ++c; // findInterfaceMismatch() guarantees it exists
      if (buffer.isFilled())
        inputs.push_back({&buffer, i, c});
      if (buffer.role == Role::Output || buffer.role == Role::InOut)
        outputs.push_back({&buffer, i, c});
    }
    // A candidate whose kernels do not load fails here, in its constructor.
    // That is a verdict, so it is deferred to run(). One that keeps state
    // between launches is not even loaded.
    loadFailure = findCandidateState(candidate).reason;
    if (loadFailure.empty()) {
      try {
        candRunner = std::make_unique<PlanRunner>(driver, candidate, options.device);
      } catch (const RunnerError &error) {
        loadFailure = error.what();
      }
    }
  }

  /// Runs the trials (and timing) and returns the candidate's entry.
  json run() {
    try {
      if (!loadFailure.empty())
        throw CandidateRejected(loadFailure);
      runTrials();
      if (options.time)
        runTiming();
      entry["verify"] = "pass";
      entry["accepted"] = entry["decision"] == "faster";
    } catch (const CandidateRejected &rejection) {
      entry["verify"] = "fail";
      entry["reason"] = rejection.what();
      entry["accepted"] = false;
    }
    return entry;
  }

private:
  PortData makeInputs(int trial, Distribution distribution) const {
    PortData data;
    for (const Port &port : inputs)
      data.push_back(generateInput(*port.spec, options.seed * 1000 + trial,
                                   port.ref, distribution));
    return data;
  }

  /// Fills `runner`'s buffers for a checked run: inputs uploaded, outputs
  /// poisoned, temps (the workspace among them) zeroed.
  void prepare(PlanRunner &runner, const Plan &plan, bool isCandidate,
               const PortData &data) {
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferSpec &buffer = plan.buffers[b];
      if (buffer.isFilled()) {
        for (size_t p = 0; p < inputs.size(); ++p)
          if ((isCandidate ? inputs[p].cand : inputs[p].ref) == b)
            runner.upload(b, data[p]);
      } else {
        runner.fill(b, buffer.role == Role::Output ? getPoisonByte(buffer.dtype) : 0);
      }
    }
  }

  /// Returns the name of the first pure input whose contents changed, or "".
  std::string findChangedInput(PlanRunner &runner, bool isCandidate,
                               const PortData &data) {
    for (size_t p = 0; p < inputs.size(); ++p)
      if (inputs[p].spec->role == Role::Input &&
          runner.download(isCandidate ? inputs[p].cand : inputs[p].ref) != data[p])
        return inputs[p].spec->name;
    return "";
  }

  PortData downloadOutputs(PlanRunner &runner, bool isCandidate) {
    PortData data;
    for (const Port &port : outputs)
      data.push_back(runner.download(isCandidate ? port.cand : port.ref));
    return data;
  }

  /// One checked reference run on fresh allocations. The reference's buffers
  /// are scrubbed once its outputs are downloaded.
  PortData runReference(const PortData &data) {
    return asReference([&] {
      refRunner->reallocate();
      prepare(*refRunner, reference, false, data);
      refRunner->runChecked();
      for (const std::string &violation : refRunner->findGuardViolations())
        throw RunnerError(kExitChecks, "wrote outside buffer " + violation);
      std::string changed = findChangedInput(*refRunner, false, data);
      if (!changed.empty())
        throw RunnerError(kExitChecks, "changed input " + changed);
      PortData result = downloadOutputs(*refRunner, false);
      refRunner->scrub();
      return result;
    });
  }

  /// One checked candidate run on its current allocations, outputs poisoned.
  PortData runCandidate(const PortData &data) {
    return asCandidate([&] {
      prepare(*candRunner, candidate, true, data);
      candRunner->runChecked();
      for (const std::string &violation : candRunner->findGuardViolations())
        throw CandidateRejected("wrote outside buffer " + violation +
                                ": guard bytes changed");
      std::string changed = findChangedInput(*candRunner, true, data);
      if (!changed.empty())
        throw CandidateRejected("changed input " + changed);
      return downloadOutputs(*candRunner, true);
    });
  }

  /// The first element where `a` and `b` differ bitwise, as "[i, j] (x vs y)".
  std::string describeFirstDifference(const Port &port, const Bytes &a,
                                      const Bytes &b) const {
    DType type = port.spec->dtype;
    unsigned size = getInfo(type).size;
    uint64_t i = 0;
    while (std::memcmp(a.data() + i * size, b.data() + i * size, size) == 0)
      ++i;
    return formatDims(unflattenIndex(i, port.spec->shape)) + " (" +
           formatValue(decodeFloat(type, a.data() + i * size)) + " vs " +
           formatValue(decodeFloat(type, b.data() + i * size)) + ")";
  }

  /// "got 1.5" or, when the element still holds the poison, "got nan (never
  /// written: still the 0xFF poison)".
  std::string describeGot(const Port &port, const Bytes &got, uint64_t index,
                          double value) const {
    unsigned size = getInfo(port.spec->dtype).size;
    uint8_t poison = getPoisonByte(port.spec->dtype);
    bool poisoned = true;
    for (unsigned k = 0; k < size; ++k)
      poisoned &= got[index * size + k] == poison;
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
    PortData previousCand;
    for (int t = 1; t <= options.trials; ++t) {
      Distribution distribution =
          kTrialDistributions[(t - 1) % std::size(kTrialDistributions)];
      std::string trialName = "trial " + std::to_string(t) + " (" +
                              getDistributionName(distribution) + ")";
      json trial = {{"trial", t}, {"distribution", getDistributionName(distribution)}};
      PortData data = makeInputs(t, distribution);
      PortData expected = runReference(data);
      asCandidate([&] { candRunner->reallocate(); });
      PortData got = runCandidate(data);
      PortData again = runCandidate(data);

      for (size_t o = 0; o < outputs.size(); ++o)
        if (got[o] != again[o])
          rejectTrial(trial, "outputs differ between two identical runs (race): " +
                                 outputs[o].spec->name + " first differs at " +
                                 describeFirstDifference(outputs[o], got[o], again[o]) +
                                 " on " + trialName);

      if (t > 1)
        for (size_t o = 0; o < outputs.size(); ++o)
          if (got[o] == previousCand[o] && expected[o] != recent.back().expected[o])
            rejectTrial(trial, "output " + outputs[o].spec->name +
                                   " does not change when inputs change (trials " +
                                   std::to_string(t - 1) + " and " +
                                   std::to_string(t) +
                                   " gave identical bytes; the reference's differ)");

      compareTrial(trial, trialName, expected, got);
      entry["trials"].push_back(trial);
      previousCand = std::move(got);
      recent.push_back({t, std::move(data), std::move(expected)});
      if (recent.size() > 2)
        recent.pop_front();
    }
    lastCand = std::move(previousCand);
  }

  /// The tolerance of an output: its dtype's, widened by the reference's
  /// reduction length.
  Tolerance toleranceOf(const BufferSpec &spec) const {
    return getTolerance(spec.dtype, reference.reductionLength,
                        reference.reductionAccumulator);
  }

  /// Compares every output against the reference; fills the trial record
  /// with the worst output's errors and rejects on the first mismatch.
  void compareTrial(json &trial, const std::string &trialName,
                    const PortData &expected, const PortData &got) {
    json perOutput = json::object();
    std::optional<size_t> failed;
    std::vector<Comparison> comparisons;
    double worstAbs = 0, worstRel = 0;
    size_t worstOutput = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const BufferSpec &spec = *outputs[o].spec;
      Comparison c = compareElements(spec.dtype, toleranceOf(spec), expected[o].data(),
                                     got[o].data(), spec.numElements());
      perOutput[spec.name] = {{"max_abs_err", c.maxAbsErr},
                              {"max_rel_err", c.maxRelErr},
                              {"worst_index", unflattenIndex(c.worst, spec.shape)},
                              {"bad_elements", c.numBad},
                              {"ok", c.ok}};
      if (!c.ok && !failed)
        failed = o;
      if (c.maxAbsErr >= worstAbs)
        worstOutput = o;
      worstAbs = std::max(worstAbs, c.maxAbsErr);
      worstRel = std::max(worstRel, c.maxRelErr);
      comparisons.push_back(c);
    }
    size_t shown = failed ? *failed : worstOutput;
    trial["max_abs_err"] = worstAbs;
    trial["max_rel_err"] = worstRel;
    if (!outputs.empty()) {
      trial["worst_output"] = outputs[shown].spec->name;
      trial["worst_index"] = unflattenIndex(comparisons[shown].worst,
                                            outputs[shown].spec->shape);
    }
    trial["outputs"] = perOutput;
    trial["ok"] = !failed.has_value();
    if (!failed)
      return;
    const Port &port = outputs[*failed];
    const Comparison &c = comparisons[*failed];
    Tolerance tolerance = toleranceOf(*port.spec);
    std::string bound =
        tolerance.exact ? "exact match required"
                        : "rtol " + formatNumber(tolerance.rtol) + ", atol " +
                              formatNumber(tolerance.atol) + " x max|ref| " +
                              formatNumber(c.scale, 4);
    rejectTrial(trial, "mismatch in " + port.spec->name + " at " +
                           formatDims(unflattenIndex(c.worst, port.spec->shape)) +
                           " on " + trialName + ": " +
                           describeGot(port, got[*failed], c.worst, c.got) +
                           ", expected " + formatValue(c.expected) + " (" +
                           std::to_string(c.numBad) + " of " +
                           std::to_string(c.numElements) + " elements off; " +
                           bound + ")");
  }

  /// The inputs of the timed runs: the last two trials' (moved out of
  /// `recent`, the last trial's first), or the last one and one more set
  /// (with its reference run) when there was a single trial.
  std::vector<InputSet> takeTimingSets() {
    std::vector<InputSet> sets;
    for (auto it = recent.rbegin(); it != recent.rend(); ++it)
      sets.push_back(std::move(*it));
    recent.clear();
    if (sets.size() < 2) {
      int t = options.trials + 1;
      Distribution distribution =
          kTrialDistributions[(t - 1) % std::size(kTrialDistributions)];
      PortData data = makeInputs(t, distribution);
      PortData expected = runReference(data);
      sets.push_back({t, std::move(data), std::move(expected)});
    }
    return sets;
  }

  /// Uploads every input set into `runner` once and keeps a device copy of
  /// each; returns the handles, [set][input port].
  std::vector<std::vector<size_t>> stashInputSets(PlanRunner &runner, bool isCandidate,
                                                  const std::vector<InputSet> &sets) {
    std::vector<std::vector<size_t>> handles;
    for (const InputSet &set : sets) {
      handles.emplace_back();
      for (size_t p = 0; p < inputs.size(); ++p) {
        size_t buffer = isCandidate ? inputs[p].cand : inputs[p].ref;
        runner.upload(buffer, set.inputs[p]);
        handles.back().push_back(runner.save(buffer));
      }
    }
    return handles;
  }

  /// Readies `runner` for timed run `run` on the input set whose device
  /// copies are `handles`, outside the timed interval: inputs (and inouts)
  /// restored, outputs re-poisoned with seeded random bytes (a different
  /// pattern every run, so a kernel cannot tell a timed run from a checked
  /// one by its output buffer), temps (the workspace among them) zeroed.
  void prepareTimed(PlanRunner &runner, const Plan &plan, bool isCandidate, int run,
                    const std::vector<size_t> &handles) {
    for (size_t handle : handles)
      runner.restore(handle);
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferSpec &buffer = plan.buffers[b];
      if (buffer.role == Role::Output)
        runner.fillRandom(b, getPoisonSeed(options.seed, run, b, isCandidate));
      else if (buffer.role == Role::Temp)
        runner.fill(b, 0);
    }
  }

  /// Checks the candidate's buffers right after timed run `run` on `set`:
  /// guards intact, every output within tolerance of the reference's outputs
  /// for that set.
  void checkTimedRun(int run, const InputSet &set) {
    std::string where = "timed run " + std::to_string(run + 1) + " (inputs of trial " +
                        std::to_string(set.trial) + ")";
    PortData got = asCandidate([&] {
      for (const std::string &violation : candRunner->findGuardViolations())
        throw CandidateRejected("wrote outside buffer " + violation +
                                ": guard bytes changed on " + where);
      return downloadOutputs(*candRunner, true);
    });
    for (size_t o = 0; o < outputs.size(); ++o) {
      const BufferSpec &spec = *outputs[o].spec;
      Comparison c = compareElements(spec.dtype, toleranceOf(spec),
                                     set.expected[o].data(), got[o].data(),
                                     spec.numElements());
      if (!c.ok)
        throw CandidateRejected(
            "output of a timed run differs from the reference's: " + spec.name +
            " at " + formatDims(unflattenIndex(c.worst, spec.shape)) + " on " + where +
            ": got " + formatValue(c.got) + ", expected " + formatValue(c.expected) +
            " (" + std::to_string(c.numBad) + " of " + std::to_string(c.numElements) +
            " elements off; the kernel behaves differently when timed)");
    }
  }

  /// Interleaved timing, rotating between two input sets, with every run
  /// prepared as prepareTimed() says and the last run of each set checked;
  /// then one more checked candidate run (a kernel may change behaviour
  /// after many launches) and the roofline and compute floors.
  void runTiming() {
    std::vector<InputSet> sets = takeTimingSets();
    auto refSets = asReference([&] { return stashInputSets(*refRunner, false, sets); });
    auto candSets = asCandidate([&] { return stashInputSets(*candRunner, true, sets); });
    std::vector<double> refTimes, candTimes;
    int total = options.warmup + options.runs;
    for (int run = 0; run < total; ++run) {
      size_t set = size_t(run) % sets.size();
      double refUs = asReference([&] {
        prepareTimed(*refRunner, reference, false, run, refSets[set]);
        return refRunner->timeOnce();
      });
      double candUs = asCandidate([&] {
        prepareTimed(*candRunner, candidate, true, run, candSets[set]);
        return candRunner->timeOnce();
      });
      if (run >= options.warmup) {
        refTimes.push_back(refUs);
        candTimes.push_back(candUs);
      }
      if (run >= total - int(sets.size()))
        checkTimedRun(run, sets[set]);
    }
    asReference([&] {
      refRunner->dropSaved();
      refRunner->scrub();
    });
    asCandidate([&] { candRunner->dropSaved(); });
    TimingStats refStats = summarizeTimes(refTimes);
    TimingStats candStats = summarizeTimes(candTimes);
    double speedup = refStats.medianUs / candStats.medianUs;
    uint64_t bytes = getInterfaceBytes(reference);
    double floorUs = double(bytes) / options.rooflineBw * 1e6;
    int64_t flops = options.flops > 0 ? options.flops : reference.flops;
    PeakRate peak = getPeakRate(reference);
    if (options.peakFlops > 0)
      peak = {options.peakFlops, "rate given by --peak-flops"};
    double computeFloorUs = double(flops) / peak.flopsPerSecond * 1e6;
    entry["ref_us"] = refStats.medianUs;
    entry["cand_us"] = candStats.medianUs;
    entry["speedup"] = speedup;
    entry["decision"] = speedup >= options.minSpeedup ? "faster" : "slower";
    entry["roofline_floor_us"] = floorUs;
    entry["compute_floor_us"] = flops > 0 ? json(computeFloorUs) : json(nullptr);
    entry["timed_input_sets"] = sets.size();
    entry["ref_time"] = describeTiming(refStats, options.warmup);
    entry["cand_time"] = describeTiming(candStats, options.warmup);

    PortData after = runCandidate(sets.front().inputs); // the last trial's
    for (size_t o = 0; o < outputs.size(); ++o)
      if (after[o] != lastCand[o])
        throw CandidateRejected("output " + outputs[o].spec->name +
                                " changed after the timing runs at " +
                                describeFirstDifference(outputs[o], lastCand[o], after[o]) +
                                " (the kernel behaves differently when run many times)");
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

  const Plan &reference, &candidate;
  const VerifyOptions &options;
  json entry;
  std::unique_ptr<PlanRunner> refRunner, candRunner;
  std::string loadFailure;
  std::vector<Port> inputs, outputs;
  std::deque<InputSet> recent; ///< the last two trials, for timing
  PortData lastCand;
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
  applyChildTestFault(options.childTestFault);
  // Deliberately leaked: after a candidate's fault the context is broken and
  // tearing the runners down could block before the verdict is printed. The
  // child exits right after printing it.
  auto *driver = new Driver();
  auto *verifier = new Verifier(*driver, reference, candidate, options);
  return {{"status", "ok"}, {"candidate", verifier->run()}};
}

//===----------------------------------------------------------------------===//
// The parent: plans, children, summary
//===----------------------------------------------------------------------===//

/// Returns the last line of `output` that parses as a JSON object, or {}.
static json parseChildOutput(const std::string &output) {
  std::istringstream lines(output);
  json last = json::object();
  for (std::string line; std::getline(lines, line);) {
    json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object())
      last = std::move(parsed);
  }
  return last;
}

json mlir::cuda_agent::verifyBundles(const fs::path &referencePath,
                                     const std::vector<fs::path> &candidatePaths,
                                     const VerifyOptions &options,
                                     ExitCode &exitCode) {
  exitCode = kExitOk;
  Plan reference = withContext("reference", [&] { return loadPlan(referencePath); });
  json summary = {{"status", "ok"},
                  {"reference", {{"bundle", fs::absolute(referencePath).string()},
                                 {"time", nullptr}}},
                  {"candidates", json::array()}};

  // Every plan is checked before any child touches the GPU.
  std::vector<json> entries;
  std::vector<bool> runnable;
  std::vector<std::string> rejected;
  for (const fs::path &path : candidatePaths) {
    std::string reason, state;
    try {
      Plan plan = loadPlan(path);
      reason = findInterfaceMismatch(reference, plan);
      // State that outlives a launch is a verdict, not a bad plan: no child
      // is started for it.
      StateFinding finding = reason.empty() ? findCandidateState(plan) : StateFinding();
      if (!finding.uninspectable)
        state = finding.reason;
    } catch (const RunnerError &error) {
      reason = std::string("bad plan: ") + error.what();
    }
    std::string verdict = reason.empty() ? state : reason;
    entries.push_back(verdict.empty() ? makeEntry(path) : makeFailedEntry(path, verdict));
    runnable.push_back(verdict.empty());
    if (!reason.empty())
      rejected.push_back(path.string() + ": " + reason);
  }

  std::string self = runnable.empty() ? "" : getSelfExecutable();
  for (size_t i = 0; i < candidatePaths.size(); ++i) {
    if (!runnable[i])
      continue;
    std::vector<std::string> argv = {self, "--verify-one", referencePath.string(),
                                     candidatePaths[i].string()};
    for (std::string &arg : options.toChildArgs())
      argv.push_back(std::move(arg));
    ChildResult child = runChild(argv, options.timeoutSeconds);
    json result = parseChildOutput(child.output);
    bool exited = child.ending == ChildResult::Ending::Exited;
    if (result.value("status", "") == "ok" && result.contains("candidate")) {
      // A verdict printed counts even if the child then hung or crashed in
      // its teardown (a broken context can do that); the note says so.
      entries[i] = result["candidate"];
      if (!exited || child.exitCode != 0)
        entries[i]["note"] = "runner " + child.describe() + " after its verdict";
      if (summary["reference"]["time"].is_null() && entries[i].contains("ref_time"))
        summary["reference"]["time"] = entries[i]["ref_time"];
    } else if (exited && result.value("status", "") == "error") {
      // The child could not verify at all: the reference failed, or there is
      // no GPU. Nothing else can run either.
      summary["status"] = "error";
      summary["error"] = result.value("error", std::string("unknown error"));
      exitCode = ExitCode(result.value("exit_code", int(kExitCuda)));
      break;
    } else {
      entries[i] = makeFailedEntry(candidatePaths[i],
                                   "runner " + child.describe() +
                                       (exited ? " without a result" : ""));
    }
  }
  for (json &entry : entries)
    summary["candidates"].push_back(std::move(entry));

  if (summary["status"] == "ok" && !rejected.empty()) {
    summary["status"] = "error";
    std::string message = std::to_string(rejected.size()) + " candidate plan" +
                          (rejected.size() == 1 ? "" : "s") + " rejected";
    for (const std::string &reason : rejected)
      message += "; " + reason;
    summary["error"] = message;
    exitCode = kExitUsage;
  }
  return summary;
}
