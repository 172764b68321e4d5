//===- RunnerJobsFuzzer.cpp - Fuzzes cuda-agent-run's jobs.json reader -*- C++ -*-===//
//
// loadJobs() reads the jobs.json that `--jobs DIR` runs. The input is
// jobs.json. Its contract: a bad file throws RunnerError and nothing else,
// and every bundle path of an accepted file stays inside DIR.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "Error.h"
#include "Jobs.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;
using cuda_agent_fuzz::scratchDir;
using cuda_agent_fuzz::writeScratchFile;

/// True when `path`, relative to `dir`, has no ".." part.
static bool staysInside(const std::filesystem::path &dir,
                        const std::filesystem::path &path) {
  std::filesystem::path relative = path.lexically_relative(dir);
  if (relative.empty() || relative.is_absolute())
    return false;
  for (const std::filesystem::path &part : relative)
    if (part == "..")
      return false;
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::filesystem::path dir = scratchDir() + "/jobs";
  static bool made = (mkdir(dir.c_str(), 0700), true);
  (void)made;
  writeScratchFile("jobs/jobs.json", data, size);
  JobsFile file;
  try {
    file = loadJobs(dir);
  } catch (const RunnerError &error) {
    require(error.exitCode() == kExitUsage, "a bad jobs.json not a usage error");
    return 0;
  }
  for (const JobsFile::CheckedJob &job : file.list) {
    require(staysInside(dir, job.reference), "a reference outside DIR");
    for (const std::filesystem::path &candidate : job.candidates)
      require(staysInside(dir, candidate), "a candidate outside DIR");
  }
  return 0;
}
