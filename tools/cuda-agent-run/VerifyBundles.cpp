//===- VerifyBundles.cpp - The parent side of verification ------*- C++ -*-===//
//
// verifyBundles checks every candidate's plan against the reference's (the
// interface, state that outlives a launch) before any GPU work, then runs
// one child process (`--verify-one`, Verify.cpp) per runnable candidate under
// the watchdog, and gathers the children's verdicts into one summary. A
// child that hangs, crashes or prints no verdict is that candidate's failure.
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "Child.h"
#include "Driver.h"
#include "Plan.h"
#include "Result.h"
#include "StateCheck.h"

#include <chrono>
#include <random>
#include <sstream>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;


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
                                     const VerifyOptions &given,
                                     ExitCode &exitCode) {
  exitCode = kExitOk;
  Plan reference = withContext("reference", [&] { return loadPlan(referencePath); });
  json summary = makeVerifySummary(referencePath);
  // One seed for every candidate of this verification (they see the same
  // inputs), unknown before it starts; within --seed's range.
  VerifyOptions options = given;
  if (options.drawSeed) {
    std::random_device random;
    options.seed = ((uint64_t(random()) << 32) ^ random()) & (UINT64_MAX / 2);
    options.drawSeed = false;
  }
  summary["seed"] = options.seed;

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
    entries.push_back(verdict.empty() ? makeCandidateEntry(path)
                                      : makeFailedCandidateEntry(path, verdict));
    runnable.push_back(verdict.empty());
    if (!reason.empty())
      rejected.push_back(path.string() + ": " + reason);
  }

  std::string self = runnable.empty() ? "" : getSelfExecutable();
  std::vector<double> childSeconds(candidatePaths.size(), -1);
  for (size_t i = 0; i < candidatePaths.size(); ++i) {
    if (!runnable[i])
      continue;
    std::vector<std::string> argv = {self, "--verify-one", referencePath.string(),
                                     candidatePaths[i].string()};
    for (std::string &arg : options.toChildArgs())
      argv.push_back(std::move(arg));
    auto started = std::chrono::steady_clock::now();
    ChildResult child = runChild(argv, options.timeoutSeconds);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    childSeconds[i] = seconds;
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
      summary[wire::kStatus] = wire::kStatusError;
      summary[wire::kError] = result.value("error", std::string("unknown error"));
      exitCode = ExitCode(result.value("exit_code", int(kExitCuda)));
      break;
    } else {
      entries[i] = makeFailedCandidateEntry(candidatePaths[i],
                                   "runner " + child.describe() +
                                       (exited ? " without a result" : ""));
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i < childSeconds.size() && childSeconds[i] >= 0)
      entries[i]["verify_s"] = childSeconds[i]; // the child's wall time
    summary[wire::kCandidates].push_back(std::move(entries[i]));
  }

  if (summary[wire::kStatus] == wire::kStatusOk && !rejected.empty()) {
    summary[wire::kStatus] = wire::kStatusError;
    std::string message = std::to_string(rejected.size()) + " candidate plan" +
                          (rejected.size() == 1 ? "" : "s") + " rejected";
    for (const std::string &reason : rejected)
      message += "; " + reason;
    summary[wire::kError] = message;
    exitCode = kExitUsage;
  }
  return summary;
}
