//===- AttentionChains.h - Attention as one region --------------*- C++ -*-===//
//
// An attention is two products with a softmax between: scores S = Q K^T
// (scaled, masked), P = softmax(S) over the keys, O = P V. Grouped like
// other ops, it is three regions, and S and P (heads x queries x keys) go
// through memory twice each. The outliner's grouping merges the three into
// one region of kind "attention" (AttentionChains.cpp), which a kernel can
// compute a block of queries at a time, the keys streamed and the softmax
// computed online, S and P never in memory (the builtin agent's
// FlashAttention.cpp). A region's default lowering still computes it op by
// op, so the region is formed only where such a kernel's registers hold a
// block of queries' rows of Q and O: head dimensions up to
// kMaxAttentionHeadDim.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_ATTENTIONCHAINS_H
#define CUDA_AGENT_OUTLINE_ATTENTIONCHAINS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstdint>
#include <string>

namespace mlir::cuda_agent {

/// The largest head dimension (the scores' reduced extent and the output's
/// columns) an attention region has.
inline constexpr int64_t kMaxAttentionHeadDim = 128;

/// The head dimensions come in steps of this many (the tensor cores' k).
inline constexpr int64_t kAttentionHeadDimStep = 8;

/// Whether `d` is a head dimension an attention region may have.
inline bool isAttentionHeadDim(int64_t d) {
  return d > 0 && d <= kMaxAttentionHeadDim && d % kAttentionHeadDimStep == 0;
}

/// An attention's softmax over the keys (the last loop of its reductions):
/// the max reductions of one tensor X (the softmax's, a guard's), the one
/// sum, of E = exp(X - max), and probabilities P that are linear in E.
struct AttentionSoftmax {
  Value x, e;
  SmallVector<linalg::GenericOp> maxima;
  linalg::GenericOp sum;
};

/// Reads `reductions` and the probabilities `p` as an attention's softmax:
/// each reduction reduces the last loop of its one input, read at the
/// element, into one result, with `maximumf` (of one X) or, once, `addf`
/// (of E, which is exp(X - a max) in one generic or as a difference and an
/// exponential); P is linear in E (isLinearIn). Says why not otherwise.
FailureOr<AttentionSoftmax>
analyzeAttentionSoftmax(ArrayRef<linalg::GenericOp> reductions, Value p,
                        std::string &why);

/// Whether every tensor the elementwise generics from `e` to `p` compute is
/// linear in `e`, with values that do not vary along the keys (loop
/// dimension `key` of those generics): products and quotients by such
/// values, negations, sums of two such tensors and selects between them and
/// zero (reductions' values per row are such values). Then P's ops applied
/// to a sum of E's values give the sum of P's: a softmax's division by its
/// sum and the guard that zeroes an all-masked row are.
bool isLinearIn(Value p, Value e, unsigned key, std::string &why);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_ATTENTIONCHAINS_H
