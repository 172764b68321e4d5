//===- JobsTest.cpp - The runner protocol across both sides ---------------===//
//
// jobs.json written by lib/Runner and read by cuda-agent-run's reader, and
// result.json written by the runner's job loop and read by lib/Runner, each
// with every field intact; the runner's jobs checks; and the golden files
// that pin what the runner writes. Verification itself needs a GPU, so the
// job loop runs a stand-in that builds its verdicts with the runner's own
// entry functions (Result.h).
//
//===----------------------------------------------------------------------===//

#include "SampleJobs.h"

#include "Jobs.h"
#include "Result.h"

#include "cuda-agent/Runner/RunnerClient.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

class JobsTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/runner-jobs-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

/// The message of the RunnerError that parsing `text` throws, or "".
std::string parseError(const std::string &text) {
  try {
    parseJobs(text, "/jobs");
  } catch (const RunnerError &error) {
    EXPECT_EQ(error.exitCode(), kExitUsage);
    return error.what();
  }
  return "";
}

const json kDevice = {
    {"name", "NVIDIA H200"}, {"arch", "sm_90"}, {"memory_bytes", 150000000000}};

/// What the runner's verification reports for the sample job: candidate v1
/// passed, 2.5x faster; t2-0 failed a comparison.
json verifySample(const fs::path &reference,
                  const std::vector<fs::path> &candidates,
                  const VerifyOptions &options) {
  json summary = makeVerifySummary(reference);
  json passed = makeCandidateEntry(candidates.at(0));
  recordTiming(passed, 10.0, 4.0, options.minSpeedup);
  markPassed(passed);
  json failed = makeCandidateEntry(candidates.at(1));
  markFailed(failed, "mismatch in out0 at [3] on trial 1 (normal)");
  summary[wire::kCandidates].push_back(passed);
  summary[wire::kCandidates].push_back(failed);
  return summary;
}

TEST_F(JobsTest, JobsWrittenByTheCompilerReadWithEveryField) {
  JobSet written = makeSampleJobSet();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir.string(), written)));
  JobsFile file = loadJobs(dir);
  EXPECT_TRUE(file.set == written);
  EXPECT_EQ(file.minSpeedup, 1.25);
  EXPECT_EQ(file.timeoutSeconds, 31.0);
  EXPECT_EQ(file.trials, 3);
  ASSERT_EQ(file.list.size(), 1u);
  EXPECT_EQ(file.list[0].hash, "0123abcd");
  EXPECT_EQ(file.list[0].function, "forward");
  EXPECT_EQ(file.list[0].reference, dir / "0123abcd/reference");
  EXPECT_EQ(file.list[0].flops, written.jobs[0].flops); // the compute floor's
  EXPECT_GT(file.list[0].flops, 0);
  EXPECT_EQ(file.list[0].candidates,
            (std::vector<fs::path>{dir / "0123abcd/candidates/v1",
                                   dir / "0123abcd/candidates/t2-0"}));
}

TEST_F(JobsTest, TheGoldenJobsFileReadsAsTheSample) {
  std::string golden = readGoldenFile("jobs.json");
  ASSERT_FALSE(golden.empty());
  EXPECT_TRUE(parseJobs(golden, "/jobs").set == makeSampleJobSet());
}

TEST_F(JobsTest, ResultsWrittenByTheRunnerReadWithEveryField) {
  JobSet jobs = makeSampleJobSet();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir.string(), jobs)));
  fs::create_directories(dir / "0123abcd");
  VerifyOptions base;
  base.minSpeedup = 9; // jobs.json's 1.25 wins
  bool verified = false;
  json summary = runJobs(loadJobs(dir), kDevice, base,
                         [&](const fs::path &reference,
                             const std::vector<fs::path> &candidates,
                             const VerifyOptions &options, ExitCode &exitCode) {
                           verified = true;
                           EXPECT_TRUE(options.time);
                           EXPECT_EQ(options.minSpeedup, 1.25);
                           EXPECT_EQ(options.timeoutSeconds, 31);
                           EXPECT_EQ(options.trials, 3);
                           EXPECT_EQ(options.flops, jobs.jobs[0].flops);
                           exitCode = kExitOk;
                           return verifySample(reference, candidates, options);
                         });
  ASSERT_TRUE(verified);
  EXPECT_EQ(summary[wire::kJobs][0][wire::kAccepted], 1);

  llvm::Expected<std::vector<JobResult>> results =
      readJobResults(dir.string(), jobs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  const JobResult &result = results->at(0);
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.device, "NVIDIA H200");
  EXPECT_TRUE(std::regex_match(
      result.verifiedAt, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << result.verifiedAt;
  ASSERT_EQ(result.verdicts.size(), 2u);
  const CandidateVerdict &passed = result.verdicts[0];
  EXPECT_TRUE(passed.candidate == jobs.jobs[0].candidates[0]);
  EXPECT_EQ(passed.verify, "pass");
  EXPECT_EQ(passed.reason, "");
  EXPECT_EQ(passed.refUs, 10.0);
  EXPECT_EQ(passed.candUs, 4.0);
  EXPECT_EQ(passed.speedup, 2.5);
  EXPECT_TRUE(passed.accepted);
  EXPECT_NE(passed.record.find(R"("bundle":")" +
                               (dir / "0123abcd/candidates/v1").string()),
            std::string::npos)
      << passed.record;
  const CandidateVerdict &failed = result.verdicts[1];
  EXPECT_TRUE(failed.candidate == jobs.jobs[0].candidates[1]);
  EXPECT_EQ(failed.verify, "fail");
  EXPECT_EQ(failed.reason, "mismatch in out0 at [3] on trial 1 (normal)");
  EXPECT_FALSE(failed.refUs || failed.candUs || failed.speedup);
  EXPECT_FALSE(failed.accepted);

  JobDecision decision = decideJob(result, jobs.minSpeedup);
  ASSERT_TRUE(decision.winner.has_value());
  EXPECT_EQ(*decision.winner, 0u);
  EXPECT_EQ(decision.reason, "replay/v1: 2.50x faster (4.0 us vs 10.0 us for "
                             "the default lowering, on NVIDIA H200)");
}

TEST_F(JobsTest, AJobThatCannotRunReportsItsError) {
  JobSet jobs = makeSampleJobSet();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir.string(), jobs)));
  fs::create_directories(dir / "0123abcd");
  json summary =
      runJobs(loadJobs(dir), kDevice, VerifyOptions(),
              [](const fs::path &, const std::vector<fs::path> &,
                 const VerifyOptions &, ExitCode &) -> json {
                throw RunnerError(kExitCuda, "reference: no CUDA device");
              });
  EXPECT_EQ(summary[wire::kJobs][0][wire::kExitCode], int(kExitCuda));
  llvm::Expected<std::vector<JobResult>> results =
      readJobResults(dir.string(), jobs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  EXPECT_EQ(results->at(0).error, "reference: no CUDA device");
  EXPECT_EQ(results->at(0).verdicts.at(1).reason, "reference: no CUDA device");
  EXPECT_EQ(decideJob(results->at(0), jobs.minSpeedup).reason,
            "none of 2 candidate(s) passed verification (v1: reference: no "
            "CUDA device)");
}

TEST(ResultTest, TheGoldenResultIsWhatTheRunnerWrites) {
  JobsFile file = parseJobs(readGoldenFile("jobs.json"), "/jobs");
  const JobsFile::CheckedJob &job = file.list.at(0);
  VerifyOptions options;
  options.minSpeedup = *file.minSpeedup;
  json result =
      makeJobResult(verifySample(job.reference, job.candidates, options),
                    kDevice, "2026-11-30T01:00:00Z", kExitOk);
  std::string written = result.dump(1) + "\n";
  EXPECT_EQ(written, readGoldenFile("result.json", written));
}

TEST(ResultTest, AcceptedOnlyWhenPassedAndTimedFaster) {
  json entry = makeCandidateEntry("/b");
  markPassed(entry);
  EXPECT_EQ(entry[wire::kDecision], "not-timed");
  EXPECT_FALSE(entry[wire::kAccepted].get<bool>()); // untimed
  recordTiming(entry, 10, 9.6, 1.05);
  markPassed(entry);
  EXPECT_EQ(entry[wire::kDecision], "slower");
  EXPECT_FALSE(entry[wire::kAccepted].get<bool>());
  recordTiming(entry, 10.5, 10, 1.05);
  markPassed(entry);
  EXPECT_EQ(entry[wire::kDecision], "faster");
  EXPECT_TRUE(entry[wire::kAccepted].get<bool>());
  markFailed(entry, "output out0 changed after the timing runs");
  EXPECT_EQ(entry[wire::kVerify], "fail");
  EXPECT_FALSE(entry[wire::kAccepted].get<bool>());
  EXPECT_EQ(countAccepted({{wire::kCandidates, {entry}}}), 0);
}

TEST(JobsCheckTest, BadJobsFilesAreRefusedBeforeTheGpu) {
  EXPECT_EQ(parseError("[]"), "/jobs/jobs.json: not a JSON object");
  EXPECT_EQ(parseError("{not json"), "/jobs/jobs.json: not a JSON object");
  EXPECT_EQ(parseError(R"({"version": 2, "jobs": []})"),
            "/jobs/jobs.json: version 2 (this runner reads version 1)");
  EXPECT_EQ(parseError(R"({"jobs": []})"),
            "/jobs/jobs.json: version null (this runner reads version 1)");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": {}})"),
            "/jobs/jobs.json: 'jobs' must be an array");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": [{"function": "f"}]})"),
            "/jobs/jobs.json: job 1 has no hash");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": [{"hash": "../x"}]})"),
            "/jobs/jobs.json: job 1 has a bad hash");
  EXPECT_EQ(parseError("{\"version\": 1, \"jobs\": [{\"hash\": \"" +
                       std::string(256, 'm') + "\"}]}"),
            "/jobs/jobs.json: job 1 has a bad hash");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": [{"hash": "x",
                           "reference": "/etc"}]})"),
            "/jobs/jobs.json: reference '/etc' must be a relative path");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": [{"hash": "x",
                           "reference": "x/ref", "candidates":
                           [{"bundle": "x/../../y"}]}]})"),
            "/jobs/jobs.json: bundle 'x/../../y' leaves the jobs directory");
  EXPECT_EQ(parseError(R"({"version": 1, "jobs": [{"hash": "x",
                           "reference": "x/ref", "candidates": [{}]}]})"),
            "/jobs/jobs.json: bundle must be a string");
}

TEST(JobsCheckTest, SettingsTheFileLacksKeepTheCommandLines) {
  JobsFile file = parseJobs(R"({"version": 1, "trials": 0, "jobs": []})", "/j");
  EXPECT_FALSE(file.minSpeedup.has_value());
  EXPECT_FALSE(file.timeoutSeconds.has_value());
  EXPECT_EQ(file.trials, 1); // at least one
  EXPECT_DOUBLE_EQ(file.set.minSpeedup, kDefaultMinSpeedup);
  EXPECT_EQ(file.set.timeoutSeconds, kDefaultTimeoutSeconds);
}

} // namespace
