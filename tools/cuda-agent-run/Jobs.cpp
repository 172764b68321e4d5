//===- Jobs.cpp - Verification jobs written by the compiler -----*- C++ -*-===//
//
// jobs.json is checked as strictly as the runner needs (version, hashes,
// bundle paths inside DIR) and read in full into Protocol.h's JobSet; the
// jobs then run one after the other, each result written as soon as its
// verification ends.
//
//===----------------------------------------------------------------------===//

#include "Jobs.h"

#include "Result.h"

#include <climits>
#include <fstream>
#include <iostream>
#include <iterator>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {
[[noreturn]] void badJobs(const fs::path &dir, const std::string &message) {
  throw RunnerError(kExitUsage,
                    (dir / kJobsFileName).string() + ": " + message);
}

/// Field `key` of `object`, or null when `object` is not an object or has
/// no such field.
const json &field(const json &object, const char *key) {
  static const json null;
  if (!object.is_object())
    return null;
  auto it = object.find(key);
  return it == object.end() ? null : *it;
}

/// A path inside the jobs directory: relative, without ".." (and without a
/// NUL, which would end the path early for the system).
fs::path inside(const fs::path &dir, const json &value, const char *what) {
  if (!value.is_string())
    badJobs(dir, std::string(what) + " must be a string");
  const std::string &text = value.get_ref<const std::string &>();
  if (text.find('\0') != std::string::npos)
    badJobs(dir, std::string(what) + " holds a NUL byte");
  fs::path relative = text;
  if (relative.empty() || relative.is_absolute())
    badJobs(dir, std::string(what) + " '" + relative.string() +
                     "' must be a relative path");
  for (const fs::path &part : relative)
    if (part == "..")
      badJobs(dir, std::string(what) + " '" + relative.string() +
                       "' leaves the jobs directory");
  return dir / relative;
}

/// The string at `key` of `object`, or "" when it is missing or not a string.
std::string getString(const json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The integer at `key` of `object`, or `fallback`.
int64_t getInteger(const json &object, const char *key, int64_t fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>()
                                                       : fallback;
}

/// Everything the compiler wrote about one candidate (Protocol.h).
JobCandidate readCandidate(const json &candidate) {
  return {getString(candidate, wire::kName),
          getString(candidate, wire::kAgent),
          getString(candidate, wire::kModel),
          getString(candidate, wire::kPromptVersion),
          unsigned(getInteger(candidate, wire::kTurn, 1)),
          getString(candidate, wire::kBundle)};
}
} // namespace

JobsFile mlir::cuda_agent::loadJobs(const fs::path &dir) {
  std::ifstream in(dir / kJobsFileName);
  if (!in)
    throw RunnerError(kExitUsage,
                      "cannot read " + (dir / kJobsFileName).string());
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  return parseJobs(text, dir);
}

JobsFile mlir::cuda_agent::parseJobs(std::string_view text,
                                     const fs::path &dir) {
  JobsFile file;
  file.dir = dir;
  const json jobs = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!jobs.is_object())
    badJobs(dir, "not a JSON object");
  // Every field is type-checked before it is read: json::value() and get()
  // throw json::type_error on a field of another type, not RunnerError.
  const json &version = field(jobs, wire::kVersion);
  if (!version.is_number_integer() || version != kJobsVersion)
    badJobs(dir, "version " + version.dump() + " (this runner reads version " +
                     std::to_string(kJobsVersion) + ")");
  if (!field(jobs, wire::kJobs).is_array())
    badJobs(dir, "'jobs' must be an array");
  if (jobs.contains(wire::kMinSpeedup) && jobs[wire::kMinSpeedup].is_number())
    file.minSpeedup = jobs[wire::kMinSpeedup].get<double>();
  if (jobs.contains(wire::kTimeout) && jobs[wire::kTimeout].is_number())
    file.timeoutSeconds = jobs[wire::kTimeout].get<double>();
  if (jobs.contains(wire::kTrials) && jobs[wire::kTrials].is_number_integer())
    file.trials = std::max(1, jobs[wire::kTrials].get<int>());

  JobSet &set = file.set;
  set.chip = getString(jobs, wire::kChip);
  set.cudaVersion = getString(jobs, wire::kCuda);
  set.contractVersion = int(getInteger(jobs, wire::kContract, 0));
  set.minSpeedup = file.minSpeedup.value_or(kDefaultMinSpeedup);
  set.timeoutSeconds =
      unsigned(getInteger(jobs, wire::kTimeout, kDefaultTimeoutSeconds));
  set.trials = unsigned(getInteger(jobs, wire::kTrials, kDefaultTrials));

  size_t index = 0;
  for (const json &job : jobs[wire::kJobs]) {
    ++index;
    std::string where = "job " + std::to_string(index);
    if (!job.is_object() || !field(job, wire::kHash).is_string())
      badJobs(dir, where + " has no hash");
    std::string hash = job[wire::kHash].get<std::string>();
    // The hash names the job's folder: a file name, at most NAME_MAX bytes.
    if (hash.empty() || hash.size() > NAME_MAX ||
        hash.find('/') != std::string::npos ||
        hash.find('\0') != std::string::npos || hash == ".." || hash == ".")
      badJobs(dir, where + " has a bad hash");
    const json &function = field(job, wire::kFunction);
    if (!function.is_null() && !function.is_string())
      badJobs(dir, where + ": 'function' must be a string");
    Job written{hash,
                getString(job, wire::kFunction),
                getString(job, wire::kRegion),
                getString(job, wire::kKind),
                getString(job, wire::kReference),
                {},
                getInteger(job, wire::kFlops, 0),
                getInteger(job, wire::kBytes, 0),
                getString(job, wire::kRegionMlir)};
    JobsFile::CheckedJob entry{
        written.hash, function.is_string() ? function.get<std::string>() : "?",
        inside(dir, field(job, wire::kReference), "reference"),
        {},
        written.flops};
    const json &candidates = field(job, wire::kCandidates);
    if (!candidates.is_null() && !candidates.is_array())
      badJobs(dir, where + ": 'candidates' must be an array");
    for (const json &candidate : candidates) {
      if (!candidate.is_object())
        badJobs(dir, where + ": every candidate must be an object");
      entry.candidates.push_back(
          inside(dir, field(candidate, wire::kBundle), "bundle"));
      written.candidates.push_back(readCandidate(candidate));
    }
    file.list.push_back(std::move(entry));
    set.jobs.push_back(std::move(written));
  }
  return file;
}

json mlir::cuda_agent::runJobs(const JobsFile &file, const json &device,
                               const VerifyOptions &base,
                               const VerifyJobFunction &verify) {
  VerifyOptions options = base;
  options.time = true;
  if (file.minSpeedup)
    options.minSpeedup = *file.minSpeedup;
  if (file.timeoutSeconds)
    options.timeoutSeconds = *file.timeoutSeconds;
  if (file.trials)
    options.trials = *file.trials;

  json summary = {{wire::kStatus, wire::kStatusOk},
                  {wire::kDevice, device},
                  {wire::kJobs, json::array()}};
  size_t index = 0, total = file.list.size();
  for (const JobsFile::CheckedJob &job : file.list) {
    ++index;
    const std::string &hash = job.hash;
    const std::vector<fs::path> &candidates = job.candidates;
    json entry = {{wire::kHash, hash}, {wire::kCandidates, candidates.size()}};
    json result;
    ExitCode exitCode = kExitOk;
    if (candidates.empty()) {
      result = {{wire::kStatus, wire::kStatusOk},
                {wire::kCandidates, json::array()}};
    } else {
      try {
        VerifyOptions jobOptions = options;
        if (job.flops > 0)
          jobOptions.flops = job.flops;
        result = verify(job.reference, candidates, jobOptions, exitCode);
      } catch (const RunnerError &error) {
        exitCode = error.exitCode();
        result = {{wire::kStatus, wire::kStatusError},
                  {wire::kError, error.what()}};
      }
    }
    result = makeJobResult(std::move(result), device, utcNow(), exitCode);
    int accepted = countAccepted(result);
    fs::path resultPath = file.dir / hash / kResultFileName;
    std::ofstream out(resultPath);
    out << result.dump(1) << "\n";
    if (!out)
      throw RunnerError(kExitIo, "cannot write " + resultPath.string());
    entry[wire::kExitCode] = int(exitCode);
    entry[wire::kAccepted] = accepted;
    entry["result"] = (fs::path(hash) / kResultFileName).string();
    std::cerr << "cuda-agent-run: job " << index << "/" << total << " "
              << hash.substr(0, 12) << " (" << job.function
              << "): " << candidates.size() << " candidate(s), " << accepted
              << " accepted";
    if (result.contains(wire::kError))
      std::cerr << "; error: " << result[wire::kError].get<std::string>();
    std::cerr << std::endl;
    summary[wire::kJobs].push_back(entry);
  }
  return summary;
}
