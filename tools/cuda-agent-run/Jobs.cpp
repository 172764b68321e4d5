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

/// A path inside the jobs directory: relative, without "..".
fs::path inside(const fs::path &dir, const json &value, const char *what) {
  if (!value.is_string())
    badJobs(dir, std::string(what) + " must be a string");
  fs::path relative = value.get<std::string>();
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
  if (jobs.value("version", 0) != kJobsVersion)
    badJobs(dir, "version " + jobs.value("version", json(nullptr)).dump() +
                     " (this runner reads version " +
                     std::to_string(kJobsVersion) + ")");
  if (!jobs.contains("jobs") || !jobs["jobs"].is_array())
    badJobs(dir, "'jobs' must be an array");
  size_t index = 0;
  for (const json &job : jobs["jobs"]) {
    ++index;
    if (!job.is_object() || !job.contains("hash") || !job["hash"].is_string())
      badJobs(dir, "job " + std::to_string(index) + " has no hash");
    fs::path hash = job["hash"].get<std::string>();
    if (hash.has_parent_path() || hash == ".." || hash == ".")
      badJobs(dir, "job " + std::to_string(index) + " has a bad hash");
    JobsFile::Job entry{
        job["hash"].get<std::string>(),
        job.value("function", std::string("?")),
        inside(dir, job.value("reference", json()), "reference"),
        {},
        job.contains("flops") && job["flops"].is_number_integer()
            ? job["flops"].get<int64_t>()
            : 0};
    for (const json &candidate : job.value("candidates", json::array()))
      entry.candidates.push_back(
          inside(dir, candidate.value("bundle", json()), "bundle"));
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
        VerifyOptions jobOptions = options;
        if (job.flops > 0)
          jobOptions.flops = job.flops;
        result = verifyBundles(job.reference, candidates, jobOptions, exitCode);
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
