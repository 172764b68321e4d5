//===- RegionTurns.cpp - One region's turns with its agent ----------------===//
//
// Per region: its reference (the default lowering, as a bundle), then turn
// by turn the agent's candidates -> NVRTC -> launch-plan check -> candidate
// bundles -> cuda-agent-run here (or jobs for a GPU machine) -> verdicts fed
// back as the next turn's history -> the decision, and the winner attached
// as cuda_agent.kernel for agent-splice.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "cuda-agent/Cuda/LaunchPlanCheck.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Pipelines/OracleBuilder.h"
#include "cuda-agent/Splice/KernelSplicer.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

namespace {
/// Candidate names become directory names: keep [A-Za-z0-9._-].
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out += llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  return out.empty() ? "candidate" : out;
}
} // namespace

std::string Generator::explainNoCandidate(const RegionReport &report) const {
  if (report.candidates.empty())
    return "agent " + options.agent + " proposed no candidate";
  return llvm::formatv("none of {0} candidate(s) compiled with a valid launch "
                       "plan ({1}: {2})",
                       report.candidates.size(), report.candidates.front().name,
                       report.candidates.front().reason);
}

std::optional<JobDecision>
Generator::verifyHere(const Job &job, RegionReport &report, size_t firstReport,
                      std::vector<Attempt> &history,
                      const std::vector<Candidate> &sources, func::FuncOp func,
                      int64_t &kernelId) {
  kernelId = -1;
  JobSet jobs = bundleJobs;
  jobs.jobs = {job};
  // A fresh result for this turn.
  llvm::sys::fs::remove(joinPath(workDir, job.hash + "/result.json"));
  auto skipAll = [&](const std::string &reason) {
    for (size_t i = firstReport; i < report.candidates.size(); ++i)
      if (report.candidates[i].compile == "ok" &&
          report.candidates[i].verify == "skipped")
        report.candidates[i].reason = reason;
    report.reason = reason;
    return std::nullopt;
  };
  if (llvm::Error error = writeJobSet(workDir, jobs))
    return skipAll(llvm::toString(std::move(error)));
  // Every candidate's child has its own watchdog (`timeout`); this one
  // covers the runner itself, with a margin for the reference runs.
  unsigned budget =
      5 + job.candidates.size() * (2 * options.timeoutSeconds + 5);
  if (llvm::Error error = runJobs(runner, workDir, budget))
    return skipAll("verification failed: " + llvm::toString(std::move(error)));
  llvm::Expected<std::vector<JobResult>> results =
      readJobResults(workDir, jobs);
  if (!results)
    return skipAll(llvm::toString(results.takeError()));
  const JobResult &result = results->front();
  // Match verdicts to the reports and the history by candidate name.
  for (const CandidateVerdict &verdict : result.verdicts) {
    for (size_t i = firstReport; i < report.candidates.size(); ++i) {
      CandidateReport &entry = report.candidates[i];
      if (entry.name != verdict.candidate.name)
        continue;
      entry.verify = verdict.verify;
      entry.reason = verdict.reason;
      entry.refUs = verdict.refUs;
      entry.candUs = verdict.candUs;
      entry.speedup = verdict.speedup;
      entry.refOracleErr = verdict.refOracleErr;
      entry.candOracleErr = verdict.candOracleErr;
    }
    for (const Candidate &source : sources)
      if (source.name == verdict.candidate.name) {
        std::string detail = verdict.reason;
        if (verdict.speedup)
          detail += llvm::formatv("{0}{1:F1} us vs {2:F1} us for the "
                                  "reference ({3:F2}x)",
                                  detail.empty() ? "" : "; ",
                                  verdict.candUs.value_or(0),
                                  verdict.refUs.value_or(0), *verdict.speedup)
                        .str();
        history.push_back({source,
                           verdict.accepted           ? "accepted"
                           : verdict.verify == "pass" ? "slower"
                                                      : "verify-failed",
                           detail});
      }
  }
  JobDecision decision = decideJob(result, options.minSpeedup);
  if (!decision.winner)
    return decision;

  // Store every accepted kernel; splice the winner.
  if (db) {
    llvm::Expected<int> stored = storeAcceptedKernels(
        *db, workDir, jobs, result, decision.winner, kernelId);
    if (!stored)
      func.emitWarning() << "could not store the verified kernels: "
                         << llvm::toString(stored.takeError());
  }
  const CandidateVerdict &winner = result.verdicts[*decision.winner];
  llvm::Expected<KernelRecord> record =
      makeKernelRecord(workDir, jobs, result, winner);
  llvm::Expected<LaunchPlan> plan =
      record ? readBundle(joinPath(workDir, winner.candidate.bundle))
             : llvm::Expected<LaunchPlan>(record.takeError());
  if (!plan) {
    decision.winner.reset();
    decision.reason = "cannot read the winning bundle back: " +
                      llvm::toString(plan.takeError());
    return decision;
  }
  addProvenance(*plan, *record, kernelId);
  attachKernel(func, *plan);
  return decision;
}

void Generator::fromAgent(func::FuncOp func, const KernelTask &task,
                          RegionReport &report) {
  if (!agent) {
    report.reason = agentError;
    return recordDecision(report, -1);
  }
  MLIRContext *context = module.getContext();
  // The reference: the region's default lowering.
  std::optional<LaunchPlan> reference;
  {
    DiagnosticCollector diagnostics(context);
    DefaultLoweringOptions lowering;
    lowering.chip = options.chip;
    lowering.features = options.features;
    FailureOr<LaunchPlan> lowered = lowerToLaunchPlan(func, lowering);
    if (failed(lowered)) {
      report.reason = "no reference to verify against: " + diagnostics.str();
      return recordDecision(report, -1);
    }
    reference = std::move(*lowered);
  }
  // The longest reduction widens the verifier's tolerance (KernelTask).
  if (task.reductionLength > 1)
    reference->extra["reduction"] =
        llvm::json::Object{{"length", task.reductionLength},
                           {"accumulator", task.reductionAccumulator}};
  // A product allowed to round to TF32 is verified under TF32's tolerance.
  if (!task.precision.empty())
    reference->extra[wire::kPrecision] = task.precision;
  // The region's flops and bytes give the verifier its compute and roofline
  // floors (a candidate faster than the hardware's peak rate or bandwidth is
  // suspicious); the bytes count only what a region reads of a sliced input.
  if (task.flops > 0)
    reference->extra[wire::kFlops] = task.flops;
  if (task.bytes > 0)
    reference->extra[wire::kBytes] = task.bytes;
  std::string regionDir = joinPath(workDir, task.regionHash);
  llvm::sys::fs::remove_directories(regionDir);
  Job job{task.regionHash,
          report.function,
          report.region,
          report.kind,
          task.regionHash + "/reference",
          {},
          task.flops,
          task.bytes,
          task.regionMlir};
  // Large regions need time for their inputs: one more second per 25 MB.
  bundleJobs.timeoutSeconds = std::max<unsigned>(
      bundleJobs.timeoutSeconds,
      options.timeoutSeconds + unsigned(task.bytes / 25000000));
  {
    DiagnosticCollector diagnostics(context);
    if (failed(writeBundle(*reference, joinPath(regionDir, "reference"),
                           func.getLoc()))) {
      report.reason = diagnostics.str();
      return recordDecision(report, -1);
    }
  }
  // The region promoted to f64 and lowered the same way, inside the
  // reference's bundle: the verifier measures the reference's and each
  // candidate's error against it. Only for regions that reduce, where the
  // default lowering's sequential sum is the inaccurate side (an elementwise
  // region's f64 copy would only cost memory). Best effort: a region that
  // cannot be promoted (or is f64 already) is verified against the
  // reference alone.
  if (task.reductionLength > 1) {
    DiagnosticCollector diagnostics(context);
    DefaultLoweringOptions lowering;
    lowering.chip = options.chip;
    lowering.features = options.features;
    FailureOr<LaunchPlan> oracle = lowerF64Oracle(func, lowering);
    if (succeeded(oracle))
      (void)writeBundle(*oracle,
                        joinPath(regionDir, std::string("reference/") + kOracleBundleName),
                        func.getLoc());
  }

  CompileOptions compileOptions;
  compileOptions.arch = options.chip;
  std::vector<Attempt> history;
  // The last turn's candidates and where its feedback starts in `history`,
  // for the conversation the report shows.
  std::vector<Candidate> lastTurn;
  size_t lastTurnHistory = 0;
  std::optional<JobDecision> decision;
  int64_t kernelId = -1; // the winner's database id
  for (unsigned turn = 1; turn <= std::max(1u, options.turns); ++turn) {
    llvm::Expected<std::vector<Candidate>> proposed =
        agent->propose(task, history, std::max(1u, options.samples));
    if (!proposed) {
      report.reason = "agent " + options.agent + ": " +
                      llvm::toString(proposed.takeError());
      break;
    }
    if (proposed->empty())
      break;
    lastTurn = *proposed;
    lastTurnHistory = history.size();
    // A candidate may ask for the chip's arch-specific form (sm_90a); an
    // arch it may not have is compiled for the chip and its plan rejected.
    std::vector<std::string> sources, archs;
    for (const Candidate &candidate : *proposed) {
      sources.push_back(candidate.source);
      llvm::Expected<std::string> arch =
          getCandidateArch(candidate.launchPlan, options.chip);
      archs.push_back(arch ? *arch : options.chip);
      if (!arch)
        llvm::consumeError(arch.takeError());
    }
    std::vector<llvm::Expected<CompiledKernel>> compiled =
        compileCandidates(sources, archs, compileOptions, options.jobs);

    size_t firstReport = report.candidates.size();
    Job turnJob = job;
    for (auto [candidate, kernel] : llvm::zip_equal(*proposed, compiled)) {
      // Names are unique within one turn; later turns get a prefix.
      std::string name =
          turn == 1
              ? sanitize(candidate.name)
              : llvm::formatv("t{0}-{1}", turn, sanitize(candidate.name)).str();
      CandidateReport entry{name, candidate.agent, candidate.model, turn};
      auto reject = [&](StringRef compile, StringRef outcome,
                        std::string reason) {
        entry.compile = compile.str();
        entry.verify = compile == "ok" ? "fail" : "skipped";
        entry.reason = reason;
        history.push_back({candidate, outcome.str(), std::move(reason)});
        report.candidates.push_back(entry);
      };
      if (!candidate.replyError.empty()) {
        if (!kernel)
          llvm::consumeError(kernel.takeError());
        reject("error", "bad-reply", "reply: " + candidate.replyError);
        continue;
      }
      if (!kernel) {
        reject("error", "compile-error", llvm::toString(kernel.takeError()));
        continue;
      }
      llvm::Expected<json::Value> plan =
          checkLaunchPlan(candidate.launchPlan, *kernel, task.operands.size());
      if (!plan) {
        reject("ok", "bad-plan", llvm::toString(plan.takeError()));
        continue;
      }
      LaunchPlan bundle =
          buildCandidatePlan(task, *plan->getAsObject(), *kernel);
      bundle.extra["agent"] = candidate.agent;
      bundle.extra["model"] = candidate.model;
      bundle.extra["ptx"] = kernel->ptx; // kept with the spliced kernel
      std::string relative = task.regionHash + "/candidates/" + name;
      std::string dir = joinPath(workDir, relative);
      DiagnosticCollector diagnostics(context);
      if (failed(writeBundle(bundle, dir, func.getLoc())) ||
          failed(writeText(joinPath(dir, kCandidateSourceName),
                           candidate.source, func.getLoc())) ||
          failed(writeText(joinPath(dir, kCandidateLaunchName),
                           candidate.launchPlan, func.getLoc()))) {
        reject("ok", "not-verified", diagnostics.str());
        continue;
      }
      if (options.verify == VerifyMode::Bundle)
        entry.reason = "written to " + dir;
      else if (!noGpuReason.empty())
        entry.reason = "not verified: no GPU here";
      report.candidates.push_back(entry);
      turnJob.candidates.push_back({name, candidate.agent, candidate.model,
                                    candidate.promptVersion, turn, relative});
    }
    if (turnJob.candidates.empty())
      continue; // Nothing compiled: the next turn may repair it.
    if (options.verify == VerifyMode::Bundle) {
      job.candidates.insert(job.candidates.end(), turnJob.candidates.begin(),
                            turnJob.candidates.end());
      break; // Further turns need the verdicts.
    }
    if (!noGpuReason.empty())
      break;
    decision = verifyHere(turnJob, report, firstReport, history, *proposed,
                          func, kernelId);
    if (!decision || decision->winner)
      break;
  }

  // A model's conversation goes with the report: what it was sent last,
  // its replies, and the feedback each failed one got.
  report.conversation = buildConversation(
      lastTurn, llvm::ArrayRef(history).drop_front(lastTurnHistory));

  if (options.verify == VerifyMode::Bundle) {
    if (!job.candidates.empty()) {
      bundleJobs.jobs.push_back(job);
      report.reason = llvm::formatv("verification deferred: {0} candidate(s) "
                                    "written to {1}",
                                    job.candidates.size(), options.bundleDir);
    } else if (report.reason.empty()) {
      report.reason = explainNoCandidate(report);
    }
    return; // Decided later, by import-results.
  }
  if (decision) {
    report.reason = decision->reason;
    if (decision->winner)
      report.decision = "spliced";
  } else if (report.reason.empty()) {
    bool verifiable = llvm::any_of(report.candidates, [](const auto &c) {
      return c.compile == "ok" && c.verify == "skipped";
    });
    report.reason = verifiable ? noGpuReason : explainNoCandidate(report);
  }
  recordDecision(report, report.decision == "spliced" ? kernelId : -1);
}

void Generator::processRegion(func::FuncOp func, RegionReport &report) {
  FailureOr<KernelTask> task = failure();
  {
    DiagnosticCollector diagnostics(module.getContext());
    task = buildKernelTask(func, options.chip, options.precision);
    if (failed(task)) {
      report.reason =
          "cannot describe this region to an agent: " + diagnostics.str();
      return;
    }
  }
  // The key of everything recorded for the region (KernelTask::precision).
  report.hash = task->regionHash;
  if (options.verify == VerifyMode::Db)
    return fromDatabase(func, *task, report);
  fromAgent(func, *task, report);
}
