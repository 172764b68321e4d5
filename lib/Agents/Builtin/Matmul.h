//===- Matmul.h - Contractions read from their maps -------------*- C++ -*-===//
//
// The matmul strategy's reading of a contraction region: which loop of the
// contraction generic is a batch, row (M), column (N) or reduced (K)
// dimension, the operands' maps (transposes are only maps), the
// accumulator's init, and the pieces every matmul kernel writes the same
// way: an operand's value at (row, k) through the region's elementwise
// producers, and the epilogue that turns an accumulator into the region's
// outputs at one element of the product.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H
#define CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H

#include "Strategy.h"

namespace mlir::cuda_agent::builtin {

/// A contraction generic and its dimensions.
struct Contraction {
  linalg::GenericOp op;
  /// Loop dimensions of the batch, the rows, the columns and the reduction.
  SmallVector<unsigned> batch;
  unsigned m = 0, n = 0, k = 0;
  SmallVector<int64_t> ranges;
  int64_t M = 0, N = 0, K = 0, batches = 1;
  Value a, b, init, result;
  AffineMap mapA, mapB, mapC;

  /// The contraction's loop indices as C names: batch dimensions `bI`, the
  /// given row, column and reduced indices.
  SmallVector<std::string> loopDims(StringRef m, StringRef n,
                                    StringRef k) const;
  /// Statements declaring the batch indices `bI` from blockIdx.z.
  std::string batchIndices() const;
  /// Whether loop dimension `dim` is the innermost index of `operand`.
  bool isInnermost(Value operand, AffineMap map, unsigned dim) const;
  /// Whether the accumulator starts from one value (a fill): then the
  /// kernels start their accumulators from it.
  bool initIsSplat(const LinalgRegion &region) const {
    return region.splats.count(init);
  }
};

/// Reads the region's one contraction, or says why the region has none the
/// matmul kernels cover.
FailureOr<Contraction> analyzeContraction(const LinalgRegion &region,
                                          std::string &why);

/// Statements computing operand A (`isA`) or B at row (or column) `m` and
/// reduced index `k` (C expressions), through the region's producers; the
/// value's name goes to `value`.
FailureOr<std::string> writeOperandValue(const LinalgRegion &region,
                                         const Contraction &c, bool isA,
                                         StringRef m, StringRef k,
                                         unsigned &counter, std::string &value,
                                         std::string &why);

/// Statements storing every region output at the product's element (m, n)
/// (C variables `m`, `n` and the batch indices in scope), the contraction's
/// sum being `acc` (f32) before its init is added.
FailureOr<std::string> writeEpilogue(const LinalgRegion &region,
                                     const Contraction &c, StringRef acc,
                                     unsigned &counter, std::string &why);

/// Appends the tensor-core variants (MatmulMma.cpp) when both operands are
/// f16 or both bf16 and `target` is sm_80 or later.
void addMmaVariants(const LinalgRegion &region, const Contraction &c,
                    const GpuTarget &target, VariantList &list);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H
