//===- BufferPlacement.h - Where a buffer starts in its block ---*- C++ -*-===//
//
// The runner puts each buffer inside a larger device block, with guard bytes
// before and after it. Normally the buffer starts right past the leading
// guard, which keeps cuMemAlloc's 256-byte alignment; for the verifier's
// offset trial (kOffsetTrialAlignment) it starts at an address aligned to
// exactly 64 bytes, as IREE may place a binding. Host-only, so the choice is
// unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_BUFFERPLACEMENT_H
#define CUDA_AGENT_RUN_BUFFERPLACEMENT_H

#include <cstdint>

namespace mlir::cuda_agent {

/// True when `address` is a multiple of `alignment` (a power of two) and not
/// of twice it: a kernel that assumes any wider alignment finds it broken.
inline bool isExactlyAligned(uint64_t address, uint64_t alignment) {
  return address % alignment == 0 && address % (2 * alignment) != 0;
}

/// The extra bytes a block needs so that getExactlyAlignedLead() always
/// finds a start inside it.
inline uint64_t getExactAlignmentSlack(uint64_t alignment) { return 2 * alignment; }

/// The offset from `blockAddress` at which a buffer starts so that it has at
/// least `guardBytes` of guard before it and its address is aligned to
/// exactly `alignment` (isExactlyAligned): the smallest such offset, less
/// than guardBytes + getExactAlignmentSlack(alignment).
uint64_t getExactlyAlignedLead(uint64_t blockAddress, uint64_t guardBytes, uint64_t alignment);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_BUFFERPLACEMENT_H
