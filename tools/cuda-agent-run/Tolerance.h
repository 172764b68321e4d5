//===- Tolerance.h - Per-dtype output comparison ----------------*- C++ -*-===//
//
// The one place that decides whether a candidate's output element matches the
// reference's. Every dtype has a row in a table (Tolerance.cpp):
//
//   |got - expected| <= rtol * |expected| + atol * scale
//
// where `scale` is the largest finite |expected| of the whole output, so that
// atol is relative to the output's magnitude rather than an absolute number
// (the large-magnitude trial multiplies inputs by 1e3). Integer types must
// match exactly.
//
// A region that reduces K values at a time (the reference plan says K and the
// accumulator's type) gets atol + 8 sqrt(K) u, u the accumulator's unit
// roundoff: the reference's sequential sum and a candidate's tree sum differ
// by that much (the usual probabilistic bound of summation error, with a
// safety factor). For K = 8192 in f32 that is 4.3e-5, four times the base
// atol; f16 math (u = 4.9e-4 per operation) still fails. A NaN expected value matches any NaN; an infinite one only
// the same infinity; a finite one never a NaN or an infinity.
//
// A reference plan whose products may round their f32 operands to TF32
// (`"precision": "tf32"`, the user's precision=tf32) compares f32 outputs
// with the TF32 row instead: TF32 has f16's 10-bit mantissa, so f16's
// rtol 1e-2 and atol 1e-3 (the rounding of both operands costs about 1e-4
// of max |expected| for K = 4096 of random signs, 13 standard deviations
// below it), widened by the f32 accumulator's sum as above.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_TOLERANCE_H
#define CUDA_AGENT_RUN_TOLERANCE_H

#include "DType.h"
#include "ElementOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

struct Tolerance {
  double rtol = 0; ///< relative to |expected| of the element
  double atol = 0; ///< relative to max |expected| of the output
  bool exact = false; ///< integer types: bitwise equal values
};

/// The tolerance row of `type`.
const Tolerance &getTolerance(DType type);

/// The tolerance of an output of `type` of a region whose longest
/// reduction sums `reductionLength` values in `accumulator` (0: none), and
/// whose f32 products may round their operands to TF32 when `tf32`.
Tolerance getTolerance(DType type, int64_t reductionLength, DType accumulator,
                       bool tf32 = false);

/// The tolerance that applies the oracle rule (Protocol.h's
/// isWithinOracleBound) element by element: a candidate output compared
/// with the f64 oracle's, whose largest finite |element| is `oracleScale`,
/// passes when every element is within kOracleErrorFactor x `refOracleErr`
/// (the reference's largest absolute error against the oracle) and the
/// non-finite elements agree. No rtol; atol, like every atol, relative to
/// the scale.
Tolerance getOracleTolerance(double refOracleErr, double oracleScale);

/// Outcome of comparing one output, element by element.
struct Comparison {
  bool ok = true;
  uint64_t numElements = 0;
  uint64_t numBad = 0;   ///< elements outside the tolerance
  uint64_t worst = 0;    ///< flat index of the worst element (first bad
                         ///< NaN/Inf mismatch, else the largest excess)
  double got = 0, expected = 0; ///< values at `worst`
  double maxAbsErr = 0;  ///< over elements where both values are finite
  double maxRelErr = 0;  ///< same, where expected != 0
  double scale = 0;      ///< max finite |expected|
};

/// Sets `result`'s verdict (ok, bad count, worst element, largest errors)
/// from the merged per-element partial of a comparison, host or GPU.
void setVerdict(Comparison &result, const elements::ComparePartial &partial);

/// Compares `numElements` elements of `type` with `tolerance`; `expected` and
/// `got` hold the raw little-endian bytes.
Comparison compareElements(DType type, const Tolerance &tolerance,
                           const uint8_t *expected, const uint8_t *got,
                           uint64_t numElements);

/// The multi-dimensional index of flat (C order) index `flat` in `shape`.
std::vector<int64_t> unflattenIndex(uint64_t flat,
                                    const std::vector<int64_t> &shape);

/// A value the way reasons print it: integers exactly, floats with 9
/// significant digits, "nan", "inf", "-inf".
std::string formatValue(double value);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_TOLERANCE_H
