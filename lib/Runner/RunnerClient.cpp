//===- RunnerClient.cpp - The compiler's side of cuda-agent-run -----------===//
//
// jobs.json written and read with llvm::json, result.json read back into the
// structs of Protocol.h (keys from its `wire` namespace), and the runner run
// as a child process: found, probed, and killed by a watchdog when it hangs.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>

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

llvm::Expected<json::Value> parseJson(llvm::StringRef text,
                                      llvm::StringRef origin) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return llvm::createStringError("%s: %s", origin.str().c_str(),
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
/// the same). jobs.json comes back from the GPU machine. A leading '/' is
/// refused as such: llvm::sys::path reads "//name" as a network root name
/// with no root directory, so not absolute (job-set-fuzzer found it).
bool staysInside(llvm::StringRef relative) {
  if (relative.empty() || relative.contains('\0') ||
      relative.starts_with("/") || llvm::sys::path::is_absolute(relative))
    return false;
  return llvm::none_of(
      llvm::make_range(llvm::sys::path::begin(relative),
                       llvm::sys::path::end(relative)),
      [](llvm::StringRef part) { return part == ".."; });
}

std::string getString(const json::Object &object, llvm::StringRef key) {
  return object.getString(key).value_or("").str();
}
} // namespace

std::string cuda_agent::printJobSet(const JobSet &jobs) {
  json::Array array;
  for (const Job &job : jobs.jobs) {
    json::Array candidates;
    for (const JobCandidate &candidate : job.candidates) {
      json::Object entry{{wire::kName, candidate.name},
                         {wire::kAgent, candidate.agent},
                         {wire::kModel, candidate.model},
                         {wire::kTurn, candidate.turn},
                         {wire::kBundle, candidate.bundle}};
      if (!candidate.promptVersion.empty())
        entry[wire::kPromptVersion] = candidate.promptVersion;
      candidates.push_back(std::move(entry));
    }
    array.push_back(json::Object{{wire::kHash, job.hash},
                                 {wire::kFunction, job.function},
                                 {wire::kRegion, job.region},
                                 {wire::kKind, job.kind},
                                 {wire::kReference, job.reference},
                                 {wire::kFlops, job.flops},
                                 {wire::kBytes, job.bytes},
                                 {wire::kRegionMlir, job.regionMlir},
                                 {wire::kCandidates, std::move(candidates)}});
  }
  json::Object root{{wire::kVersion, kJobsVersion},
                    {wire::kChip, jobs.chip},
                    {wire::kCuda, jobs.cudaVersion},
                    {wire::kContract, jobs.contractVersion},
                    {wire::kMinSpeedup, jobs.minSpeedup},
                    {wire::kTimeout, jobs.timeoutSeconds},
                    {wire::kTrials, jobs.trials},
                    {wire::kJobs, std::move(array)}};
  return llvm::formatv("{0:1}", json::Value(std::move(root))).str() + "\n";
}

llvm::Error cuda_agent::writeJobSet(llvm::StringRef dir, const JobSet &jobs) {
  std::string text = printJobSet(jobs);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create '%s'", dir.str().c_str());
  std::string path = join(dir, kJobsFileName);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s'", path.c_str());
  os << text;
  return llvm::Error::success();
}

llvm::Expected<JobSet> cuda_agent::parseJobSet(llvm::StringRef text,
                                               llvm::StringRef origin) {
  llvm::Expected<json::Value> value = parseJson(text, origin);
  if (!value)
    return value.takeError();
  const json::Object *root = value->getAsObject();
  auto bad = [&](const llvm::Twine &message) {
    return llvm::createStringError("%s: %s", origin.str().c_str(),
                                   message.str().c_str());
  };
  if (!root)
    return bad("not a JSON object");
  if (root->getInteger(wire::kVersion) != kJobsVersion)
    return bad("not a version " + llvm::Twine(kJobsVersion) + " jobs file");
  JobSet jobs;
  jobs.chip = getString(*root, wire::kChip);
  jobs.cudaVersion = getString(*root, wire::kCuda);
  jobs.contractVersion = root->getInteger(wire::kContract).value_or(0);
  jobs.minSpeedup =
      root->getNumber(wire::kMinSpeedup).value_or(kDefaultMinSpeedup);
  jobs.timeoutSeconds =
      root->getInteger(wire::kTimeout).value_or(kDefaultTimeoutSeconds);
  jobs.trials = root->getInteger(wire::kTrials).value_or(kDefaultTrials);
  if (jobs.chip.empty() || jobs.cudaVersion.empty() || !jobs.contractVersion)
    return bad("'chip', 'cuda' and 'contract' are required");
  const json::Array *array = root->getArray(wire::kJobs);
  if (!array)
    return bad("'jobs' must be an array");
  for (const json::Value &item : *array) {
    const json::Object *object = item.getAsObject();
    if (!object || getString(*object, wire::kHash).empty())
      return bad("every job needs a 'hash'");
    llvm::StringRef hash = *object->getString(wire::kHash);
    // The hash names the job's folder: a file name, at most NAME_MAX bytes.
    if (hash.contains('/') || hash == "." || hash.size() > NAME_MAX ||
        !staysInside(hash))
      return bad("job hash '" + hash + "' is not a file name");
    if (std::optional<llvm::StringRef> reference =
            object->getString(wire::kReference);
        reference && !reference->empty() && !staysInside(*reference))
      return bad("job " + hash + ": reference '" + *reference +
                 "' leaves the jobs directory");
    Job job{getString(*object, wire::kHash),
            getString(*object, wire::kFunction),
            getString(*object, wire::kRegion),
            getString(*object, wire::kKind),
            getString(*object, wire::kReference),
            {},
            object->getInteger(wire::kFlops).value_or(0),
            object->getInteger(wire::kBytes).value_or(0),
            getString(*object, wire::kRegionMlir)};
    if (const json::Array *candidates = object->getArray(wire::kCandidates))
      for (const json::Value &entry : *candidates) {
        const json::Object *candidate = entry.getAsObject();
        if (!candidate || getString(*candidate, wire::kBundle).empty())
          return bad("job " + job.hash + ": every candidate needs a 'bundle'");
        if (!staysInside(getString(*candidate, wire::kBundle)))
          return bad("job " + job.hash + ": bundle '" +
                     getString(*candidate, wire::kBundle) +
                     "' leaves the jobs directory");
        job.candidates.push_back(
            {getString(*candidate, wire::kName),
             getString(*candidate, wire::kAgent),
             getString(*candidate, wire::kModel),
             getString(*candidate, wire::kPromptVersion),
             unsigned(candidate->getInteger(wire::kTurn).value_or(1)),
             getString(*candidate, wire::kBundle)});
      }
    jobs.jobs.push_back(std::move(job));
  }
  return jobs;
}

llvm::Expected<JobSet> cuda_agent::readJobSet(llvm::StringRef dir) {
  std::string path = join(dir, kJobsFileName);
  llvm::Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  return parseJobSet(*text, path);
}

llvm::Expected<JobResult> cuda_agent::parseJobResult(llvm::StringRef text,
                                                     const Job &job,
                                                     llvm::StringRef origin) {
  llvm::Expected<json::Value> value = parseJson(text, origin);
  if (!value)
    return value.takeError();
  const json::Object *root = value->getAsObject();
  if (!root)
    return llvm::createStringError("%s: not a JSON object",
                                   origin.str().c_str());
  JobResult result;
  result.job = &job;
  result.ran = true;
  result.error = getString(*root, wire::kError);
  result.verifiedAt = getString(*root, wire::kVerifiedAt);
  if (const json::Object *device = root->getObject(wire::kDevice))
    result.device = getString(*device, wire::kName);
  const json::Array *candidates = root->getArray(wire::kCandidates);
  // The runner reports candidates in the order it was given them.
  for (auto [index, candidate] : llvm::enumerate(job.candidates)) {
    CandidateVerdict verdict;
    verdict.candidate = candidate;
    const json::Object *entry = candidates && index < candidates->size()
                                    ? (*candidates)[index].getAsObject()
                                    : nullptr;
    if (!entry) {
      verdict.verify = wire::kFail;
      verdict.reason = result.error.empty() ? "not verified" : result.error;
      result.verdicts.push_back(std::move(verdict));
      continue;
    }
    verdict.verify = getString(*entry, wire::kVerify);
    verdict.reason = getString(*entry, wire::kReason);
    verdict.refUs = entry->getNumber(wire::kRefUs);
    verdict.candUs = entry->getNumber(wire::kCandUs);
    verdict.speedup = entry->getNumber(wire::kSpeedup);
    verdict.accepted = entry->getBoolean(wire::kAccepted).value_or(false);
    verdict.refOracleErr = entry->getNumber(wire::kRefOracleErr);
    verdict.candOracleErr = entry->getNumber(wire::kCandOracleErr);
    llvm::raw_string_ostream os(verdict.record);
    os << json::Value(json::Object(*entry));
    result.verdicts.push_back(std::move(verdict));
  }
  return result;
}

llvm::Expected<std::vector<JobResult>>
cuda_agent::readJobResults(llvm::StringRef dir, const JobSet &jobs) {
  std::vector<JobResult> results;
  for (const Job &job : jobs.jobs) {
    std::string path = join(dir, job.hash + "/" + kResultFileName);
    if (!llvm::sys::fs::exists(path)) {
      JobResult result;
      result.job = &job;
      results.push_back(std::move(result));
      continue;
    }
    llvm::Expected<std::string> text = readFile(path);
    if (!text)
      return text.takeError();
    llvm::Expected<JobResult> result = parseJobResult(*text, job, path);
    if (!result)
      return result.takeError();
    results.push_back(std::move(*result));
  }
  return results;
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
  probe.gpu = root.getBoolean(wire::kGpu).value_or(false);
  probe.arch = getString(root, wire::kArch);
  probe.error = getString(root, wire::kError);
  if (const json::Array *devices = root.getArray(wire::kDevices))
    if (!devices->empty())
      if (const json::Object *device = devices->front().getAsObject())
        probe.device = getString(*device, wire::kName);
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
        getString(*summary->getAsObject(), wire::kError).c_str());
  return llvm::Error::success();
}
