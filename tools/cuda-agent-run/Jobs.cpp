//===- Jobs.cpp - Verification jobs written by the compiler
//----------------===//

#include "Jobs.h"

#include <ctime>
#include <fstream>
#include <iostream>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {
/// The current UTC time as ISO 8601, e.g. "2026-11-30T01:22:21Z".
std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

[[noreturn]] void badJobs(const fs::path &dir, const std::string &message) {
  throw RunnerError(kExitUsage, (dir / "jobs.json").string() + ": " + message);
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
} // namespace

JobsFile mlir::cuda_agent::loadJobs(const fs::path &dir) {
  std::ifstream in(dir / "jobs.json");
  if (!in)
    throw RunnerError(kExitUsage,
                      "cannot read " + (dir / "jobs.json").string());
  JobsFile file;
  file.dir = dir;
  file.jobs = json::parse(in, nullptr, /*allow_exceptions=*/false);
  const json &jobs = file.jobs;
  if (!jobs.is_object())
    badJobs(dir, "not a JSON object");
  // Every field is type-checked before it is read: json::value() and get()
  // throw json::type_error on a field of another type, not RunnerError.
  const json &version = field(jobs, "version");
  if (!version.is_number_integer() || version != kJobsVersion)
    badJobs(dir, "version " + version.dump() + " (this runner reads version " +
                     std::to_string(kJobsVersion) + ")");
  if (!field(jobs, "jobs").is_array())
    badJobs(dir, "'jobs' must be an array");
  size_t index = 0;
  for (const json &job : jobs["jobs"]) {
    ++index;
    std::string where = "job " + std::to_string(index);
    if (!job.is_object() || !field(job, "hash").is_string())
      badJobs(dir, where + " has no hash");
    std::string hash = job["hash"].get<std::string>();
    if (hash.empty() || hash.find('/') != std::string::npos ||
        hash.find('\0') != std::string::npos || hash == ".." || hash == ".")
      badJobs(dir, where + " has a bad hash");
    const json &function = field(job, "function");
    if (!function.is_null() && !function.is_string())
      badJobs(dir, where + ": 'function' must be a string");
    JobsFile::Job entry{
        hash, function.is_string() ? function.get<std::string>() : "?",
        inside(dir, field(job, "reference"), "reference"), {}};
    const json &candidates = field(job, "candidates");
    if (!candidates.is_null() && !candidates.is_array())
      badJobs(dir, where + ": 'candidates' must be an array");
    for (const json &candidate : candidates) {
      if (!candidate.is_object())
        badJobs(dir, where + ": every candidate must be an object");
      entry.candidates.push_back(
          inside(dir, field(candidate, "bundle"), "bundle"));
    }
    file.list.push_back(std::move(entry));
  }
  return file;
}

json mlir::cuda_agent::runJobs(const JobsFile &file, const json &device,
                               const VerifyOptions &base) {
  const json &jobs = file.jobs;
  VerifyOptions options = base;
  options.time = true;
  if (jobs.contains("min_speedup") && jobs["min_speedup"].is_number())
    options.minSpeedup = jobs["min_speedup"].get<double>();
  if (jobs.contains("timeout") && jobs["timeout"].is_number())
    options.timeoutSeconds = jobs["timeout"].get<double>();
  if (jobs.contains("trials") && jobs["trials"].is_number_integer())
    options.trials = std::max(1, jobs["trials"].get<int>());

  json summary = {
      {"status", "ok"}, {"device", device}, {"jobs", json::array()}};
  size_t index = 0, total = file.list.size();
  for (const JobsFile::Job &job : file.list) {
    ++index;
    const std::string &hash = job.hash;
    const std::vector<fs::path> &candidates = job.candidates;
    json entry = {{"hash", hash}, {"candidates", candidates.size()}};
    json result;
    ExitCode exitCode = kExitOk;
    if (candidates.empty()) {
      result = {{"status", "ok"}, {"candidates", json::array()}};
    } else {
      try {
        result = verifyBundles(job.reference, candidates, options, exitCode);
      } catch (const RunnerError &error) {
        exitCode = error.exitCode();
        result = {{"status", "error"}, {"error", error.what()}};
      }
    }
    result["device"] = device;
    result["verified_at"] = utcNow();
    result["exit_code"] = int(exitCode);
    int accepted = 0;
    for (const json &candidate : result.value("candidates", json::array()))
      accepted += candidate.value("accepted", false) ? 1 : 0;
    fs::path resultPath = file.dir / hash / "result.json";
    std::ofstream out(resultPath);
    out << result.dump(1) << "\n";
    if (!out)
      throw RunnerError(kExitIo, "cannot write " + resultPath.string());
    entry["exit_code"] = int(exitCode);
    entry["accepted"] = accepted;
    entry["result"] = (fs::path(hash) / "result.json").string();
    std::cerr << "cuda-agent-run: job " << index << "/" << total << " "
              << hash.substr(0, 12) << " (" << job.function
              << "): " << candidates.size() << " candidate(s), " << accepted
              << " accepted";
    if (result.contains("error"))
      std::cerr << "; error: " << result["error"].get<std::string>();
    std::cerr << std::endl;
    summary["jobs"].push_back(entry);
  }
  return summary;
}
