//===- Inputs.cpp - Host-side input data ------------------------*- C++ -*-===//
//
// Seeded input generation and checked .npy input loading. The generator is
// splitmix64, chosen because it is tiny, fast and good enough for test data;
// the generated inputs are written next to the outputs, so no reference needs
// to reproduce the stream.
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"

#include "Error.h"
#include "Npy.h"

#include <cmath>

using namespace mlir::cuda_agent;

namespace {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t state) : state(state) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1].
  double nextUnit() { return double((next() >> 11) + 1) * 0x1p-53; }

private:
  uint64_t state;
};

} // namespace

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
  const DTypeInfo &info = getInfo(buffer.dtype);
  SplitMix64 rng(seed * 0xd1b54a32d192ed03ULL + bufferIndex * 0x8cb92ba72f3d8dd7ULL);
  std::vector<uint8_t> bytes(buffer.numBytes());
  uint64_t count = buffer.numElements();
  // f16 tops out at 65504: large magnitudes stay well inside it.
  double largeScale = buffer.dtype == DType::F16 ? 30.0 : 1e3;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t *element = bytes.data() + i * info.size;
    if (info.isFloat && distribution == Distribution::UniformOffset) {
      encodeFloat(buffer.dtype, 3.0 + 2.0 * rng.nextUnit() - 1.0, element);
    } else if (info.isFloat && distribution == Distribution::SmallInt) {
      encodeFloat(buffer.dtype, double(int64_t(rng.next() % 9) - 4), element);
    } else if (info.isFloat) {
      // Box-Muller gives two normals per pair of uniforms.
      double scale = distribution == Distribution::LargeNormal ? largeScale : 1.0;
      double radius = scale * std::sqrt(-2.0 * std::log(rng.nextUnit()));
      double angle = 2.0 * M_PI * rng.nextUnit();
      encodeFloat(buffer.dtype, radius * std::cos(angle), element);
      if (++i < count)
        encodeFloat(buffer.dtype, radius * std::sin(angle), element + info.size);
    } else if (buffer.dtype == DType::I1) {
      encodeInt(buffer.dtype, int64_t(rng.next() & 1), element);
    } else if (buffer.dtype == DType::U8) {
      encodeInt(buffer.dtype, int64_t(rng.next() % 9), element);
    } else {
      encodeInt(buffer.dtype, int64_t(rng.next() % 17) - 8, element);
    }
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
