//===- RunnerClientTest.cpp - Jobs, results, decisions --------------------===//
//
// The compiler's side of the runner protocol on files the test writes: the
// jobs file round trip and its errors, reading results (missing, partial)
// and the decision rules. The import into the kernel database is tested in
// unittests/KernelDb.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Runner/RunnerClient.h"

#include "JobsDirFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

using RunnerClientTest = JobsDirTest;

TEST_F(RunnerClientTest, JobSetRoundTrips) {
  JobSet jobs = makeJobs();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir, jobs)));
  llvm::Expected<JobSet> read = readJobSet(dir);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->chip, "sm_90");
  EXPECT_EQ(read->cudaVersion, "13.0");
  EXPECT_EQ(read->contractVersion, 1);
  EXPECT_DOUBLE_EQ(read->minSpeedup, 1.05);
  ASSERT_EQ(read->jobs.size(), 1u);
  EXPECT_EQ(read->jobs[0].region, "f_region0");
  ASSERT_EQ(read->jobs[0].candidates.size(), 2u);
  EXPECT_EQ(read->jobs[0].candidates[1].bundle, "ab12/candidates/b");
}

TEST_F(RunnerClientTest, BadJobFilesAreRefusedWithTheirPath) {
  write("jobs.json", R"({"version": 2, "jobs": []})");
  llvm::Expected<JobSet> read = readJobSet(dir);
  ASSERT_FALSE(bool(read));
  std::string message = llvm::toString(read.takeError());
  EXPECT_NE(message.find("jobs.json: not a version 1 jobs file"),
            std::string::npos)
      << message;

  write("jobs.json", R"({"version": 1, "chip": "sm_90", "cuda": "13.0",
                         "contract": 1, "jobs": [{"hash": "x",
                         "candidates": [{"name": "a"}]}]})");
  read = readJobSet(dir);
  ASSERT_FALSE(bool(read));
  message = llvm::toString(read.takeError());
  EXPECT_NE(message.find("every candidate needs a 'bundle'"), std::string::npos)
      << message;
}

// jobs.json comes back from the GPU machine: a job may not point the
// compiler at files outside the jobs directory (job-set-fuzzer's invariant).
TEST_F(RunnerClientTest, JobPathsStayInsideTheDirectory) {
  auto refusal = [&](llvm::StringRef job) {
    write("jobs.json", (R"({"version": 1, "chip": "sm_90", "cuda": "13.0",
                           "contract": 1, "jobs": [)" + job + "]}").str());
    llvm::Expected<JobSet> read = readJobSet(dir);
    return read ? std::string() : llvm::toString(read.takeError());
  };
  EXPECT_NE(refusal(R"({"hash": "..", "candidates": []})")
                .find("job hash '..' is not a file name"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"hash": "../../x", "candidates": []})")
                .find("is not a file name"),
            std::string::npos);
  // Longer than a file name may be (job-set-fuzzer found it: the folder of
  // such a job cannot be made).
  EXPECT_NE(refusal("{\"hash\": \"" + std::string(256, 'm') +
                    "\", \"candidates\": []}")
                .find("is not a file name"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"hash": "x", "reference": "x/../../ref"})")
                .find("reference 'x/../../ref' leaves the jobs directory"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"hash": "x", "candidates": [{"bundle": "/etc"}]})")
                .find("bundle '/etc' leaves the jobs directory"),
            std::string::npos);
  // "//name" is a network root name to llvm::sys::path, not absolute
  // (job-set-fuzzer found it).
  EXPECT_NE(refusal(R"({"hash": "x", "reference": "//etc"})")
                .find("reference '//etc' leaves the jobs directory"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"hash": "x", "candidates": [{"bundle": "//etc/x"}]})")
                .find("leaves the jobs directory"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"hash": "x", "candidates": [{"bundle": "a/../.."}]})")
                .find("leaves the jobs directory"),
            std::string::npos);
  EXPECT_EQ(refusal(R"({"hash": "x", "reference": "x/reference",
                        "candidates": [{"bundle": "x/candidates/a"}]})"),
            "");
}

TEST_F(RunnerClientTest, MissingResultMeansNotRun) {
  JobSet jobs = makeJobs();
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, jobs);
  ASSERT_TRUE(bool(results));
  ASSERT_EQ(results->size(), 1u);
  EXPECT_FALSE((*results)[0].ran);
  EXPECT_EQ(decideJob((*results)[0], 1.05).reason,
            "not verified: the job has not run");
}

TEST_F(RunnerClientTest, FastestAcceptedCandidateWins) {
  JobSet jobs = makeJobs();
  write("ab12/result.json", R"({"status": "ok",
    "device": {"name": "NVIDIA H200"}, "verified_at": "2026-11-30T01:00:00Z",
    "candidates": [
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 5,
       "speedup": 2.0, "accepted": true},
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 2.5,
       "speedup": 4.0, "accepted": true}]})");
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, jobs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  const JobResult &result = (*results)[0];
  EXPECT_TRUE(result.ran);
  EXPECT_EQ(result.device, "NVIDIA H200");
  JobDecision decision = decideJob(result, 1.05);
  ASSERT_TRUE(decision.winner.has_value());
  EXPECT_EQ(*decision.winner, 1u);
  EXPECT_EQ(decision.reason, "replay/b: 4.00x faster (2.5 us vs 10.0 us for "
                             "the default lowering, on NVIDIA H200)");
  // A higher bar than the best speedup: nothing wins, and the reason says so.
  decision = decideJob(result, 5.0);
  EXPECT_FALSE(decision.winner.has_value());
  EXPECT_NE(decision.reason.find("the best verified candidate, b, is 4.00x"),
            std::string::npos)
      << decision.reason;
}

// A result verified against an f64 oracle carries both sides' errors against
// it; one without has none.
TEST_F(RunnerClientTest, OracleErrorsAreRead) {
  JobSet jobs = makeJobs();
  write("ab12/result.json", R"({"status": "ok", "candidates": [
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 5, "speedup": 2.0,
       "accepted": true, "ref_oracle_err": 0.0025, "cand_oracle_err": 1.5e-05,
       "accepted_by_oracle": true},
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 5, "speedup": 2.0,
       "accepted": true}]})");
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, jobs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  const JobResult &result = (*results)[0];
  ASSERT_EQ(result.verdicts.size(), 2u);
  ASSERT_TRUE(result.verdicts[0].refOracleErr.has_value());
  EXPECT_DOUBLE_EQ(*result.verdicts[0].refOracleErr, 0.0025);
  ASSERT_TRUE(result.verdicts[0].candOracleErr.has_value());
  EXPECT_DOUBLE_EQ(*result.verdicts[0].candOracleErr, 1.5e-05);
  EXPECT_NE(result.verdicts[0].record.find("\"accepted_by_oracle\":true"), std::string::npos);
  EXPECT_FALSE(result.verdicts[1].refOracleErr.has_value());
  EXPECT_FALSE(result.verdicts[1].candOracleErr.has_value());
}

TEST_F(RunnerClientTest, FailuresAndPartialResultsGiveReasons) {
  JobSet jobs = makeJobs();
  // Only the first candidate has a verdict (the runner stopped early).
  write("ab12/result.json", R"({"status": "ok", "candidates": [
      {"verify": "fail", "reason": "changed input in0", "accepted": false}]})");
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, jobs);
  ASSERT_TRUE(bool(results));
  const JobResult &result = (*results)[0];
  ASSERT_EQ(result.verdicts.size(), 2u);
  EXPECT_EQ(result.verdicts[1].verify, "fail");
  EXPECT_EQ(result.verdicts[1].reason, "not verified");
  EXPECT_EQ(
      decideJob(result, 1.05).reason,
      "none of 2 candidate(s) passed verification (a: changed input in0)");

  write("ab12/result.json",
        R"({"status": "error", "error": "no CUDA device", "candidates": []})");
  results = readJobResults(dir, jobs);
  ASSERT_TRUE(bool(results));
  EXPECT_EQ((*results)[0].verdicts[0].reason, "no CUDA device");

  write("ab12/result.json", "{not json");
  results = readJobResults(dir, jobs);
  ASSERT_FALSE(bool(results));
  EXPECT_NE(llvm::toString(results.takeError()).find("result.json"),
            std::string::npos);
}

TEST_F(RunnerClientTest, ExplicitRunnerMustBeExecutable) {
  write("not-a-runner", "");
  llvm::Expected<std::string> runner = findRunner(path("not-a-runner"));
  ASSERT_FALSE(bool(runner));
  EXPECT_NE(
      llvm::toString(runner.takeError()).find("is not an executable file"),
      std::string::npos);
}

} // namespace
