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

/// Returns `buffer.numBytes()` bytes of seeded data: normal(0, 1) for float
/// types (Box-Muller over a splitmix64 stream seeded by `seed` and
/// `bufferIndex`), integers uniform in [-8, 8] for signed types, [0, 8] for u8
/// and {0, 1} for i1.
std::vector<uint8_t> generateInput(const BufferSpec &buffer, uint64_t seed,
                                   size_t bufferIndex);

/// Reads `path` and checks that its dtype and shape are those of `buffer`
/// (bf16 is read from '<u2'). Throws RunnerError(kExitUsage).
std::vector<uint8_t> readInput(const BufferSpec &buffer,
                               const std::filesystem::path &path);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_INPUTS_H
