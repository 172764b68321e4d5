//===- Tolerance.cpp - Per-dtype output comparison --------------*- C++ -*-===//
//
// The tolerance table and the element-wise comparison. The values are chosen
// so that a different but legitimate summation order passes and a kernel that
// computes in a narrower type does not:
//
//   f64  rtol 1e-9  atol 1e-12  (f64 eps 2.2e-16; leaves room for reordering)
//   f32  rtol 1e-4  atol 1e-5   (f32 eps 1.2e-7; f16 math (eps 9.8e-4) and
//                                tf32 (eps 9.8e-4) both fail)
//   f16  rtol 1e-2  atol 1e-3   (f16 eps 9.8e-4: ~10 ulps)
//   bf16 rtol 2e-2  atol 8e-3   (bf16 eps 7.8e-3: ~2.5 ulps)
//   f32 products rounded to TF32 (precision=tf32): rtol 1e-2  atol 1e-3
//                                (TF32 eps 9.8e-4, f16's)
//   integers (i1, i8, i16, i32, i64, u8): exact
//
// atol is multiplied by the output's largest finite |expected|.
//
//===----------------------------------------------------------------------===//

#include "Tolerance.h"

#include "ElementOps.h"
#include "cuda-agent/Runner/Protocol.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir::cuda_agent;

namespace {
struct ToleranceRow {
  DType type;
  Tolerance tolerance;
};

const ToleranceRow kTolerances[] = {
    {DType::F64, {1e-9, 1e-12, false}}, {DType::F32, {1e-4, 1e-5, false}},
    {DType::F16, {1e-2, 1e-3, false}},  {DType::BF16, {2e-2, 8e-3, false}},
};

const Tolerance kExact = {0, 0, true};
const Tolerance kTf32 = {1e-2, 1e-3, false};
} // namespace

const Tolerance &mlir::cuda_agent::getTolerance(DType type) {
  for (const ToleranceRow &row : kTolerances)
    if (row.type == type)
      return row.tolerance;
  return kExact;
}

Tolerance mlir::cuda_agent::getTolerance(DType type, int64_t reductionLength,
                                         DType accumulator, bool tf32) {
  Tolerance tolerance = tf32 && type == DType::F32 ? kTf32 : getTolerance(type);
  if (tolerance.exact || reductionLength <= 1)
    return tolerance;
  double roundoff = accumulator == DType::F64    ? 0x1p-53
                    : accumulator == DType::F16  ? 0x1p-11
                    : accumulator == DType::BF16 ? 0x1p-8
                                                 : 0x1p-24;
  tolerance.atol += 8 * std::sqrt(double(reductionLength)) * roundoff;
  return tolerance;
}

Tolerance mlir::cuda_agent::getOracleTolerance(double refOracleErr, double oracleScale) {
  Tolerance tolerance;
  if (oracleScale > 0 && std::isfinite(refOracleErr))
    tolerance.atol = kOracleErrorFactor * refOracleErr / oracleScale;
  return tolerance;
}

Comparison mlir::cuda_agent::compareElements(DType type,
                                             const Tolerance &tolerance,
                                             const uint8_t *expected,
                                             const uint8_t *got,
                                             uint64_t numElements) {
  // The per-element rules are ElementOps.h's, which the GPU comparison
  // (DeviceKernels.cu) uses too.
  namespace el = elements;
  unsigned size = getInfo(type).size;
  Comparison result;
  result.numElements = numElements;
  el::ComparePartial partial;
  auto bitsAt = [&](const uint8_t *data, uint64_t i) {
    uint64_t bits = 0;
    std::memcpy(&bits, data + i * size, size);
    return bits;
  };
  if (tolerance.exact) {
    for (uint64_t i = 0; i < numElements; ++i)
      el::judgeInt(partial, i, decodeInt(type, expected + i * size),
                   decodeInt(type, got + i * size), bitsAt(got, i));
  } else {
    for (uint64_t i = 0; i < numElements; ++i) {
      double e = decodeFloat(type, expected + i * size);
      if (std::isfinite(e))
        result.scale = std::max(result.scale, std::fabs(e));
    }
    double atol = tolerance.atol * result.scale;
    for (uint64_t i = 0; i < numElements; ++i)
      el::judgeFloat(partial, i, decodeFloat(type, expected + i * size),
                     decodeFloat(type, got + i * size), bitsAt(got, i), tolerance.rtol,
                     atol);
  }
  setVerdict(result, partial);
  return result;
}

void mlir::cuda_agent::setVerdict(Comparison &result,
                                  const elements::ComparePartial &partial) {
  result.numBad = partial.numBad;
  result.ok = partial.numBad == 0;
  bool seen = partial.worst != ~uint64_t(0);
  result.worst = seen ? partial.worst : 0;
  result.got = seen ? partial.got : 0;
  result.expected = seen ? partial.expected : 0;
  result.maxAbsErr = partial.maxAbsErr;
  result.maxRelErr = partial.maxRelErr;
}

std::vector<int64_t>
mlir::cuda_agent::unflattenIndex(uint64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t extent = shape[d] > 0 ? uint64_t(shape[d]) : 1;
    index[d] = int64_t(flat % extent);
    flat /= extent;
  }
  return index;
}

std::string mlir::cuda_agent::formatValue(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}
