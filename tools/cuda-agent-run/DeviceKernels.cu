//===- DeviceKernels.cu - The verifier's own GPU kernels --------*- CUDA -*-===//
//
// Kernels that let `cuda-agent-run --verify` make inputs and check outputs on
// the GPU instead of the host: seeded input generation into a masked copy,
// unmasking a copy into a run's buffer, the capture of a reference output
// (masked copy, scale, hash), the tolerance comparison (with, in the same
// pass, the first bitwise difference from a third buffer: the race check),
// the random poison of outputs and the first bitwise difference of two
// buffers (one of them possibly masked). The per-element rules are
// ElementOps.h, shared with the host. Built at build time by nvcc into a
// fatbin (sm_80, sm_90 and compute_80 PTX for newer GPUs) that is embedded in
// the runner and loaded with cuModuleLoadDataEx (DeviceChecks.cpp); the
// names are extern "C".
//
// The kernels are bound by memory bandwidth, so they move 16 bytes per load
// and store: each thread of a grid-stride loop (64-bit indices, one wave of
// blocks, DeviceChecks.cpp) takes 16-byte chunks of every buffer it reads,
// two chunks in flight, when every pointer is 16-byte aligned (cuMemAlloc
// gives 256), and the elements after the last whole chunk one by one. The
// element type is a template parameter (one instantiation per element size
// or per dtype, picked once per launch), so no element goes through a
// runtime switch. The reducing kernels fold each warp with shuffles and
// write one partial per block, which the host combines.
//
//===----------------------------------------------------------------------===//

#include "ElementOps.h"

#include <cuda_fp16.h>

using namespace mlir::cuda_agent::elements;

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarps = kBlock / 32;

__device__ uint64_t firstIndex() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ uint64_t stride() { return uint64_t(gridDim.x) * blockDim.x; }

/// The raw bits of each dtype's elements.
template <uint32_t K> struct Elem;
template <> struct Elem<F32> { using T = uint32_t; };
template <> struct Elem<F16> { using T = uint16_t; };
template <> struct Elem<BF16> { using T = uint16_t; };
template <> struct Elem<F64> { using T = uint64_t; };
template <> struct Elem<I1> { using T = uint8_t; };
template <> struct Elem<I8> { using T = uint8_t; };
template <> struct Elem<I16> { using T = uint16_t; };
template <> struct Elem<I32> { using T = uint32_t; };
template <> struct Elem<I64> { using T = uint64_t; };
template <> struct Elem<U8> { using T = uint8_t; };

/// Runs BODY(K) for the Kind `kind` (a constant per launch).
#define CUDA_AGENT_FOR_KIND(kind, BODY)                                                  \
  switch (kind) {                                                                        \
  case F32: BODY(F32); break;                                                            \
  case F16: BODY(F16); break;                                                            \
  case BF16: BODY(BF16); break;                                                          \
  case F64: BODY(F64); break;                                                            \
  case I1: BODY(I1); break;                                                              \
  case I8: BODY(I8); break;                                                              \
  case I16: BODY(I16); break;                                                            \
  case I32: BODY(I32); break;                                                            \
  case I64: BODY(I64); break;                                                            \
  default: BODY(U8); break;                                                              \
  }

/// Runs BODY(T) for the unsigned type of `size` bytes.
#define CUDA_AGENT_FOR_SIZE(size, BODY)                                                  \
  switch (size) {                                                                        \
  case 1: BODY(uint8_t); break;                                                          \
  case 2: BODY(uint16_t); break;                                                         \
  case 4: BODY(uint32_t); break;                                                         \
  default: BODY(uint64_t); break;                                                        \
  }

/// Decodes float bits exactly (DType.cpp's decodeFloat).
template <uint32_t K> __device__ double decodeFloatOf(typename Elem<K>::T bits) {
  if constexpr (K == F32)
    return __uint_as_float(bits);
  else if constexpr (K == F16)
    return __half2float(__ushort_as_half(bits));
  else if constexpr (K == BF16)
    return __uint_as_float(uint32_t(bits) << 16);
  else
    return __longlong_as_double(int64_t(bits));
}

/// Sign-extends integer bits (DType.cpp's decodeInt: i1 and u8 unsigned;
/// float bits, compared exactly, as they are).
template <uint32_t K> __device__ int64_t decodeIntOf(typename Elem<K>::T bits) {
  if constexpr (K == I8)
    return int8_t(bits);
  else if constexpr (K == I16)
    return int16_t(bits);
  else if constexpr (K == I32)
    return int32_t(bits);
  else
    return int64_t(uint64_t(bits));
}

/// Rounds `value` to float `K` the way DType.cpp's encodeFloat does
/// (through f32 for f16 and bf16, round to nearest even).
template <uint32_t K> __device__ typename Elem<K>::T encodeFloatOf(double value) {
  float f = float(value);
  if constexpr (K == F32) {
    return __float_as_uint(f);
  } else if constexpr (K == F16) {
    return __half_as_ushort(__float2half_rn(f));
  } else if constexpr (K == BF16) {
    uint32_t bits = __float_as_uint(f); // generated values are never NaN
    bits += 0x7fff + ((bits >> 16) & 1);
    return uint16_t(bits >> 16);
  } else {
    return uint64_t(__double_as_longlong(value));
  }
}

/// 16 bytes of elements.
template <typename T> union Chunk {
  uint4 vec;
  T lane[16 / sizeof(T)];
};

__device__ bool isAligned(const void *pointer) {
  return (reinterpret_cast<uintptr_t>(pointer) & 15) == 0;
}

/// Chunks per buffer a thread loads before it uses any: enough bytes in
/// flight for the bandwidth, few enough copies of the body for 1-byte types.
template <typename T> constexpr int kChunksInFlight = sizeof(T) >= 4 ? 2 : 1;

/// Calls `f(i, v)` for every element i in [0, count), v[b] being element i
/// of `in[b]` (b < N); with `Store`, f returns the element to write at
/// `out[i]`. Chunks of 16 bytes when every pointer is aligned, then the
/// rest one by one.
template <typename T, int N, bool Store, typename F>
__device__ void forEach(const void *const (&in)[N], void *out, uint64_t count, F f) {
  constexpr int per = 16 / sizeof(T);
  constexpr int inFlight = kChunksInFlight<T>;
  bool vector = !Store || isAligned(out);
#pragma unroll
  for (int b = 0; b < N; ++b)
    vector = vector && isAligned(in[b]);
  uint64_t whole = vector ? count / per : 0, step = stride();
  for (uint64_t c = firstIndex(); c < whole; c += inFlight * step) {
    Chunk<T> loaded[inFlight][N];
#pragma unroll
    for (int k = 0; k < inFlight; ++k)
      if (c + k * step < whole)
#pragma unroll
        for (int b = 0; b < N; ++b)
          loaded[k][b].vec = __ldcs(static_cast<const uint4 *>(in[b]) + c + k * step);
#pragma unroll
    for (int k = 0; k < inFlight; ++k) {
      uint64_t chunk = c + k * step;
      if (chunk < whole) {
        Chunk<T> result;
#pragma unroll
        for (int l = 0; l < per; ++l) {
          T v[N];
#pragma unroll
          for (int b = 0; b < N; ++b)
            v[b] = loaded[k][b].lane[l];
          if constexpr (Store)
            result.lane[l] = f(chunk * per + l, v);
          else
            f(chunk * per + l, v);
        }
        if constexpr (Store)
          __stcs(static_cast<uint4 *>(out) + chunk, result.vec);
      }
    }
  }
  for (uint64_t i = whole * per + firstIndex(); i < count; i += step) {
    T v[N];
#pragma unroll
    for (int b = 0; b < N; ++b)
      v[b] = static_cast<const T *>(in[b])[i];
    if constexpr (Store)
      static_cast<T *>(out)[i] = f(i, v);
    else
      f(i, v);
  }
}

/// `value` from the lane `offset` above (a plain-data struct, word by word).
template <typename P> __device__ P shuffleDown(const P &value, unsigned offset) {
  static_assert(sizeof(P) % 4 == 0, "shuffled 4 bytes at a time");
  uint32_t words[sizeof(P) / 4];
  memcpy(words, &value, sizeof(P));
#pragma unroll
  for (unsigned w = 0; w < sizeof(P) / 4; ++w)
    words[w] = __shfl_down_sync(0xffffffffu, words[w], offset);
  P result;
  memcpy(&result, words, sizeof(P));
  return result;
}

/// Folds every thread's `mine` into `partials[blockIdx.x]` with
/// `fold(into, other)` (order-free): warps by shuffles, then thread 0 the
/// warps' results.
template <typename P, typename Fold>
__device__ void reduceBlock(P mine, P *partials, Fold fold) {
  __shared__ alignas(16) unsigned char storage[sizeof(P) * kWarps];
  P *warps = reinterpret_cast<P *>(storage);
#pragma unroll
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    P other = shuffleDown(mine, offset);
    fold(mine, other);
  }
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    P total = warps[0];
    for (unsigned w = 1; w < kWarps; ++w)
      fold(total, warps[w]);
    partials[blockIdx.x] = total;
  }
}

/// The two elements of the pair that starts at even element `first`.
template <uint32_t K>
__device__ void pairValues(uint64_t start, uint64_t first, uint32_t distribution,
                           typename Elem<K>::T values[2]) {
  using T = typename Elem<K>::T;
  if constexpr (K <= F64) {
    if (distribution == Normal || distribution == LargeNormal) {
      // One log and one sqrt per Box-Muller pair.
      double radius = boxMullerRadius(start, first, distribution, K);
      double angle = boxMullerAngle(start, first);
      values[0] = encodeFloatOf<K>(radius * cos(angle));
      values[1] = encodeFloatOf<K>(radius * sin(angle));
    } else {
      values[0] = encodeFloatOf<K>(floatElement(start, first, distribution, K));
      values[1] = encodeFloatOf<K>(floatElement(start, first + 1, distribution, K));
    }
  } else {
    values[0] = T(intElement(start, first, K)); // the low bytes are the value
    values[1] = T(intElement(start, first + 1, K));
  }
}

template <uint32_t K>
__device__ void generateBody(void *out, uint64_t count, uint64_t start,
                             uint32_t distribution, uint64_t key) {
  using T = typename Elem<K>::T;
  constexpr int per = 16 / sizeof(T); // even: whole pairs per chunk
  uint64_t whole = isAligned(out) ? count / per : 0, step = stride();
  for (uint64_t c = firstIndex(); c < whole; c += step) {
    Chunk<T> chunk;
#pragma unroll
    for (int l = 0; l < per; l += 2) {
      uint64_t first = c * per + l;
      T values[2];
      pairValues<K>(start, first, distribution, values);
      chunk.lane[l] = values[0] ^ T(maskOf(key, first));
      chunk.lane[l + 1] = values[1] ^ T(maskOf(key, first + 1));
    }
    __stcs(static_cast<uint4 *>(out) + c, chunk.vec);
  }
  for (uint64_t first = whole * per + 2 * firstIndex(); first < count; first += 2 * step) {
    T values[2];
    pairValues<K>(start, first, distribution, values);
    for (uint64_t i = first; i < first + 2 && i < count; ++i)
      static_cast<T *>(out)[i] = values[i - first] ^ T(maskOf(key, i));
  }
}

template <uint32_t K>
__device__ void captureBody(const void *src, void *store, uint64_t count, uint64_t key,
                            CapturePartial *partials, uint64_t hashKey) {
  using T = typename Elem<K>::T;
  CapturePartial mine = {0, {0, 0}};
  auto see = [&](uint64_t i, T bits) {
    hashElement(mine.hash, i, uint64_t(bits), hashKey);
    if constexpr (K <= F64) {
      double value = fabs(decodeFloatOf<K>(bits));
      if (value - value == 0 && value > mine.scale)
        mine.scale = value;
    }
  };
  const void *in[1] = {src};
  if (store)
    forEach<T, 1, true>(in, store, count, [&](uint64_t i, const T *v) {
      see(i, v[0]);
      return T(v[0] ^ T(maskOf(key, i)));
    });
  else
    forEach<T, 1, false>(in, nullptr, count, [&](uint64_t i, const T *v) { see(i, v[0]); });
  reduceBlock(mine, partials, [](CapturePartial &into, const CapturePartial &other) {
    combine(into, other);
  });
}

template <uint32_t K>
__device__ void compareBody(const void *store, uint64_t key, const void *got,
                            const void *other, uint64_t count, double rtol, double atol,
                            uint32_t exact, ComparePartial *partials,
                            unsigned long long *first) {
  using T = typename Elem<K>::T;
  ComparePartial mine;
  unsigned long long firstOther = ~0ULL;
  auto judge = [&](uint64_t i, T e, T g) {
    hashElement(mine.hash, i, uint64_t(g));
    if constexpr (K > F64) {
      if (e != g) // an equal element changes nothing (judgeInt)
        judgeInt(mine, i, decodeIntOf<K>(e), decodeIntOf<K>(g), uint64_t(g));
    } else {
      if (exact) {
        if (e != g)
          judgeInt(mine, i, decodeIntOf<K>(e), decodeIntOf<K>(g), uint64_t(g));
      } else if (e != g || sameBitsCanChange(mine, i)) {
        judgeFloat(mine, i, decodeFloatOf<K>(e), decodeFloatOf<K>(g), uint64_t(g), rtol,
                   atol);
      }
    }
  };
  if (other) {
    const void *in[3] = {store, got, other};
    forEach<T, 3, false>(in, nullptr, count, [&](uint64_t i, const T *v) {
      judge(i, T(v[0] ^ T(maskOf(key, i))), v[1]);
      if (v[2] != v[1] && i < firstOther)
        firstOther = i;
    });
  } else {
    const void *in[2] = {store, got};
    forEach<T, 2, false>(in, nullptr, count, [&](uint64_t i, const T *v) {
      judge(i, T(v[0] ^ T(maskOf(key, i))), v[1]);
    });
  }
  reduceBlock(mine, partials,
              [](ComparePartial &into, const ComparePartial &other) { combine(into, other); });
  if (firstOther != ~0ULL)
    atomicMin(first, firstOther);
}

} // namespace

/// Writes the seeded stream's `count` elements of `kind` to `out`, each XOR
/// the mask of `key` (the verifier keeps inputs masked and unmasks them into
/// each run's buffers). Each thread makes whole Box-Muller pairs, so a pair
/// takes one log and one sqrt.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_generate(void *out, uint64_t count, uint32_t kind, uint64_t start,
                    uint32_t distribution, uint64_t key) {
#define CUDA_AGENT_GENERATE(K) generateBody<K>(out, count, start, distribution, key)
  CUDA_AGENT_FOR_KIND(kind, CUDA_AGENT_GENERATE)
#undef CUDA_AGENT_GENERATE
}

/// Copies the masked `store` (generate's or capture's) unmasked to `out`.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_unmask(const void *store, uint64_t key, void *out, uint64_t count, uint32_t size) {
  const void *in[1] = {store};
#define CUDA_AGENT_UNMASK(T)                                                             \
  forEach<T, 1, true>(in, out, count,                                                    \
                      [&](uint64_t i, const T *v) { return T(v[0] ^ T(maskOf(key, i))); })
  CUDA_AGENT_FOR_SIZE(size, CUDA_AGENT_UNMASK)
#undef CUDA_AGENT_UNMASK
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
#define CUDA_AGENT_CAPTURE(K) captureBody<K>(src, store, count, key, partials, hashKey)
  CUDA_AGENT_FOR_KIND(kind, CUDA_AGENT_CAPTURE)
#undef CUDA_AGENT_CAPTURE
}

/// Fills `bytes` bytes at `out` (8-byte aligned) with the random poison of
/// `seed`: word i is poisonWord(seed, i), so every run's pattern differs and
/// no host block or copy is involved.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_poison(unsigned char *out, uint64_t bytes, uint64_t seed) {
  uint64_t words = bytes / 8, step = stride();
  uint64_t pairs = isAligned(out) ? words / 2 : 0;
  for (uint64_t c = firstIndex(); c < pairs; c += step) {
    Chunk<uint64_t> chunk;
    chunk.lane[0] = poisonWord(seed, 2 * c);
    chunk.lane[1] = poisonWord(seed, 2 * c + 1);
    __stcs(reinterpret_cast<uint4 *>(out) + c, chunk.vec);
  }
  uint64_t *wordsOut = reinterpret_cast<uint64_t *>(out);
  for (uint64_t i = 2 * pairs + firstIndex(); i < words; i += step)
    wordsOut[i] = poisonWord(seed, i);
  uint64_t tail = words * 8 + firstIndex();
  if (tail < bytes)
    out[tail] = uint8_t(poisonWord(seed, words) >> (8 * (tail % 8)));
}

/// Compares `got` against the reference output masked in `store` and
/// writes one ComparePartial per block (with the hash of `got`). `atol` is
/// already multiplied by the output's scale. With `other` non-null, lowers
/// `*first` to the lowest index where `other` and `got` differ bitwise, in
/// the same pass (the race check: `other` is the candidate's earlier run).
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_compare(const void *store, uint64_t key, const void *got, uint64_t count,
                   uint32_t kind, double rtol, double atol, uint32_t exact,
                   ComparePartial *partials, const void *other, unsigned long long *first) {
#define CUDA_AGENT_COMPARE(K)                                                            \
  compareBody<K>(store, key, got, other, count, rtol, atol, exact, partials, first)
  CUDA_AGENT_FOR_KIND(kind, CUDA_AGENT_COMPARE)
#undef CUDA_AGENT_COMPARE
}

/// Lowers `*first` to the lowest index where `a` (unmasked with `keyA` when
/// `maskedA`) and `b` differ bitwise.
extern "C" __global__ void __launch_bounds__(kBlock)
cuda_agent_first_difference(const void *a, uint64_t keyA, uint32_t maskedA, const void *b,
                            uint64_t count, uint32_t size, unsigned long long *first) {
  unsigned long long mine = ~0ULL;
  const void *in[2] = {a, b};
#define CUDA_AGENT_FIRST_DIFFERENCE(T)                                                   \
  forEach<T, 2, false>(in, nullptr, count, [&](uint64_t i, const T *v) {                 \
    T fromA = maskedA ? T(v[0] ^ T(maskOf(keyA, i))) : v[0];                             \
    if (fromA != v[1] && i < mine)                                                       \
      mine = i;                                                                          \
  })
  CUDA_AGENT_FOR_SIZE(size, CUDA_AGENT_FIRST_DIFFERENCE)
#undef CUDA_AGENT_FIRST_DIFFERENCE
  if (mine != ~0ULL)
    atomicMin(first, mine);
}
