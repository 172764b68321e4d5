//===- JobSetFuzzer.cpp - Fuzzes the compiler's jobs.json reader -*- C++ -*-===//
//
// readJobSet() and readJobResults() read back a jobs directory that went to
// the GPU machine and returned (jobs.json, then <hash>/result.json per job).
// The input is jobs.json, then optionally a NUL byte and the result.json
// given to every job; decideJob() then picks each job's winner. Checked
// besides the sanitizers: every path an accepted jobs.json names stays inside
// the directory (a hash is a file name, reference and bundles are relative
// without ".."), a result has a verdict per candidate and a winner is one of
// them.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;
using cuda_agent_fuzz::scratchDir;
using cuda_agent_fuzz::writeScratchFile;

/// A file name: not empty, no '/', no NUL, not "." or "..".
static bool isPlainName(llvm::StringRef name) {
  return !name.empty() && !name.contains('/') && !name.contains('\0') &&
         name != "." && name != "..";
}

/// A relative path without ".." parts (and without NUL).
static bool staysInside(llvm::StringRef path) {
  if (path.empty() || path.starts_with("/") || path.contains('\0'))
    return false;
  llvm::SmallVector<llvm::StringRef> parts;
  path.split(parts, '/');
  return !llvm::is_contained(parts, "..");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto [jobsText, resultText] = input.split('\0');
  std::string dir = scratchDir() + "/jobs";
  mkdir(dir.c_str(), 0700);
  writeScratchFile("jobs/jobs.json",
                   reinterpret_cast<const uint8_t *>(jobsText.data()),
                   jobsText.size());
  llvm::Expected<JobSet> jobs = readJobSet(dir);
  if (!jobs) {
    llvm::consumeError(jobs.takeError());
    return 0;
  }
  std::vector<std::string> written;
  for (const Job &job : jobs->jobs) {
    // What the runner's loadJobs() also insists on: the files a job names
    // stay inside the jobs directory.
    require(isPlainName(job.hash), "an accepted job hash that is not a name");
    require(job.reference.empty() || staysInside(job.reference),
            "a reference outside the directory");
    for (const JobCandidate &candidate : job.candidates)
      require(staysInside(candidate.bundle), "a bundle outside the directory");
    written.push_back("jobs/" + job.hash + "/result.json");
    writeScratchFile(written.back(),
                     reinterpret_cast<const uint8_t *>(resultText.data()),
                     resultText.size(), /*makeParent=*/true);
  }
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, *jobs);
  if (!results) {
    llvm::consumeError(results.takeError());
  } else {
    for (const JobResult &result : *results) {
      if (!result.ran)
        continue;
      require(result.verdicts.size() == result.job->candidates.size(),
              "a result without one verdict per candidate");
      JobDecision decision = decideJob(result, jobs->minSpeedup);
      require(!decision.winner || *decision.winner < result.verdicts.size(),
              "a winner that is not a candidate");
    }
  }
  for (const std::string &path : written)
    std::remove((scratchDir() + "/" + path).c_str());
  return 0;
}
