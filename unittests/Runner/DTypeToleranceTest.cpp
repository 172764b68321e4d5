//===- DTypeToleranceTest.cpp - The runner's element types and tolerances -===//
//
// cuda-agent-run's host-only tables without a GPU: the dtype table (plan
// names, .npy descrs, sizes), the f16/bf16 codecs' rounding, and the
// tolerance table with its reduction widening and NaN/Inf rules.
//
//===----------------------------------------------------------------------===//

#include "DType.h"
#include "Tolerance.h"
#include "cuda-agent/Runner/Protocol.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir::cuda_agent;

namespace {

TEST(DTypeTest, EveryPlanNameRoundTrips) {
  const char *names[] = {"f32", "f16", "bf16", "f64", "i1",
                         "i8",  "i16", "i32",  "i64", "u8"};
  const unsigned sizes[] = {4, 2, 2, 8, 1, 1, 2, 4, 8, 1};
  for (size_t i = 0; i < std::size(names); ++i) {
    std::optional<DType> type = parseDType(names[i]);
    ASSERT_TRUE(type.has_value()) << names[i];
    EXPECT_STREQ(getInfo(*type).name, names[i]);
    EXPECT_EQ(getInfo(*type).size, sizes[i]) << names[i];
    EXPECT_EQ(getInfo(*type).isFloat, i < 4) << names[i];
  }
  EXPECT_FALSE(parseDType("f8").has_value());
  EXPECT_FALSE(parseDType("F32").has_value());
  EXPECT_FALSE(parseDType("").has_value());
}

TEST(DTypeTest, NpyDescrsAcceptByteOrderOnlyWhereItCannotMatter) {
  EXPECT_STREQ(getInfo(DType::BF16).npyDescr, "<u2"); // raw bits
  EXPECT_TRUE(npyDescrMatches(DType::F32, "<f4"));
  EXPECT_TRUE(npyDescrMatches(DType::F32, "=f4"));
  EXPECT_FALSE(npyDescrMatches(DType::F32, ">f4"));
  EXPECT_FALSE(npyDescrMatches(DType::F32, "<f8"));
  EXPECT_TRUE(npyDescrMatches(DType::U8, "<u1"));
  EXPECT_TRUE(npyDescrMatches(DType::I1, "|b1"));
  EXPECT_FALSE(npyDescrMatches(DType::I8, "|u1"));
  EXPECT_FALSE(npyDescrMatches(DType::F16, ""));
}

uint16_t encode16(DType type, double value) {
  uint16_t bits = 0;
  encodeFloat(type, value, &bits);
  return bits;
}

TEST(DTypeTest, HalfAndBFloatRoundToNearestEven) {
  EXPECT_EQ(encode16(DType::F16, 1.0), 0x3C00);
  EXPECT_EQ(encode16(DType::F16, -2.0), 0xC000);
  EXPECT_EQ(encode16(DType::F16, 65504.0), 0x7BFF);
  EXPECT_EQ(encode16(DType::F16, 65520.0), 0x7C00);       // rounds to infinity
  EXPECT_EQ(encode16(DType::F16, 0x1p-24), 0x0001);       // smallest subnormal
  EXPECT_EQ(encode16(DType::F16, 1.0 + 0x1p-11), 0x3C00); // tie, to even
  EXPECT_EQ(encode16(DType::F16, 1.0 + 3 * 0x1p-11), 0x3C02);
  EXPECT_EQ(encode16(DType::BF16, 1.0), 0x3F80);
  EXPECT_EQ(encode16(DType::BF16, 1.0 + 0x1p-8), 0x3F80); // tie, to even
  EXPECT_EQ(encode16(DType::BF16, 1.0 + 3 * 0x1p-8), 0x3F82);
  EXPECT_TRUE(std::isnan(decodeFloat(DType::F16, "\x01\x7e")));
  EXPECT_TRUE(std::isnan(decodeFloat(DType::BF16, "\xc1\x7f")));
  for (double value : {0.0, 1.5, -3.25, 1024.0, 0.000061035156250}) {
    uint16_t bits = encode16(DType::F16, value);
    EXPECT_EQ(decodeFloat(DType::F16, &bits), value);
  }
}

TEST(DTypeTest, IntegersSignExtendExceptUnsigned) {
  uint8_t byte = 0xFF;
  EXPECT_EQ(decodeInt(DType::I8, &byte), -1);
  EXPECT_EQ(decodeInt(DType::U8, &byte), 255);
  int64_t wide = 0;
  encodeInt(DType::I16, -3, &wide);
  EXPECT_EQ(decodeInt(DType::I16, &wide), -3);
  encodeInt(DType::I64, int64_t(1) << 40, &wide);
  EXPECT_EQ(decodeInt(DType::I64, &wide), int64_t(1) << 40);
}

TEST(ToleranceTest, TheTableRows) {
  struct Row {
    DType type;
    double rtol, atol;
  } rows[] = {{DType::F64, 1e-9, 1e-12},
              {DType::F32, 1e-4, 1e-5},
              {DType::F16, 1e-2, 1e-3},
              {DType::BF16, 2e-2, 8e-3}};
  for (const Row &row : rows) {
    const Tolerance &tolerance = getTolerance(row.type);
    EXPECT_FALSE(tolerance.exact) << getInfo(row.type).name;
    EXPECT_DOUBLE_EQ(tolerance.rtol, row.rtol) << getInfo(row.type).name;
    EXPECT_DOUBLE_EQ(tolerance.atol, row.atol) << getInfo(row.type).name;
  }
  for (DType type :
       {DType::I1, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8})
    EXPECT_TRUE(getTolerance(type).exact) << getInfo(type).name;
}

TEST(ToleranceTest, ReductionsWidenAtolBySqrtKUnitRoundoffs) {
  // K = 8192 in f32: 1e-5 + 8 sqrt(8192) 2^-24 = 1e-5 + 4.3e-5.
  Tolerance widened = getTolerance(DType::F32, 8192, DType::F32);
  EXPECT_NEAR(widened.atol, 1e-5 + 8 * std::sqrt(8192.0) * 0x1p-24, 1e-15);
  EXPECT_NEAR(widened.atol, 5.3e-5, 1e-6);
  EXPECT_DOUBLE_EQ(widened.rtol, 1e-4);
  EXPECT_DOUBLE_EQ(getTolerance(DType::F32, 1, DType::F32).atol, 1e-5);
  EXPECT_DOUBLE_EQ(getTolerance(DType::F32, 0, DType::F32).atol, 1e-5);
  EXPECT_DOUBLE_EQ(getTolerance(DType::F16, 16, DType::F16).atol,
                   1e-3 + 8 * 4 * 0x1p-11);
  EXPECT_TRUE(getTolerance(DType::I32, 8192, DType::I32).exact);
}

TEST(ToleranceTest, Tf32ProductsUseTheTf32RowForF32OutputsOnly) {
  // precision=tf32: f32 outputs get TF32's row (f16's mantissa), still
  // widened by the f32 accumulator's sum; other dtypes keep their rows.
  Tolerance tf32 = getTolerance(DType::F32, 4096, DType::F32, /*tf32=*/true);
  EXPECT_DOUBLE_EQ(tf32.rtol, 1e-2);
  EXPECT_NEAR(tf32.atol, 1e-3 + 8 * 64 * 0x1p-24, 1e-15);
  Tolerance exact = getTolerance(DType::F32, 4096, DType::F32);
  EXPECT_DOUBLE_EQ(exact.rtol, 1e-4);
  EXPECT_LT(exact.atol, 1e-4);
  EXPECT_DOUBLE_EQ(getTolerance(DType::F16, 0, DType::F32, true).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(getTolerance(DType::BF16, 0, DType::F32, true).rtol, 2e-2);
  EXPECT_TRUE(getTolerance(DType::I32, 0, DType::I32, true).exact);
}

Comparison compareF32(const std::vector<float> &expected,
                      const std::vector<float> &got) {
  return compareElements(DType::F32, getTolerance(DType::F32),
                         reinterpret_cast<const uint8_t *>(expected.data()),
                         reinterpret_cast<const uint8_t *>(got.data()),
                         expected.size());
}

TEST(ToleranceTest, AtolScalesWithTheLargestExpectedValue) {
  // max|ref| = 1000, so atol is 1e-2: an error of 5e-3 on a zero passes.
  Comparison c = compareF32({1000, 0, 1}, {1000, 5e-3f, 1});
  EXPECT_TRUE(c.ok);
  EXPECT_DOUBLE_EQ(c.scale, 1000);
  c = compareF32({1000, 0, 1}, {1000, 2e-2f, 1});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.numBad, 1u);
  EXPECT_EQ(c.worst, 1u);
  EXPECT_FLOAT_EQ(c.got, 2e-2f);
}

// The f64 oracle settles who is right when the reference itself is off (a
// long f32 reduction summed sequentially): a candidate that misses the
// tolerance around the reference passes when its error against the oracle is
// within kOracleErrorFactor x the reference's; a worse one, or one with a NaN
// where the oracle has a number, does not.
TEST(ToleranceTest, OracleRuleAcceptsTheMoreAccurateSide) {
  auto bytes = [](const std::vector<float> &v) {
    return reinterpret_cast<const uint8_t *>(v.data());
  };
  std::vector<float> oracle = {1.0f, 2.0f, -3.0f, 0.5f};
  std::vector<float> reference = {1.004f, 2.0f, -3.0f, 0.5f};
  double refErr = compareF32(oracle, reference).maxAbsErr;
  EXPECT_NEAR(refErr, 4e-3, 1e-6);
  auto byOracle = [&](const std::vector<float> &candidate) {
    Comparison c = compareElements(DType::F32, getOracleTolerance(refErr, 3.0),
                                   bytes(oracle), bytes(candidate), oracle.size());
    return c.ok && isWithinOracleBound(c.maxAbsErr, refErr);
  };
  std::vector<float> accurate = {1.0001f, 2.0f, -3.0f, 0.5f};
  EXPECT_FALSE(compareF32(reference, accurate).ok); // off the reference's
  EXPECT_TRUE(byOracle(accurate));                  // but closer to the truth
  std::vector<float> asGood = {0.9965f, 2.0f, -3.0f, 0.5f}; // 3.5e-3 the other way
  EXPECT_TRUE(byOracle(asGood));
  std::vector<float> worse = {1.009f, 2.0f, -3.0f, 0.5f}; // 9e-3 > 2 x 4e-3
  EXPECT_FALSE(byOracle(worse));
  std::vector<float> nan = {1.0f, NAN, -3.0f, 0.5f};
  EXPECT_FALSE(byOracle(nan));
  // No scale (an all-zero oracle output): nothing but an exact match.
  EXPECT_EQ(getOracleTolerance(refErr, 0).atol, 0);
  EXPECT_DOUBLE_EQ(getOracleTolerance(1e-3, 4.0).atol, kOracleErrorFactor * 1e-3 / 4.0);
  EXPECT_EQ(getOracleTolerance(1e-3, 4.0).rtol, 0);
}

TEST(ToleranceTest, NanAndInfinityMustMatchExactly) {
  EXPECT_TRUE(compareF32({NAN, INFINITY}, {NAN, INFINITY}).ok);
  Comparison c = compareF32({1, 2, INFINITY}, {1, NAN, -INFINITY});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.numBad, 2u);
  EXPECT_EQ(c.worst, 1u); // the first non-finite mismatch
  EXPECT_FALSE(compareF32({NAN}, {0}).ok);
}

TEST(ToleranceTest, IntegersMustMatchBitwise) {
  std::vector<int32_t> expected = {1, -2, 3}, got = {1, -2, 4};
  Comparison c = compareElements(
      DType::I32, getTolerance(DType::I32),
      reinterpret_cast<const uint8_t *>(expected.data()),
      reinterpret_cast<const uint8_t *>(got.data()), expected.size());
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worst, 2u);
  EXPECT_EQ(c.expected, 3);
  EXPECT_EQ(c.got, 4);
}

TEST(ToleranceTest, IndicesAndValuesPrintForReasons) {
  EXPECT_EQ(unflattenIndex(7, {2, 3, 4}), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(unflattenIndex(23, {2, 3, 4}), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(unflattenIndex(0, {}), std::vector<int64_t>{});
  EXPECT_EQ(formatValue(NAN), "nan");
  EXPECT_EQ(formatValue(-INFINITY), "-inf");
  EXPECT_EQ(formatValue(3), "3");
  EXPECT_EQ(formatValue(1.0 / 3), "0.333333333");
}

} // namespace

// Within the tolerance is not enough where an f64 oracle exists: a candidate
// whose error against it is more than kPrecisionFactor x the reference's
// fails (the 3xTF32 wgmma product of K = 8192 with unpromoted tensor-core
// sums: 0.0293 against the default lowering's 0.0021, docs/perf.md), unless
// its error is below the output type's own absolute tolerance (an exact
// reference leaves a candidate a rounding).
TEST(ToleranceTest, PrecisionRuleRejectsAMuchLessPreciseCandidate) {
  double scale = 450.0; // the product's largest |value| in that trial
  double floor = getTolerance(DType::F32).atol * scale;
  EXPECT_FALSE(isWithinPrecisionBound(0.0293, 0.0021, floor));
  EXPECT_TRUE(isWithinPrecisionBound(0.0041, 0.0021, floor)); // about 2x
  EXPECT_TRUE(isWithinPrecisionBound(0.0049, 0.00092, floor)); // 5.3x
  EXPECT_TRUE(isWithinPrecisionBound(kPrecisionFactor * 0.0021, 0.0021, floor));
  // An exact reference (small integers): a rounding passes, more does not.
  EXPECT_TRUE(isWithinPrecisionBound(0.5 * floor, 0.0, floor));
  EXPECT_FALSE(isWithinPrecisionBound(2 * floor, 0.0, floor));
  EXPECT_FALSE(isWithinPrecisionBound(NAN, 0.0021, floor));
}
