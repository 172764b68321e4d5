//===- ElementOps.h - Per-element rules shared by host and GPU --*- C++ -*-===//
//
// The verifier's per-element rules, written once and compiled twice: by the
// host compiler into the runner (Inputs.cpp, Tolerance.cpp) and by nvcc into
// the embedded verifier kernels (DeviceKernels.cu). They are
//
//  - the seeded input stream: element i of a buffer is a pure function of
//    (seed, buffer index, i, distribution) through splitmix64, so a GPU thread
//    draws any element without the ones before it (normals come in
//    Box-Muller pairs: elements 2j and 2j+1 share draws 2j and 2j+1);
//  - the judgement of one output element against the tolerance (Tolerance.h)
//    and the combination of two partial summaries, so the GPU's reduction and
//    the host's loop pick the same worst element;
//  - the order-free 128-bit hash of a buffer's elements.
//
// Only +, -, *, /, sqrt (correctly rounded everywhere) and the math library's
// log, cos, sin are used; the kernels are built with -fmad=false, so every GPU
// computes the same bits. The host's libm and CUDA's log/cos/sin may differ
// in the last double bit, which almost never survives the rounding to f32.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_ELEMENTOPS_H
#define CUDA_AGENT_RUN_ELEMENTOPS_H

#include <cstdint>

#if defined(__CUDACC__)
#define CUDA_AGENT_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define CUDA_AGENT_HD inline
#endif

namespace mlir::cuda_agent::elements {

/// The element types as the kernels see them: the values of DType (DType.h),
/// which static_asserts in DeviceChecks.cpp keep in step.
enum Kind : uint32_t { F32, F16, BF16, F64, I1, I8, I16, I32, I64, U8 };

/// The input distributions: the values of Distribution (Inputs.h).
enum Draw : uint32_t { Normal, UniformOffset, SmallInt, LargeNormal };

CUDA_AGENT_HD bool isFloatKind(uint32_t kind) { return kind <= F64; }

CUDA_AGENT_HD unsigned kindSize(uint32_t kind) {
  switch (kind) {
  case F32:
  case I32:
    return 4;
  case F16:
  case BF16:
  case I16:
    return 2;
  case F64:
  case I64:
    return 8;
  default:
    return 1;
  }
}

//===----------------------------------------------------------------------===//
// The seeded input stream
//===----------------------------------------------------------------------===//

CUDA_AGENT_HD uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The state a buffer's stream starts from.
CUDA_AGENT_HD uint64_t streamStart(uint64_t seed, uint64_t bufferIndex) {
  return seed * 0xd1b54a32d192ed03ULL + bufferIndex * 0x8cb92ba72f3d8dd7ULL;
}

/// Draw `k` (from 0) of the splitmix64 stream that starts at `start`.
CUDA_AGENT_HD uint64_t draw(uint64_t start, uint64_t k) {
  return mix64(start + (k + 1) * 0x9e3779b97f4a7c15ULL);
}

/// A draw as a uniform double in (0, 1].
CUDA_AGENT_HD double unitOf(uint64_t bits) {
  return double((bits >> 11) + 1) * 0x1p-53;
}

/// How large the large-normal trial's values are for `kind`: f16 tops out at
/// 65504, so it gets 30 instead of 1e3.
CUDA_AGENT_HD double largeScaleOf(uint32_t kind) { return kind == F16 ? 30.0 : 1e3; }

/// The radius of the Box-Muller pair that starts at even element `first`.
CUDA_AGENT_HD double boxMullerRadius(uint64_t start, uint64_t first, uint32_t distribution,
                                     uint32_t kind) {
  double scale = distribution == LargeNormal ? largeScaleOf(kind) : 1.0;
  return scale * sqrt(-2.0 * log(unitOf(draw(start, first))));
}

/// The angle of the Box-Muller pair that starts at even element `first`.
CUDA_AGENT_HD double boxMullerAngle(uint64_t start, uint64_t first) {
  return 2.0 * 3.14159265358979323846 * unitOf(draw(start, first + 1));
}

/// The value of float element `index` under `distribution` (before rounding
/// to the element type).
CUDA_AGENT_HD double floatElement(uint64_t start, uint64_t index, uint32_t distribution,
                                  uint32_t kind) {
  if (distribution == UniformOffset)
    return 3.0 + 2.0 * unitOf(draw(start, index)) - 1.0;
  if (distribution == SmallInt)
    return double(int64_t(draw(start, index) % 9) - 4);
  // Box-Muller: the pair (2j, 2j+1) gets radius * (cos, sin) of draws 2j, 2j+1.
  uint64_t first = index & ~uint64_t(1);
  double radius = boxMullerRadius(start, first, distribution, kind);
  double angle = boxMullerAngle(start, first);
  return radius * ((index & 1) ? sin(angle) : cos(angle));
}

/// The value of integer element `index`: {0, 1} for i1, [0, 8] for u8,
/// [-8, 8] for the signed types.
CUDA_AGENT_HD int64_t intElement(uint64_t start, uint64_t index, uint32_t kind) {
  uint64_t bits = draw(start, index);
  if (kind == I1)
    return int64_t(bits & 1);
  if (kind == U8)
    return int64_t(bits % 9);
  return int64_t(bits % 17) - 8;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// Summary of comparing a range of elements (Comparison in Tolerance.h, less
/// what the caller knows). `worst` is the first element whose mismatch is
/// non-finite (a NaN/Inf disagreement, or an error where none is allowed),
/// else the one with the largest error / allowed ratio, the lowest index on
/// ties; for exact types the first element that differs.
struct ComparePartial {
  uint64_t numBad = 0;
  uint64_t worst = ~uint64_t(0); ///< ~0: no element seen
  double worstRatio = -1;
  uint32_t worstNonFinite = 0;
  uint32_t pad = 0;
  double got = 0, expected = 0; ///< values at `worst`
  uint64_t gotBits = 0;         ///< raw bits of got at `worst`
  double maxAbsErr = 0, maxRelErr = 0;
  uint64_t hash[2] = {0, 0}; ///< hash of `got` (elementHash)
};

/// Judges element `index` (values e, g; raw bits of g) and folds it into
/// `partial`. `atol` is already multiplied by the output's scale.
CUDA_AGENT_HD void judgeFloat(ComparePartial &partial, uint64_t index, double e, double g,
                              uint64_t gBits, double rtol, double atol) {
  bool bad;
  double ratio;
  bool eFinite = !(e != e) && e - e == 0, gFinite = !(g != g) && g - g == 0;
  if (!eFinite || !gFinite) {
    bad = (e != e) ? !(g != g) : g != e;
    ratio = bad ? INFINITY : 0;
  } else {
    double err = fabs(g - e);
    double allowed = rtol * fabs(e) + atol;
    if (err > partial.maxAbsErr)
      partial.maxAbsErr = err;
    if (e != 0 && err / fabs(e) > partial.maxRelErr)
      partial.maxRelErr = err / fabs(e);
    bad = err > allowed;
    ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
  }
  if (bad)
    ++partial.numBad;
  uint32_t nonFinite = bad && ratio == INFINITY;
  bool better = nonFinite > partial.worstNonFinite ||
                (nonFinite == partial.worstNonFinite &&
                 (ratio > partial.worstRatio ||
                  (ratio == partial.worstRatio && index < partial.worst)));
  if (better) {
    partial.worst = index;
    partial.worstRatio = ratio;
    partial.worstNonFinite = nonFinite;
    partial.got = g;
    partial.expected = e;
    partial.gotBits = gBits;
  }
}

/// Whether judgeFloat() of element `index` whose got bits equal its expected
/// bits (so: not bad, error 0, ratio 0, whatever the values) could change
/// `partial`: only by making it the worst element, when no element so far
/// has a positive ratio (or a lower index at ratio 0). The GPU comparison
/// skips the judgement of identical elements otherwise, which leaves the
/// partial exactly as judgeFloat() would (ElementOpsTest checks it).
CUDA_AGENT_HD bool sameBitsCanChange(const ComparePartial &partial, uint64_t index) {
  return partial.worstNonFinite == 0 &&
         (partial.worstRatio < 0 || (partial.worstRatio == 0 && index < partial.worst));
}

/// Judges integer element `index`: exact match, worst = the first mismatch.
/// An element with e == g never changes `partial` (its error is 0).
CUDA_AGENT_HD void judgeInt(ComparePartial &partial, uint64_t index, int64_t e, int64_t g,
                            uint64_t gBits) {
  double err = fabs(double(g) - double(e));
  if (err > partial.maxAbsErr)
    partial.maxAbsErr = err;
  if (e != 0 && err / fabs(double(e)) > partial.maxRelErr)
    partial.maxRelErr = err / fabs(double(e));
  if (g == e)
    return;
  ++partial.numBad;
  if (!partial.worstNonFinite || index < partial.worst) {
    partial.worst = index;
    partial.worstNonFinite = 1;
    partial.worstRatio = INFINITY;
    partial.got = double(g);
    partial.expected = double(e);
    partial.gotBits = gBits;
  }
}

/// Folds `other` (any other range of elements) into `partial`.
CUDA_AGENT_HD void combine(ComparePartial &partial, const ComparePartial &other) {
  partial.numBad += other.numBad;
  partial.maxAbsErr = other.maxAbsErr > partial.maxAbsErr ? other.maxAbsErr : partial.maxAbsErr;
  partial.maxRelErr = other.maxRelErr > partial.maxRelErr ? other.maxRelErr : partial.maxRelErr;
  partial.hash[0] += other.hash[0];
  partial.hash[1] += other.hash[1];
  if (other.worst == ~uint64_t(0))
    return;
  bool better = partial.worst == ~uint64_t(0) ||
                other.worstNonFinite > partial.worstNonFinite ||
                (other.worstNonFinite == partial.worstNonFinite &&
                 (other.worstRatio > partial.worstRatio ||
                  (other.worstRatio == partial.worstRatio && other.worst < partial.worst)));
  if (better) {
    partial.worst = other.worst;
    partial.worstRatio = other.worstRatio;
    partial.worstNonFinite = other.worstNonFinite;
    partial.got = other.got;
    partial.expected = other.expected;
    partial.gotBits = other.gotBits;
  }
}

//===----------------------------------------------------------------------===//
// Hashing and masking
//===----------------------------------------------------------------------===//

/// Adds element `index` with raw bits `bits` to a two-lane, order-free hash
/// (a sum of mixes, so blocks can hash their elements in any order). With
/// `key` nonzero the hash is keyed: the secret is mixed into every element's
/// position, so a kernel that does not know it cannot change elements and
/// keep the sum. One mix64 per element (the second lane is a bijection of
/// the first's mix): the verifier hashes multi-GB buffers after every timed
/// run, and three mixes per element made that compute-bound.
CUDA_AGENT_HD void hashElement(uint64_t hash[2], uint64_t index, uint64_t bits,
                               uint64_t key = 0) {
  uint64_t mixed =
      mix64(bits ^ (index * 0x9e3779b97f4a7c15ULL + 0x243f6a8885a308d3ULL + key));
  hash[0] += mixed;
  hash[1] += (mixed ^ (mixed >> 32)) * 0xd1b54a32d192ed03ULL;
}

/// What cuda_agent_capture reports per block: the largest finite |element|
/// (float types) and the hash of the elements.
struct CapturePartial {
  double scale;
  uint64_t hash[2];
};

/// Folds `other` (any other range of elements) into `partial`.
CUDA_AGENT_HD void combine(CapturePartial &partial, const CapturePartial &other) {
  partial.scale = other.scale > partial.scale ? other.scale : partial.scale;
  partial.hash[0] += other.hash[0];
  partial.hash[1] += other.hash[1];
}

/// The mask element `index` of a stored reference output is XORed with, so
/// that no plain copy of the reference's answer sits in device memory while
/// a candidate runs.
CUDA_AGENT_HD uint64_t maskOf(uint64_t key, uint64_t index) {
  return mix64(key ^ (index * 0x8cb92ba72f3d8dd7ULL));
}

/// Word `index` of the random output poison of `seed` (splitmix64 at
/// counter `index`): the verifier re-poisons outputs before every timed run
/// with a new seed, on the GPU (cuda_agent_poison).
CUDA_AGENT_HD uint64_t poisonWord(uint64_t seed, uint64_t index) {
  return mix64(seed + (index + 1) * 0x9E3779B97F4A7C15ULL);
}

} // namespace mlir::cuda_agent::elements

#endif // CUDA_AGENT_RUN_ELEMENTOPS_H
