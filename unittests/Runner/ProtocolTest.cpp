//===- ProtocolTest.cpp - The runner protocol, compiler side --------------===//
//
// Protocol.h's acceptance rule and decideJob on plain structs, its number
// formatting against llvm::formatv's, and the wire format that lib/Runner
// writes and reads pinned by the golden files: a renamed key, a dropped field
// or a changed default fails here.
//
//===----------------------------------------------------------------------===//

#include "SampleJobs.h"

#include "cuda-agent/Runner/Protocol.h"
#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::cuda_agent;

namespace {

TEST(ProtocolTest, DefaultsAreTheTargetsAndTheDocumentedOnes) {
  EXPECT_EQ(kJobsVersion, 1);
  EXPECT_DOUBLE_EQ(kDefaultMinSpeedup, 1.05);
  EXPECT_EQ(kDefaultTimeoutSeconds, 20u);
  EXPECT_EQ(kDefaultTrials, 4u);
  EXPECT_DOUBLE_EQ(kDefaultRooflineBandwidth, kH200Target.copyBandwidth);
  JobSet jobs;
  EXPECT_DOUBLE_EQ(jobs.minSpeedup, kDefaultMinSpeedup);
  EXPECT_EQ(jobs.timeoutSeconds, kDefaultTimeoutSeconds);
  EXPECT_EQ(jobs.trials, kDefaultTrials);
}

TEST(ProtocolTest, FasterAtMinSpeedupAcceptedOnlyWhenPassedAndFaster) {
  EXPECT_TRUE(isFaster(1.05, 1.05));
  EXPECT_FALSE(isFaster(1.0499, 1.05));
  EXPECT_STREQ(getTimingDecision(2.0, 1.05), "faster");
  EXPECT_STREQ(getTimingDecision(0.5, 1.05), "slower");
  EXPECT_TRUE(isAccepted(true, wire::kFaster));
  EXPECT_FALSE(isAccepted(false, wire::kFaster));
  EXPECT_FALSE(isAccepted(true, wire::kSlower));
  EXPECT_FALSE(isAccepted(true, wire::kNotTimed));
}

TEST(ProtocolTest, OracleBoundIsASmallMultipleOfTheReferencesError) {
  EXPECT_GT(kOracleErrorFactor, 1.0);
  EXPECT_LE(kOracleErrorFactor, 4.0);
  EXPECT_TRUE(isWithinOracleBound(0, 0));
  EXPECT_TRUE(isWithinOracleBound(1e-5, 1e-3)); // more accurate than the reference
  EXPECT_TRUE(isWithinOracleBound(kOracleErrorFactor * 1e-3, 1e-3));
  EXPECT_FALSE(isWithinOracleBound(kOracleErrorFactor * 1.01e-3, 1e-3));
  EXPECT_FALSE(isWithinOracleBound(1e-9, 0)); // an exact reference leaves no room
  EXPECT_FALSE(isWithinOracleBound(NAN, 1e-3));
  EXPECT_FALSE(isWithinOracleBound(INFINITY, 1e-3));
  EXPECT_FALSE(isWithinOracleBound(1e-3, NAN));
}

TEST(ProtocolTest, NumbersPrintLikeFormatv) {
  const double values[] = {0,     1.05,     2.5,      -3.14159, 1e-9,
                           0.005, 0.015,    123456.7, 1e300,    -0.0,
                           NAN,   INFINITY, -INFINITY};
  for (double value : values) {
    EXPECT_EQ(formatFixed(value, 1), llvm::formatv("{0:F1}", value).str());
    EXPECT_EQ(formatFixed(value, 2), llvm::formatv("{0:F2}", value).str());
  }
  EXPECT_EQ(formatSpeedup(3.1), "3.10x");
}

/// A result with candidates `a` (speedup `a`) and `b` (speedup `b`), both
/// passed; a speedup of 0 means not timed.
JobResult makeResult(const Job &job, double a, double b, double minSpeedup) {
  JobResult result;
  result.job = &job;
  result.ran = true;
  result.device = "NVIDIA H200";
  for (auto [candidate, speedup] :
       {std::pair{job.candidates[0], a}, std::pair{job.candidates[1], b}}) {
    CandidateVerdict verdict;
    verdict.candidate = candidate;
    verdict.verify = wire::kPass;
    if (speedup > 0) {
      verdict.refUs = 10;
      verdict.candUs = 10 / speedup;
      verdict.speedup = speedup;
    }
    verdict.accepted =
        isAccepted(true, speedup > 0 ? getTimingDecision(speedup, minSpeedup)
                                     : wire::kNotTimed);
    result.verdicts.push_back(verdict);
  }
  return result;
}

TEST(ProtocolTest, DecideJobPicksTheFastestAccepted) {
  JobSet jobs = makeSampleJobSet();
  const Job &job = jobs.jobs[0];
  JobDecision decision = decideJob(makeResult(job, 2.0, 4.0, 1.05), 1.05);
  ASSERT_TRUE(decision.winner.has_value());
  EXPECT_EQ(*decision.winner, 1u);
  EXPECT_EQ(decision.reason, "openai/t2-0: 4.00x faster (2.5 us vs 10.0 us for "
                             "the default lowering, on NVIDIA H200)");

  // The runner accepted it, but the compiler asks for more.
  decision = decideJob(makeResult(job, 2.0, 4.0, 1.05), 5.0);
  EXPECT_FALSE(decision.winner.has_value());
  EXPECT_EQ(decision.reason,
            "the best verified candidate, t2-0, is 4.00x the speed of the "
            "default lowering (2.5 us vs 10.0 us for the default lowering); "
            "min-speedup is 5.00x");

  // The runner's bar was higher than the compiler's: neither was accepted,
  // so the fastest does not win.
  decision = decideJob(makeResult(job, 1.2, 1.5, 1.6), 1.05);
  EXPECT_FALSE(decision.winner.has_value());
  EXPECT_NE(decision.reason.find("t2-0, is 1.50x"), std::string::npos)
      << decision.reason;

  // Untimed candidates never win.
  decision = decideJob(makeResult(job, 0, 0, 1.05), 1.05);
  EXPECT_FALSE(decision.winner.has_value());
  EXPECT_EQ(decision.reason, "none of 2 candidate(s) passed verification "
                             "(v1: pass)");
}

TEST(ProtocolTest, DecideJobSaysWhyNothingRan) {
  JobSet jobs = makeSampleJobSet();
  JobResult result;
  result.job = &jobs.jobs[0];
  EXPECT_EQ(decideJob(result, 1.05).reason,
            "not verified: the job has not run");
  result.ran = true;
  EXPECT_EQ(decideJob(result, 1.05).reason, "no candidate to verify");
  result.error = "no CUDA device";
  EXPECT_EQ(decideJob(result, 1.05).reason,
            "verification failed: no CUDA device");
}

TEST(ProtocolTest, JobsFileMatchesTheGoldenFile) {
  std::string written = printJobSet(makeSampleJobSet());
  std::string golden = readGoldenFile("jobs.json", written);
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(written, golden);
  llvm::Expected<JobSet> read = parseJobSet(golden, "jobs.json");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_TRUE(*read == makeSampleJobSet());
}

TEST(ProtocolTest, MissingSettingsTakeTheDefaults) {
  llvm::Expected<JobSet> read = parseJobSet(
      R"({"version": 1, "chip": "sm_90", "cuda": "13.0", "contract": 1,
          "jobs": [{"hash": "x", "candidates": [{"bundle": "x/c"}]}]})",
      "jobs.json");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_DOUBLE_EQ(read->minSpeedup, kDefaultMinSpeedup);
  EXPECT_EQ(read->timeoutSeconds, kDefaultTimeoutSeconds);
  EXPECT_EQ(read->trials, kDefaultTrials);
  EXPECT_EQ(read->jobs[0].candidates[0].turn, 1u);
}

TEST(ProtocolTest, GoldenResultReadsWithEveryField) {
  std::string golden = readGoldenFile("result.json");
  ASSERT_FALSE(golden.empty());
  JobSet jobs = makeSampleJobSet();
  llvm::Expected<JobResult> result =
      parseJobResult(golden, jobs.jobs[0], "result.json");
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->ran);
  EXPECT_EQ(result->error, "");
  EXPECT_EQ(result->device, "NVIDIA H200");
  EXPECT_EQ(result->verifiedAt, "2026-11-30T01:00:00Z");
  ASSERT_EQ(result->verdicts.size(), 2u);
  const CandidateVerdict &passed = result->verdicts[0];
  EXPECT_TRUE(passed.candidate == jobs.jobs[0].candidates[0]);
  EXPECT_EQ(passed.verify, "pass");
  EXPECT_EQ(passed.reason, "");
  EXPECT_EQ(passed.refUs, 10.0);
  EXPECT_EQ(passed.candUs, 4.0);
  EXPECT_EQ(passed.speedup, 2.5);
  EXPECT_TRUE(passed.accepted);
  EXPECT_NE(passed.record.find(R"("decision":"faster")"), std::string::npos)
      << passed.record;
  const CandidateVerdict &failed = result->verdicts[1];
  EXPECT_EQ(failed.verify, "fail");
  EXPECT_EQ(failed.reason, "mismatch in out0 at [3] on trial 1 (normal)");
  EXPECT_FALSE(failed.speedup.has_value());
  EXPECT_FALSE(failed.accepted);
  JobDecision decision = decideJob(*result, jobs.minSpeedup);
  ASSERT_TRUE(decision.winner.has_value());
  EXPECT_EQ(*decision.winner, 0u);
}

} // namespace
