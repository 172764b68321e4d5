//===- RunnerClient.cpp - The compiler's side of cuda-agent-run -----------===//

#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

namespace {
llvm::Expected<std::string> readFile(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s'",
                                   path.str().c_str());
  return (*buffer)->getBuffer().str();
}

llvm::Expected<json::Value> readJson(const llvm::Twine &path) {
  llvm::Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  llvm::Expected<json::Value> value = json::parse(*text);
  if (!value)
    return llvm::createStringError("%s: %s", path.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  return value;
}

std::string join(llvm::StringRef dir, llvm::StringRef relative) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, relative);
  return path.str().str();
}

/// True when `relative` names something inside the jobs directory: not
/// empty, not absolute, no ".." part, no NUL (the runner's loadJobs() checks
/// the same). jobs.json comes back from the GPU machine.
bool staysInside(llvm::StringRef relative) {
  if (relative.empty() || relative.contains('\0') ||
      llvm::sys::path::is_absolute(relative))
    return false;
  return llvm::none_of(
      llvm::make_range(llvm::sys::path::begin(relative),
                       llvm::sys::path::end(relative)),
      [](llvm::StringRef part) { return part == ".."; });
}

std::string getString(const json::Object &object, llvm::StringRef key) {
  return object.getString(key).value_or("").str();
}

/// "3.1x" with two significant decimals where they matter.
std::string formatSpeedup(double speedup) {
  return llvm::formatv("{0:F2}x", speedup).str();
}
} // namespace

llvm::Error cuda_agent::writeJobSet(llvm::StringRef dir, const JobSet &jobs) {
  json::Array array;
  for (const Job &job : jobs.jobs) {
    json::Array candidates;
    for (const JobCandidate &candidate : job.candidates) {
      json::Object entry{{"name", candidate.name},
                         {"agent", candidate.agent},
                         {"model", candidate.model},
                         {"turn", candidate.turn},
                         {"bundle", candidate.bundle}};
      if (!candidate.promptVersion.empty())
        entry["prompt_version"] = candidate.promptVersion;
      candidates.push_back(std::move(entry));
    }
    array.push_back(json::Object{{"hash", job.hash},
                                 {"function", job.function},
                                 {"region", job.region},
                                 {"kind", job.kind},
                                 {"reference", job.reference},
                                 {"flops", job.flops},
                                 {"bytes", job.bytes},
                                 {"region_mlir", job.regionMlir},
                                 {"candidates", std::move(candidates)}});
  }
  json::Object root{
      {"version", kJobsVersion},        {"chip", jobs.chip},
      {"cuda", jobs.cudaVersion},       {"contract", jobs.contractVersion},
      {"min_speedup", jobs.minSpeedup}, {"timeout", jobs.timeoutSeconds},
      {"trials", jobs.trials},          {"jobs", std::move(array)}};
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create '%s'", dir.str().c_str());
  std::string path = join(dir, "jobs.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s'", path.c_str());
  os << llvm::formatv("{0:1}", json::Value(std::move(root))) << "\n";
  return llvm::Error::success();
}

llvm::Expected<JobSet> cuda_agent::readJobSet(llvm::StringRef dir) {
  std::string path = join(dir, "jobs.json");
  llvm::Expected<json::Value> value = readJson(path);
  if (!value)
    return value.takeError();
  const json::Object *root = value->getAsObject();
  auto bad = [&](const llvm::Twine &message) {
    return llvm::createStringError("%s: %s", path.c_str(),
                                   message.str().c_str());
  };
  if (!root)
    return bad("not a JSON object");
  if (root->getInteger("version") != kJobsVersion)
    return bad("not a version " + llvm::Twine(kJobsVersion) + " jobs file");
  JobSet jobs;
  jobs.chip = getString(*root, "chip");
  jobs.cudaVersion = getString(*root, "cuda");
  jobs.contractVersion = root->getInteger("contract").value_or(0);
  jobs.minSpeedup = root->getNumber("min_speedup").value_or(1.05);
  jobs.timeoutSeconds = root->getInteger("timeout").value_or(20);
  jobs.trials = root->getInteger("trials").value_or(4);
  if (jobs.chip.empty() || jobs.cudaVersion.empty() || !jobs.contractVersion)
    return bad("'chip', 'cuda' and 'contract' are required");
  const json::Array *array = root->getArray("jobs");
  if (!array)
    return bad("'jobs' must be an array");
  for (const json::Value &item : *array) {
    const json::Object *object = item.getAsObject();
    if (!object || getString(*object, "hash").empty())
      return bad("every job needs a 'hash'");
    llvm::StringRef hash = *object->getString("hash");
    if (hash.contains('/') || hash == "." || !staysInside(hash))
      return bad("job hash '" + hash + "' is not a file name");
    if (std::optional<llvm::StringRef> reference =
            object->getString("reference");
        reference && !reference->empty() && !staysInside(*reference))
      return bad("job " + hash + ": reference '" + *reference +
                 "' leaves the jobs directory");
    Job job{getString(*object, "hash"),
            getString(*object, "function"),
            getString(*object, "region"),
            getString(*object, "kind"),
            getString(*object, "reference"),
            {},
            object->getInteger("flops").value_or(0),
            object->getInteger("bytes").value_or(0),
            getString(*object, "region_mlir")};
    if (const json::Array *candidates = object->getArray("candidates"))
      for (const json::Value &entry : *candidates) {
        const json::Object *candidate = entry.getAsObject();
        if (!candidate || getString(*candidate, "bundle").empty())
          return bad("job " + job.hash + ": every candidate needs a 'bundle'");
        if (!staysInside(getString(*candidate, "bundle")))
          return bad("job " + job.hash + ": bundle '" +
                     getString(*candidate, "bundle") +
                     "' leaves the jobs directory");
        job.candidates.push_back(
            {getString(*candidate, "name"), getString(*candidate, "agent"),
             getString(*candidate, "model"),
             getString(*candidate, "prompt_version"),
             unsigned(candidate->getInteger("turn").value_or(1)),
             getString(*candidate, "bundle")});
      }
    jobs.jobs.push_back(std::move(job));
  }
  return jobs;
}

llvm::Expected<std::vector<JobResult>>
cuda_agent::readJobResults(llvm::StringRef dir, const JobSet &jobs) {
  std::vector<JobResult> results;
  for (const Job &job : jobs.jobs) {
    JobResult result;
    result.job = &job;
    std::string path = join(dir, job.hash + "/result.json");
    if (!llvm::sys::fs::exists(path)) {
      results.push_back(std::move(result));
      continue;
    }
    llvm::Expected<json::Value> value = readJson(path);
    if (!value)
      return value.takeError();
    const json::Object *root = value->getAsObject();
    if (!root)
      return llvm::createStringError("%s: not a JSON object", path.c_str());
    result.ran = true;
    result.error = getString(*root, "error");
    result.verifiedAt = getString(*root, "verified_at");
    if (const json::Object *device = root->getObject("device"))
      result.device = getString(*device, "name");
    const json::Array *candidates = root->getArray("candidates");
    // The runner reports candidates in the order it was given them.
    for (auto [index, candidate] : llvm::enumerate(job.candidates)) {
      CandidateVerdict verdict;
      verdict.candidate = candidate;
      const json::Object *entry = candidates && index < candidates->size()
                                      ? (*candidates)[index].getAsObject()
                                      : nullptr;
      if (!entry) {
        verdict.verify = "fail";
        verdict.reason = result.error.empty() ? "not verified" : result.error;
        result.verdicts.push_back(std::move(verdict));
        continue;
      }
      verdict.verify = getString(*entry, "verify");
      verdict.reason = getString(*entry, "reason");
      verdict.refUs = entry->getNumber("ref_us");
      verdict.candUs = entry->getNumber("cand_us");
      verdict.speedup = entry->getNumber("speedup");
      verdict.accepted = entry->getBoolean("accepted").value_or(false);
      verdict.record = json::Value(json::Object(*entry));
      result.verdicts.push_back(std::move(verdict));
    }
    results.push_back(std::move(result));
  }
  return results;
}

JobDecision cuda_agent::decideJob(const JobResult &result, double minSpeedup) {
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
  for (auto [index, verdict] : llvm::enumerate(result.verdicts)) {
    if (verdict.verify != "pass" || !verdict.speedup)
      continue;
    if (!bestPassed || *verdict.speedup > *result.verdicts[*bestPassed].speedup)
      bestPassed = index;
  }
  if (!bestPassed) {
    const CandidateVerdict &first = result.verdicts.front();
    decision.reason =
        llvm::formatv("none of {0} candidate(s) passed verification ({1}: {2})",
                      result.verdicts.size(), first.candidate.name,
                      first.reason.empty() ? first.verify : first.reason)
            .str();
    return decision;
  }
  const CandidateVerdict &best = result.verdicts[*bestPassed];
  std::string timing =
      llvm::formatv("{0:F1} us vs {1:F1} us for the default lowering",
                    best.candUs.value_or(0), best.refUs.value_or(0))
          .str();
  if (!best.accepted || *best.speedup < minSpeedup) {
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

llvm::Expected<KernelRecord>
cuda_agent::makeKernelRecord(llvm::StringRef dir, const JobSet &jobs,
                             const JobResult &result,
                             const CandidateVerdict &verdict) {
  std::string bundle = join(dir, verdict.candidate.bundle);
  llvm::Expected<std::string> source = readFile(bundle + "/kernel.cu");
  if (!source)
    return source.takeError();
  llvm::Expected<std::string> plan =
      readFile(bundle + "/" + kCandidateLaunchName);
  if (!plan)
    return plan.takeError();
  KernelRecord record;
  record.key = {result.job->hash, jobs.chip, jobs.cudaVersion,
                jobs.contractVersion};
  record.source = std::move(*source);
  record.launchPlanJson = std::move(*plan);
  record.agent = verdict.candidate.agent;
  record.model = verdict.candidate.model;
  record.promptVersion = verdict.candidate.promptVersion;
  std::string verification;
  llvm::raw_string_ostream os(verification);
  os << verdict.record;
  record.verification = std::move(verification);
  record.refUs = verdict.refUs.value_or(0);
  record.candUs = verdict.candUs.value_or(0);
  record.speedup = verdict.speedup.value_or(0);
  record.verifiedOn = result.device;
  record.createdAt = result.verifiedAt;
  record.kind = result.job->kind;
  record.regionMlir = result.job->regionMlir;
  record.flops = result.job->flops;
  record.bytes = result.job->bytes;
  return record;
}

llvm::Expected<int> cuda_agent::storeAcceptedKernels(
    KernelDb &db, llvm::StringRef dir, const JobSet &jobs,
    const JobResult &result, std::optional<size_t> winner, int64_t &winnerId) {
  winnerId = -1;
  int added = 0;
  for (auto [index, verdict] : llvm::enumerate(result.verdicts)) {
    if (!verdict.accepted)
      continue;
    llvm::Expected<KernelRecord> record =
        makeKernelRecord(dir, jobs, result, verdict);
    if (!record)
      return record.takeError();
    llvm::Expected<int64_t> id = db.insertKernel(*record);
    if (!id)
      return id.takeError();
    ++added;
    if (winner == index)
      winnerId = *id;
  }
  return added;
}

llvm::Expected<ImportedResults>
cuda_agent::importJobResults(KernelDb &db, llvm::StringRef dir) {
  llvm::Expected<JobSet> jobs = readJobSet(dir);
  if (!jobs)
    return jobs.takeError();
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, *jobs);
  if (!results)
    return results.takeError();
  ImportedResults imported;
  for (const JobResult &result : *results) {
    if (!result.ran) {
      ++imported.jobsNotRun;
      continue;
    }
    ++imported.jobsRun;
    int64_t winnerId = -1;
    JobDecision decision = decideJob(result, jobs->minSpeedup);
    llvm::Expected<int> added =
        storeAcceptedKernels(db, dir, *jobs, result, decision.winner, winnerId);
    if (!added)
      return added.takeError();
    imported.kernelsAdded += *added;
    DecisionRecord record;
    record.regionHash = result.job->hash;
    record.arch = jobs->chip;
    record.decision = decision.winner ? "spliced" : "default";
    record.reason = decision.reason;
    record.kernelId = winnerId;
    if (llvm::Expected<int64_t> id = db.insertDecision(record); !id)
      return id.takeError();
    ++imported.decisions;
  }
  return imported;
}

llvm::Expected<std::string>
cuda_agent::findRunner(llvm::StringRef explicitPath) {
  auto executable = [](const llvm::Twine &path) -> std::optional<std::string> {
    std::string text = path.str();
    if (llvm::sys::fs::can_execute(text) && !llvm::sys::fs::is_directory(text))
      return text;
    return std::nullopt;
  };
  if (!explicitPath.empty()) {
    if (auto path = executable(explicitPath))
      return *path;
    return llvm::createStringError("runner '%s' is not an executable file",
                                   explicitPath.str().c_str());
  }
  if (const char *env = std::getenv("CUDA_AGENT_RUN"); env && *env) {
    if (auto path = executable(env))
      return *path;
    return llvm::createStringError("$CUDA_AGENT_RUN ('%s') is not an "
                                   "executable file",
                                   env);
  }
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!self.empty())
    if (auto path =
            executable(llvm::sys::path::parent_path(self) + "/cuda-agent-run"))
      return *path;
  if (auto path = executable(CUDA_AGENT_BUILD_BIN_DIR "/cuda-agent-run"))
    return *path;
  if (llvm::ErrorOr<std::string> path =
          llvm::sys::findProgramByName("cuda-agent-run"))
    return *path;
  return llvm::createStringError(
      "cuda-agent-run not found (set runner=PATH or $CUDA_AGENT_RUN)");
}

namespace {
/// Runs `runner args...` with stdout and stderr captured; returns the exit
/// code, or an error when it could not start or the watchdog killed it.
llvm::Expected<int> runChild(llvm::StringRef runner,
                             llvm::ArrayRef<llvm::StringRef> args,
                             unsigned timeoutSeconds, std::string &out,
                             std::string &err) {
  llvm::SmallString<128> outPath, errPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("cuda-agent-run", "out", outPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("cuda-agent-run", "err", errPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeOut(outPath), removeErr(errPath);
  std::vector<llvm::StringRef> argv{runner};
  argv.insert(argv.end(), args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(outPath), llvm::StringRef(errPath)};
  std::string message;
  bool failedToRun = false;
  int rc = llvm::sys::ExecuteAndWait(runner, argv, std::nullopt, redirects,
                                     timeoutSeconds, 0, &message, &failedToRun);
  auto slurp = [](llvm::StringRef path) {
    llvm::Expected<std::string> text = readFile(path);
    if (text)
      return std::move(*text);
    llvm::consumeError(text.takeError());
    return std::string();
  };
  out = slurp(outPath);
  err = slurp(errPath);
  if (failedToRun)
    return llvm::createStringError("cannot run '%s': %s", runner.str().c_str(),
                                   message.c_str());
  if (rc == -2 && message.find("timed out") != std::string::npos)
    return llvm::createStringError("cuda-agent-run timed out after %u s "
                                   "(killed)",
                                   timeoutSeconds);
  if (rc < 0)
    return llvm::createStringError("cuda-agent-run crashed: %s",
                                   message.c_str());
  return rc;
}

/// The runner's one-line JSON summary, or an error quoting what it printed.
llvm::Expected<json::Value> parseSummary(llvm::StringRef out,
                                         llvm::StringRef err) {
  llvm::StringRef line = out.trim();
  if (size_t newline = line.rfind('\n'); newline != llvm::StringRef::npos)
    line = line.drop_front(newline + 1);
  llvm::Expected<json::Value> value = json::parse(line);
  if (!value || !value->getAsObject()) {
    if (!value)
      llvm::consumeError(value.takeError());
    return llvm::createStringError(
        "cuda-agent-run printed no JSON summary (stdout: '%s', stderr: '%s')",
        out.trim().take_front(200).str().c_str(),
        err.trim().take_front(400).str().c_str());
  }
  return value;
}
} // namespace

llvm::Expected<GpuProbe> cuda_agent::probeGpu(llvm::StringRef runner) {
  std::string out, err;
  llvm::Expected<int> rc = runChild(runner, {"--probe"}, 60, out, err);
  if (!rc)
    return rc.takeError();
  llvm::Expected<json::Value> summary = parseSummary(out, err);
  if (!summary)
    return summary.takeError();
  const json::Object &root = *summary->getAsObject();
  GpuProbe probe;
  probe.gpu = root.getBoolean("gpu").value_or(false);
  probe.arch = getString(root, "arch");
  probe.error = getString(root, "error");
  if (const json::Array *devices = root.getArray("devices"))
    if (!devices->empty())
      if (const json::Object *device = devices->front().getAsObject())
        probe.device = getString(*device, "name");
  return probe;
}

llvm::Error cuda_agent::runJobs(llvm::StringRef runner, llvm::StringRef dir,
                                unsigned timeoutSeconds) {
  std::string out, err;
  llvm::Expected<int> rc =
      runChild(runner, {"--jobs", dir}, timeoutSeconds, out, err);
  if (!rc)
    return rc.takeError();
  llvm::Expected<json::Value> summary = parseSummary(out, err);
  if (!summary)
    return summary.takeError();
  if (*rc != 0)
    return llvm::createStringError(
        "cuda-agent-run --jobs failed (exit %d): %s", *rc,
        getString(*summary->getAsObject(), "error").c_str());
  return llvm::Error::success();
}
