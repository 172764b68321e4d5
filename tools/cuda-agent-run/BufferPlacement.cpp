//===- BufferPlacement.cpp - Where a buffer starts in its block -----------===//
//
// The offset trial's placement: past the guard, the first address that is a
// multiple of the alignment and not of twice it.
//
//===----------------------------------------------------------------------===//

#include "BufferPlacement.h"

using namespace mlir::cuda_agent;

uint64_t mlir::cuda_agent::getExactlyAlignedLead(uint64_t blockAddress, uint64_t guardBytes,
                                                 uint64_t alignment) {
  uint64_t period = 2 * alignment;
  uint64_t start = blockAddress + guardBytes;
  // The next address congruent to `alignment` modulo twice it.
  uint64_t skip = (alignment + period - start % period) % period;
  return guardBytes + skip;
}
