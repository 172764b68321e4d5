//===- VerifyTiming.cpp - The child verifier's timed runs ---------*- C++ -*-===//
//
// The child verifier's timing (Verifier.h): two input sets held resident on
// the device and hashed with a secret key, timed runs of the reference and
// the candidate interleaved with outputs poisoned by fresh random bytes,
// the candidate's inputs and outputs checked after every run, one more
// checked run after the timed ones, the roofline and compute floors, and
// the offset trial (every buffer at a 64-byte aligned address, as IREE may
// place one), recorded rather than judged.
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

static json describeTiming(const TimingStats &stats, int warmup) {
  return {{"median_us", stats.medianUs}, {"min_us", stats.minUs},
          {"max_us", stats.maxUs},       {"p10_us", stats.p10Us},
          {"p90_us", stats.p90Us},       {"mean_us", stats.meanUs},
          {"runs", stats.runs},          {"warmup", warmup}};
}

/// The input sets of the timed runs, the last trial's first: the last two
/// trials', or with a single trial the last one and one more set, made
/// with its own reference run.
std::array<InputSet *, 2> Verifier::takeTimingSets() {
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
void Verifier::bindResidentInputs(const std::array<InputSet *, 2> &timed) {
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
void Verifier::bindSet(size_t s) {
  for (size_t p = 0; p < inputs.size(); ++p)
    if (CUdeviceptr data = resident[s].data[p]) {
      refRunner->bindBuffer(inputs[p].ref, data);
      candRunner->bindBuffer(inputs[p].cand, data);
    }
}

/// Rejects the candidate if timed run `run` changed a pure input of set
/// `s` (keyed hash on the GPU, one read of each input).
void Verifier::checkResidentInputs(size_t s, int run, const InputSet &set) {
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
void Verifier::checkTimedRun(int run, const InputSet &set) {
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
json Verifier::runOffsetTrial() {
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
void Verifier::runTiming() {
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
  uint64_t bytes = getFloorBytes(reference);
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
