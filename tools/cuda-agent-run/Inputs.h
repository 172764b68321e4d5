//===- Inputs.h - Host-side input data --------------------------*- C++ -*-===//
//
// Where input buffers get their contents: a .npy file checked against the
// buffer's shape and dtype, or a deterministic pseudo-random stream, so that
// the same seed gives the same inputs for a reference and a candidate.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_INPUTS_H
#define CUDA_AGENT_RUN_INPUTS_H

#include "Plan.h"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace mlir::cuda_agent {

/// The value distributions of generated float inputs. Integer buffers ignore
/// it: they always get small integers.
enum class Distribution {
  Normal,        ///< normal(0, 1)
  UniformOffset, ///< uniform in [-1, 1] plus 3.0 (no cancellation, offset)
  SmallInt,      ///< integers in [-4, 4] (sums of them are exact)
  LargeNormal,   ///< normal(0, 1) * 1e3 (* 30 for f16, to stay in range)
};

/// The distributions in the order verification trials cycle through them.
inline constexpr Distribution kTrialDistributions[] = {
    Distribution::Normal, Distribution::UniformOffset, Distribution::SmallInt,
    Distribution::LargeNormal};

/// "normal", "uniform+offset", "small-int", "large-normal".
const char *getDistributionName(Distribution distribution);

/// Returns `buffer.numBytes()` bytes of seeded data drawn from a splitmix64
/// stream seeded by `seed` and `bufferIndex`: for float types `distribution`
/// (normals by Box-Muller; default normal(0, 1)), integers uniform in [-8, 8]
/// for signed types, [0, 8] for u8 and {0, 1} for i1.
std::vector<uint8_t> generateInput(const BufferSpec &buffer, uint64_t seed,
                                   size_t bufferIndex,
                                   Distribution distribution = Distribution::Normal);

/// Reads `path` and checks that its dtype and shape are those of `buffer`
/// (bf16 is read from '<u2'). Throws RunnerError(kExitUsage).
std::vector<uint8_t> readInput(const BufferSpec &buffer,
                               const std::filesystem::path &path);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_INPUTS_H
