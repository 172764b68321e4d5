//===- ElementOpsTest.cpp - Rules shared by the runner and its kernels ----===//
//
// The verifier's GPU kernels (tools/cuda-agent-run/DeviceKernels.cu) and its
// host code share ElementOps.h. These tests pin down what the GPU relies on
// without a GPU: the counter-based stream is the sequential splitmix64
// stream the host generator always drew (so seeds keep their inputs), and
// judging elements in strided slices (one per GPU thread) and combining the
// partial summaries in any order picks the same counts and worst element as
// one sequential pass (also with the GPU comparison's skip of elements
// identical to the reference's, over its 16-byte chunks and scalar tail);
// the output poison is the same splitmix64 stream.
//
//===----------------------------------------------------------------------===//

#include "ElementOps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace mlir::cuda_agent::elements;

namespace {

/// The host generator's stream before it became counter-based.
struct SequentialSplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

TEST(ElementOps, CounterStreamIsTheSequentialStream) {
  for (uint64_t seed : {0ULL, 1ULL, 4001ULL}) {
    uint64_t start = streamStart(seed, 3);
    SequentialSplitMix rng{start};
    for (uint64_t k = 0; k < 1000; ++k)
      ASSERT_EQ(draw(start, k), rng.next()) << "seed " << seed << " draw " << k;
  }
}

TEST(ElementOps, NormalsComeInBoxMullerPairs) {
  uint64_t start = streamStart(7, 0);
  SequentialSplitMix rng{start};
  for (uint64_t i = 0; i < 200; i += 2) {
    double u1 = double((rng.next() >> 11) + 1) * 0x1p-53;
    double u2 = double((rng.next() >> 11) + 1) * 0x1p-53;
    double radius = std::sqrt(-2.0 * std::log(u1)), angle = 2.0 * M_PI * u2;
    EXPECT_EQ(floatElement(start, i, Normal, F32), radius * std::cos(angle));
    EXPECT_EQ(floatElement(start, i + 1, Normal, F32), radius * std::sin(angle));
    EXPECT_EQ(floatElement(start, i, LargeNormal, F16), 30 * radius * std::cos(angle));
  }
  for (uint64_t i = 0; i < 200; ++i) {
    double uniform = floatElement(start, i, UniformOffset, F32);
    EXPECT_GT(uniform, 2.0);
    EXPECT_LE(uniform, 4.0);
    double small = floatElement(start, i, SmallInt, F32);
    EXPECT_EQ(small, std::round(small));
    EXPECT_LE(std::fabs(small), 4.0);
    EXPECT_LE(std::llabs(intElement(start, i, I32)), 8);
    EXPECT_LE(intElement(start, i, U8), 8);
    EXPECT_GE(intElement(start, i, U8), 0);
  }
}

/// Judges `expected` against `got` the way the GPU does: `slices` strided
/// slices, combined in a shuffled tree.
ComparePartial judgeSliced(const std::vector<double> &expected, const std::vector<double> &got,
                           double rtol, double atol, unsigned slices, std::mt19937 &rng) {
  std::vector<ComparePartial> parts(slices);
  for (unsigned s = 0; s < slices; ++s)
    for (uint64_t i = s; i < expected.size(); i += slices)
      judgeFloat(parts[s], i, expected[i], got[i], 0, rtol, atol);
  std::shuffle(parts.begin(), parts.end(), rng);
  while (parts.size() > 1) {
    std::vector<ComparePartial> next;
    for (size_t k = 0; k + 1 < parts.size(); k += 2) {
      next.push_back(parts[k]);
      combine(next.back(), parts[k + 1]);
    }
    if (parts.size() % 2)
      next.push_back(parts.back());
    parts = std::move(next);
  }
  return parts[0];
}

TEST(ElementOps, SlicedJudgementMatchesOnePass) {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal;
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<double> expected(1000), got(1000);
    for (size_t i = 0; i < expected.size(); ++i) {
      expected[i] = normal(rng);
      got[i] = expected[i] * (1 + 1e-4 * double(i % 7)); // several ties in ratio
    }
    if (variant >= 1)
      got[700] = NAN, got[300] = NAN; // first non-finite mismatch wins: 300
    if (variant >= 2)
      expected[100] = INFINITY, got[100] = INFINITY; // agreeing infinities are fine
    if (variant == 3)
      expected[50] = NAN, got[50] = 1.0; // a NaN expected needs a NaN
    ComparePartial sequential;
    for (uint64_t i = 0; i < expected.size(); ++i)
      judgeFloat(sequential, i, expected[i], got[i], 0, 1e-4, 1e-5);
    for (unsigned slices : {1u, 3u, 64u, 999u, 4096u}) {
      ComparePartial sliced = judgeSliced(expected, got, 1e-4, 1e-5, slices, rng);
      EXPECT_EQ(sliced.numBad, sequential.numBad) << variant << " " << slices;
      EXPECT_EQ(sliced.worst, sequential.worst) << variant << " " << slices;
      EXPECT_EQ(sliced.maxAbsErr, sequential.maxAbsErr);
      EXPECT_EQ(sliced.maxRelErr, sequential.maxRelErr);
    }
    if (variant > 0)
      EXPECT_EQ(sequential.worst, variant == 3 ? 50u : 300u);
  }
}

TEST(ElementOps, ExactJudgementReportsTheFirstMismatch) {
  ComparePartial low, high;
  judgeInt(high, 90, 3, 4, 4);
  judgeInt(low, 10, -1, 7, 7);
  judgeInt(low, 11, 5, 5, 5);
  combine(high, low);
  EXPECT_EQ(high.numBad, 2u);
  EXPECT_EQ(high.worst, 10u);
  EXPECT_EQ(high.got, 7.0);
  EXPECT_EQ(high.maxAbsErr, 8.0);
}

TEST(ElementOps, HashIsOrderFreeAndSeesEveryBit) {
  uint64_t forward[2] = {0, 0}, backward[2] = {0, 0}, flipped[2] = {0, 0};
  for (uint64_t i = 0; i < 100; ++i)
    hashElement(forward, i, i * 3);
  for (uint64_t i = 100; i-- > 0;)
    hashElement(backward, i, i * 3);
  for (uint64_t i = 0; i < 100; ++i)
    hashElement(flipped, i, i == 42 ? (i * 3) ^ 1 : i * 3);
  EXPECT_EQ(forward[0], backward[0]);
  EXPECT_EQ(forward[1], backward[1]);
  EXPECT_NE(forward[0], flipped[0]);
  EXPECT_NE(forward[1], flipped[1]);
  // Swapping two elements' values changes the hash (positions are mixed in).
  uint64_t swapped[2] = {0, 0};
  for (uint64_t i = 0; i < 100; ++i)
    hashElement(swapped, i, i == 1 ? 6 : i == 2 ? 3 : i * 3);
  EXPECT_NE(forward[0], swapped[0]);
}

// A keyed hash (the timed runs' resident inputs) depends on the key, and a
// change of one element shows under any key.
TEST(ElementOps, KeyedHashDependsOnTheKey) {
  uint64_t plain[2] = {0, 0}, keyA[2] = {0, 0}, keyB[2] = {0, 0}, changed[2] = {0, 0};
  for (uint64_t i = 0; i < 100; ++i) {
    hashElement(plain, i, i * 3);
    hashElement(keyA, i, i * 3, 0x1234567ULL);
    hashElement(keyB, i, i * 3, 0x7654321ULL);
    hashElement(changed, i, i == 9 ? 28 : i * 3, 0x1234567ULL);
  }
  EXPECT_NE(plain[0], keyA[0]);
  EXPECT_NE(keyA[0], keyB[0]);
  EXPECT_NE(keyA[1], keyB[1]);
  EXPECT_NE(keyA[0], changed[0]);
  EXPECT_NE(keyA[1], changed[1]);
}

/// Bits of a float as the kernels load them (zero-extended).
uint64_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Judges f32 `got` against `expected` the way cuda_agent_compare does:
/// thread t of `threads` takes 16-byte chunks (4 elements) t, t + threads,
/// ..., then the elements after the last whole chunk one by one from
/// 4 * chunks + t; an element whose bits equal the reference's is judged
/// only when sameBitsCanChange() says it could matter; the threads'
/// partials are combined in a shuffled order (warps, blocks, the host).
ComparePartial judgeLikeTheKernel(const std::vector<float> &expected,
                                  const std::vector<float> &got, unsigned threads,
                                  double rtol, double atol, std::mt19937 &rng) {
  constexpr uint64_t per = 4;
  uint64_t count = expected.size(), whole = count / per;
  std::vector<ComparePartial> parts(threads);
  auto judge = [&](ComparePartial &mine, uint64_t i) {
    uint64_t e = bitsOf(expected[i]), g = bitsOf(got[i]);
    hashElement(mine.hash, i, g);
    if (e != g || sameBitsCanChange(mine, i))
      judgeFloat(mine, i, expected[i], got[i], g, rtol, atol);
  };
  for (unsigned t = 0; t < threads; ++t) {
    for (uint64_t c = t; c < whole; c += threads)
      for (uint64_t l = 0; l < per; ++l)
        judge(parts[t], c * per + l);
    for (uint64_t i = whole * per + t; i < count; i += threads)
      judge(parts[t], i);
  }
  std::shuffle(parts.begin(), parts.end(), rng);
  ComparePartial total;
  for (const ComparePartial &part : parts)
    combine(total, part);
  return total;
}

/// Whether two partials are the same to the bit.
bool samePartial(const ComparePartial &a, const ComparePartial &b) {
  return std::memcmp(&a, &b, sizeof(ComparePartial)) == 0;
}

} // namespace

// The GPU comparison skips the judgement of elements identical to the
// reference's unless it could make them the worst; with chunked visiting
// orders and lengths that are not a multiple of the chunk, the result is
// the sequential judgement of every element, to the bit.
TEST(ElementOps, SkippingIdenticalElementsChangesNoVerdict) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (int variant = 0; variant < 5; ++variant) {
    std::vector<float> expected(1003), got;
    for (float &value : expected)
      value = normal(rng);
    got = expected;
    if (variant >= 1)
      got[517] *= 1.0001f, got[3] *= 1.00001f, got[1002] *= 0.9999f; // off, in the tail
    if (variant >= 2)
      expected[20] = got[20] = NAN, expected[21] = got[21] = INFINITY; // agreeing
    if (variant >= 3)
      expected[40] = 0.0f, got[40] = -0.0f; // equal values, different bits
    if (variant == 4)
      got[800] = NAN, got[900] = INFINITY; // non-finite mismatches: 800 wins
    ComparePartial sequential;
    for (uint64_t i = 0; i < expected.size(); ++i) {
      hashElement(sequential.hash, i, bitsOf(got[i]));
      judgeFloat(sequential, i, expected[i], got[i], bitsOf(got[i]), 1e-4, 1e-5);
    }
    for (unsigned threads : {1u, 3u, 64u, 250u, 5000u}) {
      ComparePartial kernel = judgeLikeTheKernel(expected, got, threads, 1e-4, 1e-5, rng);
      EXPECT_TRUE(samePartial(kernel, sequential)) << variant << " " << threads;
      EXPECT_EQ(kernel.worst, sequential.worst) << variant << " " << threads;
    }
    if (variant == 0 || variant == 4) {
      EXPECT_EQ(sequential.worst, variant == 0 ? 0u : 800u);
    }
  }
}

// What the skip relies on: an element with identical bits, judged when
// sameBitsCanChange() is false, leaves the partial exactly as it was.
TEST(ElementOps, IdenticalElementsChangeOnlyAFreshWorst) {
  const double values[] = {0.0, -0.0, 1.5, -3e38, 1e-45, NAN, INFINITY, -INFINITY};
  ComparePartial states[4];
  judgeFloat(states[1], 50, 1.0, 1.0, 0, 1e-4, 1e-5);     // worst at ratio 0
  judgeFloat(states[2], 50, 1.0, 1.00001, 0, 1e-4, 1e-5); // worst at ratio > 0
  judgeFloat(states[3], 50, 1.0, NAN, 0, 1e-4, 1e-5);     // non-finite worst
  for (const ComparePartial &state : states)
    for (double value : values)
      for (uint64_t index : {uint64_t(10), uint64_t(50), uint64_t(90)}) {
        ComparePartial judged = state;
        judgeFloat(judged, index, value, value, 7, 1e-4, 1e-5);
        EXPECT_EQ(!samePartial(judged, state), sameBitsCanChange(state, index))
            << value << " at " << index;
        ComparePartial exact = state;
        judgeInt(exact, index, 5, 5, 5);
        EXPECT_TRUE(samePartial(exact, state)); // the exact path skips them always
      }
}

// The capture kernel's per-block partials fold in any order to the same
// largest |element| and hash.
TEST(ElementOps, CapturePartialsCombineInAnyOrder) {
  std::vector<CapturePartial> parts;
  for (uint64_t b = 0; b < 50; ++b) {
    CapturePartial part = {double(b % 7) * 1.5, {0, 0}};
    for (uint64_t i = b * 10; i < b * 10 + 10; ++i)
      hashElement(part.hash, i, i * 5, 0x99ULL);
    parts.push_back(part);
  }
  CapturePartial whole = {0, {0, 0}};
  for (uint64_t i = 0; i < 500; ++i)
    hashElement(whole.hash, i, i * 5, 0x99ULL);
  std::mt19937 rng(3);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(parts.begin(), parts.end(), rng);
    CapturePartial total = {0, {0, 0}};
    for (const CapturePartial &part : parts)
      combine(total, part);
    EXPECT_EQ(total.scale, 9.0);
    EXPECT_EQ(total.hash[0], whole.hash[0]);
    EXPECT_EQ(total.hash[1], whole.hash[1]);
  }
}

// The GPU poison (cuda_agent_poison) is the splitmix64 stream of its seed,
// word by word: the bytes the host-made poison block (before the kernel) held,
// now made for the whole buffer; two runs' seeds give unrelated patterns.
TEST(ElementOps, PoisonIsTheSplitMixStreamOfItsSeed) {
  for (uint64_t seed : {0ULL, 7ULL, 0x9E3779B97F4A7C15ULL}) {
    SequentialSplitMix rng{seed};
    for (uint64_t i = 0; i < 1000; ++i)
      EXPECT_EQ(poisonWord(seed, i), rng.next()) << "seed " << seed << " word " << i;
  }
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i)
    same += poisonWord(1, i) == poisonWord(2, i);
  EXPECT_EQ(same, 0);
}
