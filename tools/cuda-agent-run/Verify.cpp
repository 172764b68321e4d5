//===- Verify.cpp - Candidate verification against a reference --*- C++ -*-===//
//
// The child side of verification (verifyOne; the parent, verifyBundles, is
// VerifyBundles.cpp): the Verifier (Verifier.h) holds a PlanRunner for the
// reference and one for the candidate in the same context and runs the
// trials; this file has its trials and verdicts, VerifyTiming.cpp its timed
// runs. Inside
// the child a candidate's failure of any kind travels as CandidateRejected
// and ends as a "fail" verdict; a RunnerError there is the reference's (or
// the machine's) and ends the whole verification.
//
//===----------------------------------------------------------------------===//

#include "Verifier.h"

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

std::string verify::formatNumber(double value, int digits) {
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

//===----------------------------------------------------------------------===//
// The child: one candidate against the reference
//===----------------------------------------------------------------------===//

/// `oracle`: the reference's f64 oracle, or null.
Verifier::Verifier(const Driver &driver, const Plan &reference, const Plan &candidate,
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
json Verifier::run() {
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

/// The verifier's own device memory: per input set (two when timing, one
/// otherwise) a copy of every input and of every reference output, and
/// one more copy of every output for the candidate's first run.
void Verifier::allocateOutputState() {
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

/// The index of `port`'s buffer in `plan` (the reference's, the
/// candidate's or the oracle's).
size_t Verifier::indexIn(const Port &port, const Plan &plan) const {
  return &plan == &candidate ? port.cand : &plan == oracle ? port.oracle : port.ref;
}

CUdeviceptr Verifier::pointerOf(PlanRunner &runner, const Port &port, bool isCandidate) {
  return runner.getBufferPointer(isCandidate ? port.cand : port.ref);
}

/// Generates trial `t`'s inputs (`data`) into the copies of `set`, once
/// for the reference's and every candidate run.
void Verifier::makeInputs(InputSet &set, int t, const TrialInputs &data) {
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
void Verifier::prepare(PlanRunner &runner, const Plan &plan, bool isCandidate,
             const InputSet &set, int timedRun, bool restoreInputs) {
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
std::string Verifier::findChangedInput(PlanRunner &runner, bool isCandidate, const InputSet &set) {
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
void Verifier::runReference(InputSet &set) {
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
void Verifier::runOracle(InputSet &set) {
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
Comparison Verifier::compareWithOracle(const InputSet &set, size_t o) {
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
void Verifier::runCandidate(const InputSet &set, bool restoreInputs) {
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
void Verifier::saveCandidateOutputs() {
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
std::string Verifier::describeChangeSinceSaved(size_t o) {
  std::optional<uint64_t> i = asCandidate([&] {
    return checks->firstDifference(states[o].saved, pointerOf(*candRunner, outputs[o], true),
                                   *outputs[o].spec);
  });
  return i ? describeDifference(o, *i) : "";
}

/// Element `i` of the candidate's output `o` against its saved copy, as
/// "[i, j] (x vs y)" (saved first).
std::string Verifier::describeDifference(size_t o, uint64_t i) {
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
std::string Verifier::describeGot(const Port &port, uint64_t gotBits, double value) const {
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

[[noreturn]] void Verifier::rejectTrial(json &trial, const std::string &reason) {
  trial["ok"] = false;
  entry["trials"].push_back(trial);
  throw CandidateRejected(reason);
}

void Verifier::runTrials() {
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
Tolerance Verifier::toleranceOf(const BufferSpec &spec) const {
  return getTolerance(spec.dtype, reference.reductionLength,
                      reference.reductionAccumulator,
                      reference.tf32Products);
}

/// Fills the trial record with the worst output's errors and rejects on
/// the first mismatch: an output off the reference's by more than the
/// tolerance, unless the oracle rule accepts it (with an oracle, both
/// sides' errors against it are recorded per output).
void Verifier::compareTrial(json &trial, const std::string &trialName,
                  const std::vector<DeviceComparison> &comparisons, const InputSet &set) {
  json perOutput = json::object();
  std::optional<size_t> failed;
  std::string oracleNote; // the failed output's errors against the oracle
  std::string imprecision; // why an output within the tolerance failed
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
    std::string againstOracle;
    if (oracle) {
      Comparison byOracle = compareWithOracle(set, o);
      bool rescued = !c.ok && byOracle.ok;
      record[wire::kRefOracleErr] = set.refOracleErr[o];
      record[wire::kCandOracleErr] = byOracle.maxAbsErr;
      record[wire::kAcceptedByOracle] = rescued;
      acceptedByOracle |= rescued;
      ok = c.ok || byOracle.ok;
      againstOracle = "against the f64 oracle: error " + formatNumber(byOracle.maxAbsErr) +
                      ", the reference's " + formatNumber(set.refOracleErr[o]);
      if (!ok && !failed)
        oracleNote = "; " + againstOracle + " (allowed " +
                     formatNumber(kOracleErrorFactor) + "x)";
      // Within the tolerance, but much less precise than the reference
      // (precision=tf32 accepts TF32's error).
      double floor = getTolerance(spec.dtype).atol * set.oracle[o].scale;
      if (ok && !reference.tf32Products &&
          !isWithinPrecisionBound(byOracle.maxAbsErr, set.refOracleErr[o], floor)) {
        ok = false;
        if (!failed)
          imprecision = "less precise than the reference in " + spec.name + " on " +
                        trialName + ": " + againstOracle + " (allowed " +
                        formatNumber(kPrecisionFactor) + "x, or " + formatNumber(floor) + ")";
      }
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
  if (!imprecision.empty()) {
    rejectTrial(trial, imprecision);
    return;
  }
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

namespace {

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
