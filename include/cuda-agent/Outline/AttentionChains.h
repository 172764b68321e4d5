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

#include <cstdint>

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

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_ATTENTIONCHAINS_H
