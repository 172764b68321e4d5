//===- Npy.h - .npy file reading and writing --------------------*- C++ -*-===//
//
// The runner's data exchange format: numpy .npy files, little-endian, C order.
// Inputs may be read from them and every output (and every generated input)
// is written as one, so that a reference can be computed with numpy or torch.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_NPY_H
#define CUDA_AGENT_RUN_NPY_H

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

struct NpyArray {
  std::string descr;          ///< numpy dtype descr, e.g. "<f4"
  std::vector<int64_t> shape; ///< empty for a 0-d array
  std::vector<uint8_t> data;  ///< raw elements in C order
};

/// Reads a .npy file (format versions 1.0 to 3.0). Rejects Fortran order, a
/// malformed header and a data size that does not match descr and shape.
/// Throws RunnerError(kExitUsage) naming the file.
NpyArray readNpy(const std::filesystem::path &path);

/// readNpy() on the bytes of `in`; `name` stands for the file in errors.
NpyArray readNpy(std::istream &in, const std::string &name);

/// Writes a version 1.0 .npy file, header padded to 64 bytes. Throws
/// RunnerError(kExitIo) when the file cannot be written.
void writeNpy(const std::filesystem::path &path, const std::string &descr,
              const std::vector<int64_t> &shape, const void *data,
              size_t numBytes);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_NPY_H
