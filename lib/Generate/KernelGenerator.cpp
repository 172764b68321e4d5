//===- KernelGenerator.cpp - The closed loop per region -------------------===//
//
// Per region: task -> agent -> NVRTC -> launch-plan check -> candidate
// bundles beside the reference bundle -> cuda-agent-run (child, watchdog) ->
// decision -> cuda_agent.kernel for agent-splice, database records, report.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Generate/KernelGenerator.h"
#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Cuda/LaunchPlanCheck.h"
#include "cuda-agent/Cuda/NvrtcCompiler.h"
#include "cuda-agent/KernelDb/KernelDb.h"
#include "cuda-agent/KernelDb/ResultImport.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Pipelines/BundleEmitter.h"
#include "cuda-agent/Runner/RunnerClient.h"
#include "cuda-agent/Splice/KernelSplicer.h"
#include "cuda-agent/Task/KernelTask.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

LogicalResult GenerateOptions::parseVerify(StringRef text, Location loc) {
  if (text == "gpu") {
    verify = VerifyMode::Gpu;
  } else if (text == "db") {
    verify = VerifyMode::Db;
  } else if (text.starts_with("bundle:") && text.size() > 7) {
    verify = VerifyMode::Bundle;
    bundleDir = text.drop_front(7).str();
  } else {
    return emitError(loc) << "verify=" << text
                          << " is not one of gpu, db or bundle:DIR";
  }
  return success();
}

namespace {

/// The verification trials per candidate (one per input distribution).
constexpr unsigned kTrials = 4;

/// The object file name of a candidate's cubin inside its bundle.
constexpr llvm::StringLiteral kCandidateObjectName = "kernel.cubin";

struct CandidateReport {
  std::string name, agent, model;
  unsigned turn = 1;
  std::string compile = "ok", verify = "skipped", reason;
  std::optional<double> refUs, candUs, speedup;
};

struct RegionReport {
  std::string function, region, hash, kind;
  std::string decision = "default", reason;
  std::vector<CandidateReport> candidates;
  /// A language-model agent's conversation: prompt, replies, feedback.
  std::vector<ChatMessage> conversation;
};

json::Value toJSON(const CandidateReport &report) {
  auto number = [](std::optional<double> value) -> json::Value {
    return value ? json::Value(*value) : json::Value(nullptr);
  };
  return json::Object{{"name", report.name},
                      {"agent", report.agent},
                      {"model", report.model},
                      {"turn", report.turn},
                      {"compile", report.compile},
                      {"verify", report.verify},
                      {"reason", report.reason},
                      {"ref_us", number(report.refUs)},
                      {"cand_us", number(report.candUs)},
                      {"speedup", number(report.speedup)}};
}

json::Value toJSON(const RegionReport &report) {
  json::Array candidates;
  for (const CandidateReport &candidate : report.candidates)
    candidates.push_back(toJSON(candidate));
  json::Object object{{"function", report.function},
                      {"region", report.region},
                      {"hash", report.hash},
                      {"kind", report.kind},
                      {"decision", report.decision},
                      {"reason", report.reason},
                      {"candidates", std::move(candidates)}};
  if (!report.conversation.empty()) {
    json::Array messages;
    for (const ChatMessage &message : report.conversation)
      messages.push_back(
          json::Object{{"role", message.role}, {"content", message.content}});
    object["conversation"] = std::move(messages);
  }
  return object;
}

/// Collects the diagnostics emitted while it lives instead of printing them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          if (!text.empty())
            text += "; ";
          text += diagnostic.str();
          return success();
        }) {}
  const std::string &str() const { return text; }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

/// Candidate names become directory names: keep [A-Za-z0-9._-].
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out += llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  return out.empty() ? "candidate" : out;
}

std::string joinPath(const Twine &a, const Twine &b) {
  SmallString<256> path;
  a.toVector(path);
  llvm::sys::path::append(path, b);
  return path.str().str();
}

LogicalResult writeText(const Twine &path, StringRef text, Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path.str(), ec);
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  os << text;
  return success();
}

/// Builds a candidate's runner plan from the agent's launch plan (already
/// validated): the task's operands as buffers, one bare pointer per operand
/// (and the workspace) for every launch.
LaunchPlan buildCandidatePlan(const KernelTask &task, const json::Object &plan,
                              const CompiledKernel &kernel) {
  LaunchPlan result;
  result.chip = task.arch;
  SmallVector<std::string> args;
  for (const OperandSpec &operand : task.operands) {
    result.buffers.push_back({operand.name, operand.shape, operand.dtype,
                              operand.isOutput ? "output" : "input"});
    args.push_back(operand.name);
  }
  result.workspaceBytes = plan.getInteger("workspace_bytes").value_or(0);
  if (result.workspaceBytes > 0)
    args.push_back("workspace");
  for (const json::Value &value : *plan.getArray("launches")) {
    const json::Object &launch = *value.getAsObject();
    PlanLaunch entry;
    entry.kernel = launch.getString("kernel")->str();
    entry.object = kCandidateObjectName.str();
    auto dims = [&](StringRef key) {
      std::array<int64_t, 3> dims = {1, 1, 1};
      for (auto [i, dim] : llvm::enumerate(*launch.getArray(key)))
        dims[i] = *dim.getAsInteger();
      return dims;
    };
    entry.grid = dims("grid");
    entry.block = dims("block");
    entry.sharedBytes = launch.getInteger("shared_bytes").value_or(0);
    entry.args = args;
    result.launches.push_back(std::move(entry));
  }
  result.objects[kCandidateObjectName] = kernel.cubin;
  return result;
}

/// Parses and validates an agent's launch plan against its compiled kernel.
llvm::Expected<json::Value> checkLaunchPlan(StringRef text,
                                            const CompiledKernel &kernel,
                                            unsigned numOperands) {
  llvm::Expected<json::Value> plan = json::parse(text);
  if (!plan)
    return llvm::createStringError("launch plan is not JSON: %s",
                                   llvm::toString(plan.takeError()).c_str());
  if (llvm::Error error = validateLaunchPlan(*plan, kernel, numOperands))
    return std::move(error);
  return plan;
}

/// "sm_90, CUDA 13.0, contract 1": a database key less its region hash.
std::string describeKey(const KernelKey &key,
                        llvm::StringRef promptVersion = "") {
  std::string text = llvm::formatv("{0}, CUDA {1}, contract {2}", key.arch,
                                   key.cudaVersion, key.contractVersion);
  if (!promptVersion.empty())
    text += ", " + promptVersion.str();
  return text;
}

/// Records on a winner's plan where its kernel came from: the verified
/// kernel's agent, model, times, device and time of verification, database
/// key and id (when stored, `id` >= 0) and source.
void addProvenance(LaunchPlan &plan, const KernelRecord &record, int64_t id) {
  plan.extra["agent"] = record.agent;
  plan.extra["model"] = record.model;
  plan.extra["speedup"] = record.speedup;
  plan.extra["ref_us"] = record.refUs;
  plan.extra["cand_us"] = record.candUs;
  plan.extra["verified_on"] = record.verifiedOn;
  plan.extra["verified_at"] = record.createdAt;
  plan.extra["db_key"] = describeKey(record.key, record.promptVersion);
  if (id >= 0)
    plan.extra["db_id"] = std::to_string(id);
  plan.extra["source"] = record.source;
}

class Generator {
public:
  Generator(ModuleOp module, const GenerateOptions &options)
      : module(module), options(options), cudaVersion(getCudaVersion()) {}

  LogicalResult run();

private:
  LogicalResult setUp();
  void processRegion(func::FuncOp func, RegionReport &report);
  void fromDatabase(func::FuncOp func, const KernelTask &task,
                    RegionReport &report);
  void fromAgent(func::FuncOp func, const KernelTask &task,
                 RegionReport &report);
  /// Verifies `job` here; fills the reports of its candidates (starting at
  /// `firstReport`) and the agent's history; returns the job's decision.
  /// `kernelId` gets the winner's database id (-1 when not stored).
  std::optional<JobDecision> verifyHere(const Job &job, RegionReport &report,
                                        size_t firstReport,
                                        std::vector<Attempt> &history,
                                        const std::vector<Candidate> &sources,
                                        func::FuncOp func, int64_t &kernelId);
  void recordDecision(const RegionReport &report, int64_t kernelId);
  /// Why no candidate of `report` reached verification.
  std::string explainNoCandidate(const RegionReport &report) const;
  LogicalResult writeReport();

  ModuleOp module;
  GenerateOptions options; // verify=db may become verify=gpu with agent=db

  std::string cudaVersion;
  std::unique_ptr<KernelDb> db;
  std::string dbNote; // why there is no database, when there is none
  std::unique_ptr<KernelAgent> agent;
  std::string agentError;
  std::string runner;
  std::string noGpuReason; // verify=gpu without a GPU: why
  std::string gpuDevice;
  std::string workDir;
  bool removeWorkDir = false;
  JobSet bundleJobs;
  std::vector<RegionReport> reports;
  DenseMap<StringAttr, StringAttr> callers;
};

LogicalResult Generator::setUp() {
  Location loc = module.getLoc();
  // The database.
  std::string dbPath = options.db;
  if (dbPath.empty())
    dbPath = KernelDb::defaultPath().str();
  if (dbPath == "none" || dbPath.empty()) {
    dbNote = dbPath.empty() ? "no kernel database (neither $XDG_CACHE_HOME "
                              "nor $HOME is set)"
                            : "no kernel database (db=none)";
    if (options.verify == VerifyMode::Db)
      return emitError(loc) << "verify=db needs a kernel database: " << dbNote;
  } else {
    // verify=db reads what is there: a missing file is a mistake.
    llvm::Expected<std::unique_ptr<KernelDb>> opened =
        KernelDb::open(dbPath, /*create=*/options.verify != VerifyMode::Db);
    if (!opened)
      return emitError(loc)
             << "kernel database: " << llvm::toString(opened.takeError());
    db = std::move(*opened);
  }
  // The GPU: verify=gpu needs one; verify=db on a machine with one verifies
  // the database's kernels again here (the db agent proposes them and
  // verify=gpu takes over).
  if (options.verify != VerifyMode::Bundle) {
    llvm::Expected<std::string> found = findRunner(options.runner);
    llvm::Expected<GpuProbe> probe =
        found ? probeGpu(*found) : llvm::Expected<GpuProbe>(found.takeError());
    if (!probe)
      noGpuReason = "cannot verify: " + llvm::toString(probe.takeError());
    else if (!probe->gpu)
      noGpuReason = "no GPU here to verify on (" + probe->error +
                    "); use verify=bundle:DIR or verify=db";
    else
      gpuDevice = probe->device;
    if (found)
      runner = *found;
  }
  if (options.verify == VerifyMode::Db) {
    if (gpuDevice.empty())
      return success();
    llvm::errs() << "agent-generate: verify=db with a GPU here (" << gpuDevice
                 << "): the database's kernels are verified again on it\n";
    options.verify = VerifyMode::Gpu;
    options.agent = "db";
  }

  // The agent.
  AgentConfig config{options.replayDir, db.get(), cudaVersion, options.openai,
                     options.torch};
  config.openai.fewShot.db = config.torch.fewShot.db = db.get();
  llvm::Expected<std::unique_ptr<KernelAgent>> created =
      createAgent(options.agent, config);
  if (created)
    agent = std::move(*created);
  else
    agentError = llvm::toString(created.takeError());

  // Where bundles go.
  if (options.verify == VerifyMode::Bundle) {
    workDir = options.bundleDir;
  } else if (!options.workDir.empty()) {
    workDir = options.workDir;
  } else {
    SmallString<128> dir;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("cuda-agent", dir))
      return emitError(loc)
             << "cannot create a temporary directory: " << ec.message();
    workDir = dir.str().str();
    removeWorkDir = true;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(workDir))
    return emitError(loc) << "cannot create '" << workDir
                          << "': " << ec.message();
  bundleJobs = {options.chip,
                cudaVersion,
                kContractVersion,
                options.minSpeedup,
                options.timeoutSeconds,
                kTrials,
                {}};

  return success();
}

std::string Generator::explainNoCandidate(const RegionReport &report) const {
  if (report.candidates.empty())
    return "agent " + options.agent + " proposed no candidate";
  return llvm::formatv("none of {0} candidate(s) compiled with a valid launch "
                       "plan ({1}: {2})",
                       report.candidates.size(), report.candidates.front().name,
                       report.candidates.front().reason);
}

void Generator::recordDecision(const RegionReport &report, int64_t kernelId) {
  if (!db)
    return;
  DecisionRecord record;
  record.regionHash = report.hash;
  record.arch = options.chip;
  record.decision = report.decision;
  record.reason = report.reason;
  record.reportJson = llvm::formatv("{0}", toJSON(report)).str();
  record.kernelId = kernelId;
  if (llvm::Expected<int64_t> id = db->insertDecision(record); !id)
    module.emitWarning() << "could not record the decision: "
                         << llvm::toString(id.takeError());
}

void Generator::fromDatabase(func::FuncOp func, const KernelTask &task,
                             RegionReport &report) {
  KernelKey key{task.regionHash, task.arch, cudaVersion, kContractVersion};
  std::string keyText = describeKey(key);
  llvm::Expected<std::optional<KernelRecord>> best = db->bestKernel(key);
  if (!best) {
    report.reason = "kernel database: " + llvm::toString(best.takeError());
    return recordDecision(report, -1);
  }
  if (!*best) {
    report.reason = "no kernel verified for this region in " +
                    db->path().str() + " (" + keyText + ")";
    return recordDecision(report, -1);
  }
  const KernelRecord &record = **best;
  CandidateReport candidate{"db-" + std::to_string(record.id),
                            record.agent,
                            record.model,
                            0,
                            "ok",
                            "pass",
                            "verified on " + record.verifiedOn + " at " +
                                record.createdAt,
                            record.refUs,
                            record.candUs,
                            record.speedup};
  auto fail = [&](StringRef compile, StringRef reason) {
    candidate.compile = compile.str();
    candidate.verify = "skipped";
    candidate.reason = reason.str();
    report.candidates.push_back(candidate);
    report.reason = "the database's kernel #" + std::to_string(record.id) +
                    " cannot be used: " + reason.str();
    recordDecision(report, -1);
  };
  CompileOptions compileOptions;
  compileOptions.arch = options.chip;
  llvm::Expected<CompiledKernel> kernel =
      compileCandidate(record.source, compileOptions);
  if (!kernel)
    return fail("error", llvm::toString(kernel.takeError()));
  llvm::Expected<json::Value> plan =
      checkLaunchPlan(record.launchPlanJson, *kernel, task.operands.size());
  if (!plan)
    return fail("ok", llvm::toString(plan.takeError()));
  report.candidates.push_back(candidate);
  if (record.speedup < options.minSpeedup) {
    report.reason =
        llvm::formatv("the database's best kernel (#{0}) is "
                      "{1:F2}x faster; min-speedup is {2:F2}x",
                      record.id, record.speedup, options.minSpeedup);
    return recordDecision(report, -1);
  }
  LaunchPlan launchPlan =
      buildCandidatePlan(task, *plan->getAsObject(), *kernel);
  addProvenance(launchPlan, record, record.id);
  launchPlan.extra["ptx"] = kernel->ptx;
  attachKernel(func, launchPlan);
  report.decision = "spliced";
  report.reason =
      llvm::formatv("kernel #{0} from the database ({1}/{2}): "
                    "{3:F2}x faster, verified on {4} at {5}",
                    record.id, record.agent, record.model, record.speedup,
                    record.verifiedOn, record.createdAt);
  recordDecision(report, record.id);
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
  // The longest reduction widens the verifier's tolerance (a candidate may
  // sum in another order than the reference's sequential loop).
  int64_t reductionLength = 0;
  Type accumulator;
  func.walk([&](linalg::LinalgOp op) {
    int64_t length = 1;
    for (auto [range, type] :
         llvm::zip_equal(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction && range > 0)
        length *= range;
    if (length > reductionLength && op.getNumReductionLoops() > 0 &&
        op.getNumDpsInits() > 0) {
      reductionLength = length;
      accumulator = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
    }
  });
  if (reductionLength > 1 && !getDtypeName(accumulator).empty())
    reference->extra["reduction"] =
        llvm::json::Object{{"length", reductionLength},
                           {"accumulator", getDtypeName(accumulator)}};
  // The region's flops give the verifier its compute floor (a candidate
  // faster than the hardware's peak rate is suspicious).
  if (task.flops > 0)
    reference->extra["flops"] = task.flops;
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

  CompileOptions compileOptions;
  compileOptions.arch = options.chip;
  std::vector<Attempt> history;
  std::vector<Candidate> replied; // every candidate proposed, in order
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
    replied.insert(replied.end(), proposed->begin(), proposed->end());
    std::vector<std::string> sources;
    for (const Candidate &candidate : *proposed)
      sources.push_back(candidate.source);
    std::vector<llvm::Expected<CompiledKernel>> compiled =
        compileCandidates(sources, compileOptions, options.jobs);

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

  // A model's conversation goes with the report: the prompt, every reply,
  // and the feedback each failed one got.
  if (llvm::any_of(replied,
                   [](const Candidate &c) { return !c.reply.empty(); })) {
    const FewShotConfig *fewShot =
        options.agent == "openai"  ? &options.openai.fewShot
        : options.agent == "torch" ? &options.torch.fewShot
                                   : nullptr;
    report.conversation = renderPrompt(
        task, history,
        fewShot ? findFewShotExamples(db.get(), task, fewShot->tokens)
                : std::vector<KernelRecord>());
    for (const Candidate &candidate : replied)
      if (llvm::none_of(history, [&](const Attempt &a) {
            return a.candidate.name == candidate.name;
          }))
        report.conversation.push_back({"assistant", candidate.reply});
  }

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
    task = buildKernelTask(func, options.chip);
    if (failed(task)) {
      report.reason =
          "cannot describe this region to an agent: " + diagnostics.str();
      return;
    }
  }
  if (options.verify == VerifyMode::Db)
    return fromDatabase(func, *task, report);
  fromAgent(func, *task, report);
}

LogicalResult Generator::writeReport() {
  if (options.report.empty())
    return success();
  json::Array regions;
  for (const RegionReport &report : reports)
    regions.push_back(toJSON(report));
  std::string verify = options.verify == VerifyMode::Gpu  ? "gpu"
                       : options.verify == VerifyMode::Db ? "db"
                                                          : "bundle";
  json::Object root{{"chip", options.chip},
                    {"cuda", cudaVersion},
                    {"agent", options.verify == VerifyMode::Db
                                  ? json::Value("db")
                                  : json::Value(options.agent)},
                    {"verify", verify},
                    {"min_speedup", options.minSpeedup},
                    {"device", gpuDevice.empty() ? json::Value(nullptr)
                                                 : json::Value(gpuDevice)},
                    {"db", db ? json::Value(db->path()) : json::Value(nullptr)},
                    {"regions", std::move(regions)}};
  if (options.verify == VerifyMode::Bundle)
    root["jobs"] = options.bundleDir;
  std::string text = llvm::formatv("{0:2}", json::Value(std::move(root)));
  return writeText(options.report, text + "\n", module.getLoc());
}

LogicalResult Generator::run() {
  if (options.verify == VerifyMode::Bundle && options.bundleDir.empty())
    return module.emitError("verify=bundle needs a directory: "
                            "verify=bundle:DIR");
  if (failed(setUp()))
    return failure();

  // Who calls each region, for the report.
  module.walk([&](func::CallOp call) {
    auto caller = call->getParentOfType<func::FuncOp>();
    callers.try_emplace(call.getCalleeAttr().getAttr(),
                        caller.getSymNameAttr());
  });
  SmallVector<func::FuncOp> regions;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kRegionAttrName) && !func.isExternal() &&
        !func->hasAttr(kSplicedAttrName))
      regions.push_back(func);

  for (auto [index, func] : llvm::enumerate(regions)) {
    auto attr = func->getAttrOfType<DictionaryAttr>(kRegionAttrName);
    RegionReport report;
    report.region = func.getSymName().str();
    if (StringAttr caller = callers.lookup(func.getSymNameAttr()))
      report.function = caller.str();
    if (auto hash = attr.getAs<StringAttr>("hash"))
      report.hash = hash.str();
    if (auto kind = attr.getAs<StringAttr>("kind"))
      report.kind = kind.str();
    processRegion(func, report);
    Builder builder(func.getContext());
    func->setAttr(kDecisionAttrName,
                  builder.getDictionaryAttr(
                      {builder.getNamedAttr(
                           "decision", builder.getStringAttr(report.decision)),
                       builder.getNamedAttr(
                           "reason", builder.getStringAttr(report.reason))}));
    llvm::errs() << llvm::formatv(
        "agent-generate: [{0}/{1}] @{2} ({3}, {4}): "
        "{5}: {6}\n",
        index + 1, regions.size(), report.region, report.kind,
        StringRef(report.hash).take_front(12), report.decision, report.reason);
    reports.push_back(std::move(report));
  }

  LogicalResult result = success();
  if (options.verify == VerifyMode::Bundle) {
    // Jobs DIR accumulates across compiles (several files, split inputs):
    // earlier jobs of the same key stay unless this run replaced them.
    if (llvm::sys::fs::exists(joinPath(workDir, "jobs.json"))) {
      llvm::Expected<JobSet> earlier = readJobSet(workDir);
      if (!earlier) {
        llvm::consumeError(earlier.takeError());
      } else if (earlier->chip == bundleJobs.chip &&
                 earlier->cudaVersion == bundleJobs.cudaVersion &&
                 earlier->contractVersion == bundleJobs.contractVersion) {
        std::vector<Job> merged;
        for (Job &job : earlier->jobs)
          if (llvm::none_of(bundleJobs.jobs,
                            [&](const Job &j) { return j.hash == job.hash; }))
            merged.push_back(std::move(job));
        merged.insert(merged.end(), bundleJobs.jobs.begin(),
                      bundleJobs.jobs.end());
        bundleJobs.jobs = std::move(merged);
      }
    }
    if (llvm::Error error = writeJobSet(workDir, bundleJobs)) {
      module.emitError() << llvm::toString(std::move(error));
      result = failure();
    } else {
      llvm::errs() << llvm::formatv(
          "agent-generate: {0} job(s) in {1}; run `cuda-agent-run --jobs {1}` "
          "on a GPU machine, then `cuda-agent-db --db DB import-results {1}`\n",
          bundleJobs.jobs.size(), workDir);
    }
  }
  if (failed(writeReport()))
    result = failure();
  if (removeWorkDir)
    llvm::sys::fs::remove_directories(workDir);
  return result;
}

} // namespace

LogicalResult cuda_agent::generateKernels(ModuleOp module,
                                          const GenerateOptions &options) {
  return Generator(module, options).run();
}
