//===- Inputs.cpp - Host-side input data ------------------------*- C++ -*-===//
//
// Seeded input generation on the host and checked .npy input loading. The
// generator is splitmix64 used as a counter (element i is a function of i:
// ElementOps.h), so the verifier's GPU kernels draw the same stream in
// parallel; the host loop here serves the single-bundle run, which writes
// its generated inputs next to the outputs.
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"

#include "ElementOps.h"
#include "Error.h"
#include "Npy.h"

using namespace mlir::cuda_agent;

const char *mlir::cuda_agent::getDistributionName(Distribution distribution) {
  switch (distribution) {
  case Distribution::Normal:
    return "normal";
  case Distribution::UniformOffset:
    return "uniform+offset";
  case Distribution::SmallInt:
    return "small-int";
  case Distribution::LargeNormal:
    return "large-normal";
  }
  return "?";
}

std::vector<uint8_t> mlir::cuda_agent::generateInput(const BufferSpec &buffer,
                                                     uint64_t seed,
                                                     size_t bufferIndex,
                                                     Distribution distribution) {
  // The same element rules as the GPU's cuda_agent_generate (ElementOps.h).
  namespace el = elements;
  const DTypeInfo &info = getInfo(buffer.dtype);
  uint64_t start = el::streamStart(seed, bufferIndex);
  auto kind = uint32_t(buffer.dtype);
  std::vector<uint8_t> bytes(buffer.numBytes());
  uint64_t count = buffer.numElements();
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t *element = bytes.data() + i * info.size;
    if (info.isFloat)
      encodeFloat(buffer.dtype, el::floatElement(start, i, uint32_t(distribution), kind),
                  element);
    else
      encodeInt(buffer.dtype, el::intElement(start, i, kind), element);
  }
  return bytes;
}

std::vector<uint8_t> mlir::cuda_agent::readInput(const BufferSpec &buffer,
                                                 const std::filesystem::path &path) {
  NpyArray array = readNpy(path);
  const DTypeInfo &info = getInfo(buffer.dtype);
  if (!npyDescrMatches(buffer.dtype, array.descr))
    throw RunnerError(kExitUsage,
                      path.string() + ": dtype '" + array.descr + "' does not match buffer '" +
                          buffer.name + "' of type " + info.name + " (expected '" +
                          info.npyDescr + "')");
  if (array.shape != buffer.shape)
    throw RunnerError(kExitUsage, path.string() + ": shape " + formatDims(array.shape) +
                                      " does not match buffer '" + buffer.name +
                                      "' of shape " + formatDims(buffer.shape));
  return std::move(array.data);
}
