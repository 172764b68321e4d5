//===- ResultImportTest.cpp - Runner results into the kernel database -----===//
//
// A jobs directory as the compiler writes it and the runner fills it, imported
// into a real SQLite kernel database: only accepted candidates become
// records, each with its source and verdict, and every job that ran gets one
// decision.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/KernelDb/ResultImport.h"
#include "cuda-agent/Runner/RunnerClient.h"

#include "../Runner/JobsDirFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

using ResultImportTest = JobsDirTest;

TEST_F(ResultImportTest, ImportStoresAcceptedKernelsAndOneDecision) {
  JobSet jobs = makeJobs();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir, jobs)));
  write("ab12/result.json", R"({"status": "ok",
    "device": {"name": "NVIDIA H200"}, "verified_at": "2026-11-30T01:00:00Z",
    "candidates": [
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 20,
       "speedup": 0.5, "accepted": false},
      {"verify": "pass", "reason": "", "ref_us": 10, "cand_us": 4,
       "speedup": 2.5, "accepted": true}]})");
  llvm::Expected<std::unique_ptr<KernelDb>> db =
      KernelDb::open(path("k.db"), /*create=*/true);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  llvm::Expected<ImportedResults> imported = importJobResults(**db, dir);
  ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
  EXPECT_EQ(imported->jobsRun, 1);
  EXPECT_EQ(imported->kernelsAdded, 1);
  EXPECT_EQ(imported->decisions, 1);

  llvm::Expected<std::optional<KernelRecord>> best =
      (*db)->bestKernel({"ab12", "sm_90", "13.0", 1});
  ASSERT_TRUE(bool(best));
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->source, "// kernel b\n");
  EXPECT_EQ((*best)->launchPlanJson, R"({"launches":[]})");
  // The runner's verdict, as it wrote it (keys sorted).
  EXPECT_EQ((*best)->verification,
            R"({"accepted":true,"cand_us":4,"reason":"","ref_us":10,)"
            R"("speedup":2.5,"verify":"pass"})");
  EXPECT_EQ((*best)->verifiedOn, "NVIDIA H200");
  EXPECT_EQ((*best)->createdAt, "2026-11-30T01:00:00Z");
  EXPECT_DOUBLE_EQ((*best)->speedup, 2.5);
  EXPECT_EQ((*best)->promptVersion, "prompt-v2");
  EXPECT_EQ((*best)->kind, "elementwise");

  llvm::Expected<std::vector<DecisionRecord>> decisions =
      (*db)->listDecisions();
  ASSERT_TRUE(bool(decisions));
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_EQ((*decisions)[0].decision, "spliced");
  EXPECT_EQ((*decisions)[0].kernelId, (*best)->id);
  EXPECT_EQ((*decisions)[0].reason,
            "replay/b: 2.50x faster (4.0 us vs 10.0 us for the default "
            "lowering, on NVIDIA H200)");
}

TEST_F(ResultImportTest, JobsWithoutResultsAreCountedNotStored) {
  JobSet jobs = makeJobs();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir, jobs)));
  llvm::Expected<std::unique_ptr<KernelDb>> db =
      KernelDb::open(path("k.db"), /*create=*/true);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  llvm::Expected<ImportedResults> imported = importJobResults(**db, dir);
  ASSERT_TRUE(bool(imported)) << llvm::toString(imported.takeError());
  EXPECT_EQ(imported->jobsRun, 0);
  EXPECT_EQ(imported->jobsNotRun, 1);
  EXPECT_EQ(imported->decisions, 0);
}

TEST_F(ResultImportTest, AMissingBundleStopsTheImportNamingTheFile) {
  JobSet jobs = makeJobs();
  ASSERT_FALSE(llvm::errorToBool(writeJobSet(dir, jobs)));
  write("ab12/result.json", R"({"status": "ok", "candidates": [
      {"verify": "pass", "speedup": 2.0, "accepted": true}]})");
  llvm::sys::fs::remove(path("ab12/candidates/a/kernel.cu"));
  llvm::Expected<std::unique_ptr<KernelDb>> db =
      KernelDb::open(path("k.db"), /*create=*/true);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  llvm::Expected<ImportedResults> imported = importJobResults(**db, dir);
  ASSERT_FALSE(bool(imported));
  EXPECT_NE(llvm::toString(imported.takeError()).find("kernel.cu"),
            std::string::npos);
}

} // namespace
