//===- DeviceKernels.cu - The verifier's own GPU kernels --------*- CUDA -*-===//
//
// Kernels that let `cuda-agent-run --verify` make inputs and check outputs on
// the GPU instead of the host: seeded input generation into a masked copy,
// unmasking a copy into a run's buffer, the capture of a reference output
// (masked copy, scale, hash), the tolerance comparison, the random poison of outputs and the first bitwise
// difference of two buffers (one of them possibly masked). The per-element rules are ElementOps.h, shared
// with the host. Built at build time by nvcc into a fatbin (sm_80, sm_90 and
// compute_80 PTX for newer GPUs) that is embedded in the runner and loaded
// with cuModuleLoadDataEx (DeviceChecks.cpp); the names are extern "C".
// Every kernel is a grid-stride loop over 64-bit indices; the reducing ones
// write one partial per block, which the host combines.
//
//===----------------------------------------------------------------------===//

#include "ElementOps.h"

#include <cuda_fp16.h>

using namespace mlir::cuda_agent::elements;

namespace {

constexpr unsigned kBlock = 256;

__device__ uint64_t loadBits(const void *data, uint64_t index, unsigned size) {
  switch (size) {
  case 1:
    return static_cast<const uint8_t *>(data)[index];
  case 2:
    return static_cast<const uint16_t *>(data)[index];
  case 4:
    return static_cast<const uint32_t *>(data)[index];
  default:
    return static_cast<const uint64_t *>(data)[index];
  }
}

__device__ void storeBits(void *data, uint64_t index, unsigned size, uint64_t bits) {
  switch (size) {
  case 1:
    static_cast<uint8_t *>(data)[index] = uint8_t(bits);
    return;
  case 2:
    static_cast<uint16_t *>(data)[index] = uint16_t(bits);
    return;
  case 4:
    static_cast<uint32_t *>(data)[index] = uint32_t(bits);
    return;
  default:
    static_cast<uint64_t *>(data)[index] = bits;
  }
}

/// Decodes float bits exactly (DType.cpp's decodeFloat).
__device__ double decodeFloatBits(uint32_t kind, uint64_t bits) {
  switch (kind) {
  case F32:
    return __uint_as_float(uint32_t(bits));
  case F16:
    return __half2float(__ushort_as_half(uint16_t(bits)));
  case BF16:
    return __uint_as_float(uint32_t(bits) << 16);
  default:
    return __longlong_as_double(int64_t(bits));
  }
}

/// Sign-extends integer bits (DType.cpp's decodeInt: i1 and u8 unsigned).
__device__ int64_t decodeIntBits(uint32_t kind, uint64_t bits) {
  switch (kind) {
  case I8:
    return int8_t(bits);
  case I16:
    return int16_t(bits);
  case I32:
    return int32_t(bits);
  case I64:
    return int64_t(bits);
  default:
    return int64_t(bits);
  }
}

/// Rounds `value` to float `kind` the way DType.cpp's encodeFloat does
/// (through f32 for f16 and bf16, round to nearest even).
__device__ uint64_t encodeFloatBits(uint32_t kind, double value) {
  float f = float(value);
  switch (kind) {
  case F32:
    return __float_as_uint(f);
  case F16:
    return __half_as_ushort(__float2half_rn(f));
  case BF16: {
    uint32_t bits = __float_as_uint(f); // generated values are never NaN
    bits += 0x7fff + ((bits >> 16) & 1);
    return bits >> 16;
  }
  default:
    return uint64_t(__double_as_longlong(value));
  }
}

__device__ uint64_t firstIndex() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ uint64_t stride() { return uint64_t(gridDim.x) * blockDim.x; }

/// Elements each thread loads before it uses any: enough bytes in flight to
/// approach the memory bandwidth with one element per load.
constexpr int kUnroll = 4;

/// The grid-stride loop over [0, count): `load(i)` for kUnroll elements,
/// then `use(i, loaded)` for each.
template <typename Load, typename Use>
__device__ void gridLoop(uint64_t count, Load load, Use use) {
  uint64_t step = stride();
  for (uint64_t base = firstIndex(); base < count; base += kUnroll * step) {
    decltype(load(base)) loaded[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * step < count)
        loaded[k] = load(base + k * step);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * step < count)
        use(base + k * step, loaded[k]);
  }
}

struct BitsPair {
  uint64_t a, b;
};

} // namespace

/// Writes the seeded stream's `count` elements of `kind` to `out`, each XOR
/// the mask of `key` (the verifier keeps inputs masked and unmasks them into
/// each run's buffers). One thread per pair of elements, so a Box-Muller pair
/// takes one log and one sqrt.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_generate(void *out, uint64_t count, uint32_t kind, uint64_t start,
                    uint32_t distribution, uint64_t key) {
  unsigned size = kindSize(kind);
  bool normal = isFloatKind(kind) && (distribution == Normal || distribution == LargeNormal);
  for (uint64_t pair = firstIndex(); 2 * pair < count; pair += stride()) {
    uint64_t first = 2 * pair;
    double radius = 0, angle = 0;
    if (normal) {
      radius = boxMullerRadius(start, first, distribution, kind);
      angle = boxMullerAngle(start, first);
    }
    for (uint64_t i = first; i < first + 2 && i < count; ++i) {
      uint64_t bits;
      if (normal)
        bits = encodeFloatBits(kind, radius * ((i & 1) ? sin(angle) : cos(angle)));
      else if (isFloatKind(kind))
        bits = encodeFloatBits(kind, floatElement(start, i, distribution, kind));
      else
        bits = uint64_t(intElement(start, i, kind)); // the low bytes are the value
      storeBits(out, i, size, bits ^ maskOf(key, i));
    }
  }
}

/// Copies the masked `store` (generate's or capture's) unmasked to `out`.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_unmask(const void *store, uint64_t key, void *out, uint64_t count, uint32_t size) {
  gridLoop(
      count, [&](uint64_t i) { return loadBits(store, i, size); },
      [&](uint64_t i, uint64_t bits) { storeBits(out, i, size, bits ^ maskOf(key, i)); });
}

/// Copies `src` to `store` XOR the mask of `key` (store may be null: hash
/// only) and writes per block the largest finite |element| (floats) and the
/// hash of `src`.
///
/// With `hashKey` nonzero the hash is keyed (hashElement: a kernel that
/// does not know the key cannot make a change that keeps it).
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_capture(const void *src, void *store, uint64_t count, uint32_t kind,
                   uint64_t key, CapturePartial *partials, uint64_t hashKey) {
  __shared__ CapturePartial shared[kBlock];
  unsigned size = kindSize(kind);
  CapturePartial mine = {0, {0, 0}};
  gridLoop(
      count, [&](uint64_t i) { return loadBits(src, i, size); },
      [&](uint64_t i, uint64_t bits) {
        if (store)
          storeBits(store, i, size, bits ^ maskOf(key, i));
        hashElement(mine.hash, i, bits, hashKey);
        if (isFloatKind(kind)) {
          double value = fabs(decodeFloatBits(kind, bits));
          if (value - value == 0 && value > mine.scale)
            mine.scale = value;
        }
      });
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      CapturePartial &a = shared[threadIdx.x];
      const CapturePartial &b = shared[threadIdx.x + half];
      a.scale = b.scale > a.scale ? b.scale : a.scale;
      a.hash[0] += b.hash[0];
      a.hash[1] += b.hash[1];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

/// Fills `bytes` bytes at `out` (8-byte aligned) with the random poison of
/// `seed`: word i is poisonWord(seed, i), so every run's pattern differs and
/// no host block or copy is involved.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_poison(unsigned char *out, uint64_t bytes, uint64_t seed) {
  uint64_t words = bytes / 8;
  uint64_t *wordsOut = reinterpret_cast<uint64_t *>(out);
  for (uint64_t i = firstIndex(); i < words; i += stride())
    wordsOut[i] = poisonWord(seed, i);
  uint64_t tail = words * 8 + firstIndex();
  if (tail < bytes)
    out[tail] = uint8_t(poisonWord(seed, words) >> (8 * (tail % 8)));
}

/// Compares `got` against the reference output masked in `store` and
/// writes one ComparePartial per block (with the hash of `got`). `atol` is
/// already multiplied by the output's scale.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_compare(const void *store, uint64_t key, const void *got, uint64_t count,
                   uint32_t kind, double rtol, double atol, uint32_t exact,
                   ComparePartial *partials) {
  __shared__ ComparePartial shared[kBlock];
  unsigned size = kindSize(kind);
  uint64_t mask = size == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
  ComparePartial mine;
  gridLoop(
      count,
      [&](uint64_t i) { return BitsPair{loadBits(store, i, size), loadBits(got, i, size)}; },
      [&](uint64_t i, BitsPair bits) {
        uint64_t e = (bits.a ^ maskOf(key, i)) & mask, g = bits.b;
        hashElement(mine.hash, i, g);
        if (exact || !isFloatKind(kind))
          judgeInt(mine, i, decodeIntBits(kind, e), decodeIntBits(kind, g), g);
        else
          judgeFloat(mine, i, decodeFloatBits(kind, e), decodeFloatBits(kind, g), g, rtol,
                     atol);
      });
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      combine(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

/// Lowers `*first` to the lowest index where `a` (unmasked with `keyA` when
/// `maskedA`) and `b` differ bitwise.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_first_difference(const void *a, uint64_t keyA, uint32_t maskedA, const void *b,
                            uint64_t count, uint32_t size, unsigned long long *first) {
  uint64_t mask = size == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
  unsigned long long mine = ~0ULL;
  gridLoop(
      count, [&](uint64_t i) { return BitsPair{loadBits(a, i, size), loadBits(b, i, size)}; },
      [&](uint64_t i, BitsPair bits) {
        uint64_t fromA = maskedA ? (bits.a ^ maskOf(keyA, i)) & mask : bits.a;
        if (fromA != bits.b && i < mine)
          mine = i;
      });
  if (mine != ~0ULL)
    atomicMin(first, mine);
}
