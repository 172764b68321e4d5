//===- NpyFuzzer.cpp - Fuzzes cuda-agent-run's .npy reader ------*- C++ -*-===//
//
// readNpy() reads the inputs a user gives the runner (--inputs). The input
// is the file. Its contract: a bad file throws RunnerError and nothing else
// (no other exception, no allocation the file's size does not justify), and
// an accepted array's shape counts its elements without overflow and its
// data is a whole number of them.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "Error.h"
#include "Npy.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;
using cuda_agent_fuzz::writeScratchFile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = writeScratchFile("input.npy", data, size);
  NpyArray array;
  try {
    array = readNpy(path);
  } catch (const RunnerError &error) {
    require(error.exitCode() == kExitUsage, "a bad .npy not a usage error");
    return 0;
  }
  require(array.data.size() <= size, "more data than the file holds");
  uint64_t bytes = 1;
  for (int64_t dim : array.shape) {
    require(dim >= 0, "a negative dimension");
    require(!__builtin_mul_overflow(bytes, uint64_t(dim), &bytes),
            "a shape whose element count overflows");
  }
  require(bytes == 0 ? array.data.empty() : array.data.size() % bytes == 0,
          "data not a whole number of elements");
  return 0;
}
