//===- SampleJobs.h - One jobs file with every field set --------*- C++ -*-===//
//
// The jobs both sides of the runner protocol are tested on: every field of
// Protocol.h's JobSet differs from its default, so a field that a writer
// drops or a reader misses changes what is read back. Golden/jobs.json is
// this set as lib/Runner writes it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_UNITTESTS_RUNNER_SAMPLEJOBS_H
#define CUDA_AGENT_UNITTESTS_RUNNER_SAMPLEJOBS_H

#include "cuda-agent/Runner/Protocol.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace mlir::cuda_agent {

inline JobSet makeSampleJobSet() {
  JobSet jobs;
  jobs.chip = "sm_90";
  jobs.cudaVersion = "13.0";
  jobs.contractVersion = 2;
  jobs.minSpeedup = 1.25;
  jobs.timeoutSeconds = 31;
  jobs.trials = 3;
  Job job{"0123abcd",
          "forward",
          "forward_region0",
          "elementwise",
          "0123abcd/reference",
          {},
          1048576,
          8388608,
          "func.func @r(%a: tensor<4xf32>) {\n  \"quoted\"\n}\n"};
  job.candidates.push_back(
      {"v1", "replay", "files", "", 1, "0123abcd/candidates/v1"});
  job.candidates.push_back(
      {"t2-0", "openai", "gpt-x", "prompt-v3", 2, "0123abcd/candidates/t2-0"});
  jobs.jobs.push_back(job);
  return jobs;
}

/// The golden file `name` of unittests/Runner/Golden, or "" when missing.
/// With CUDA_AGENT_UPDATE_GOLDEN=1 in the environment it is first replaced
/// by `actual` (what the writer under test wrote): run the tests once that
/// way after a deliberate change of the wire format, and review the diff.
inline std::string readGoldenFile(const std::string &name,
                                  const std::string &actual = "") {
  const char *update = std::getenv("CUDA_AGENT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1" && !actual.empty())
    std::ofstream(std::string(CUDA_AGENT_RUNNER_GOLDEN_DIR) + "/" + name,
                  std::ios::binary)
        << actual;
  std::ifstream in(std::string(CUDA_AGENT_RUNNER_GOLDEN_DIR) + "/" + name,
                   std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_UNITTESTS_RUNNER_SAMPLEJOBS_H
