//===- Result.cpp - The verdicts the runner reports -------------*- C++ -*-===//
//
// Every key of a candidate entry that the compiler reads, and the decision
// and acceptance written into it, go through Protocol.h; the details only
// people read (trials, time spreads, notes) are added by Verify.cpp.
//
//===----------------------------------------------------------------------===//

#include "Result.h"

#include <ctime>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

json mlir::cuda_agent::makeVerifySummary(const fs::path &reference) {
  return {
      {wire::kStatus, wire::kStatusOk},
      {wire::kReference,
       {{wire::kBundle, fs::absolute(reference).string()}, {"time", nullptr}}},
      {wire::kCandidates, json::array()}};
}

json mlir::cuda_agent::makeCandidateEntry(const fs::path &bundle) {
  return {{wire::kBundle, fs::absolute(bundle).string()},
          {wire::kVerify, wire::kFail},
          {wire::kReason, ""},
          {"trials", json::array()},
          {wire::kRefUs, nullptr},
          {wire::kCandUs, nullptr},
          {wire::kSpeedup, nullptr},
          {wire::kDecision, wire::kNotTimed},
          {wire::kAccepted, false}};
}

json mlir::cuda_agent::makeFailedCandidateEntry(const fs::path &bundle,
                                                const std::string &reason) {
  json entry = makeCandidateEntry(bundle);
  entry[wire::kReason] = reason;
  return entry;
}

void mlir::cuda_agent::recordTiming(json &entry, double refUs, double candUs,
                                    double minSpeedup) {
  double speedup = refUs / candUs;
  entry[wire::kRefUs] = refUs;
  entry[wire::kCandUs] = candUs;
  entry[wire::kSpeedup] = speedup;
  entry[wire::kDecision] = getTimingDecision(speedup, minSpeedup);
}

void mlir::cuda_agent::markPassed(json &entry) {
  entry[wire::kVerify] = wire::kPass;
  entry[wire::kAccepted] =
      isAccepted(/*passed=*/true, entry[wire::kDecision].get<std::string>());
}

void mlir::cuda_agent::markFailed(json &entry, const std::string &reason) {
  entry[wire::kVerify] = wire::kFail;
  entry[wire::kReason] = reason;
  entry[wire::kAccepted] = false;
}

json mlir::cuda_agent::makeJobResult(json summary, const json &device,
                                     const std::string &verifiedAt,
                                     ExitCode exitCode) {
  summary[wire::kDevice] = device;
  summary[wire::kVerifiedAt] = verifiedAt;
  summary[wire::kExitCode] = int(exitCode);
  return summary;
}

int mlir::cuda_agent::countAccepted(const json &result) {
  int accepted = 0;
  for (const json &candidate : result.value(wire::kCandidates, json::array()))
    accepted += candidate.value(wire::kAccepted, false) ? 1 : 0;
  return accepted;
}

std::string mlir::cuda_agent::utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}
