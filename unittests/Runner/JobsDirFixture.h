//===- JobsDirFixture.h - A jobs directory the test writes ------*- C++ -*-===//
//
// The fixture of the tests that need a jobs directory as the compiler writes
// it (lib/Runner's protocol tests, the database import's tests): a fresh
// directory per test, a helper to write files into it, and one job set of one
// region with two candidates whose bundles are on disk.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_UNITTESTS_RUNNER_JOBSDIRFIXTURE_H
#define CUDA_AGENT_UNITTESTS_RUNNER_JOBSDIRFIXTURE_H

#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace mlir::cuda_agent {

class JobsDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("jobs-dir", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef relative) const {
    llvm::SmallString<256> result(dir);
    llvm::sys::path::append(result, relative);
    return result.str().str();
  }
  void write(llvm::StringRef relative, llvm::StringRef text) {
    std::string file = path(relative);
    ASSERT_FALSE(
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(file)));
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    ASSERT_FALSE(ec);
    os << text;
  }

  /// One region with candidates `a` and `b`, their bundles written.
  JobSet makeJobs() {
    JobSet jobs{"sm_90", "13.0", 1, 1.05, 20, 4, {}};
    Job job{"ab12", "f", "f_region0", "elementwise", "ab12/reference", {}};
    for (const char *name : {"a", "b"}) {
      std::string bundle = std::string("ab12/candidates/") + name;
      job.candidates.push_back({name, "replay", "files",
                                name == std::string("b") ? "prompt-v2" : "",
                                1, bundle});
      write(bundle + "/kernel.cu", std::string("// kernel ") + name + "\n");
      write(bundle + "/launch.json", R"({"launches": []})");
    }
    jobs.jobs.push_back(job);
    return jobs;
  }

  llvm::SmallString<128> dir;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_UNITTESTS_RUNNER_JOBSDIRFIXTURE_H
