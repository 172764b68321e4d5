//===- BufferPlacementTest.cpp - The offset trial's buffer placement ------===//
//
// Where the verifier's offset trial puts a buffer in its block (no GPU):
// past the guard, at an address aligned to exactly IREE's 64 bytes, for
// blocks as cuMemAlloc returns them (256-byte aligned or more) and for any
// other base.
//
//===----------------------------------------------------------------------===//

#include "BufferPlacement.h"

#include "cuda-agent/Runner/Protocol.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

constexpr uint64_t kGuard = 256;

TEST(BufferPlacementTest, ExactAlignment) {
  EXPECT_TRUE(isExactlyAligned(64, 64));
  EXPECT_TRUE(isExactlyAligned(192, 64));
  EXPECT_TRUE(isExactlyAligned(0x7f0000000040, 64));
  EXPECT_FALSE(isExactlyAligned(0, 64));
  EXPECT_FALSE(isExactlyAligned(128, 64));
  EXPECT_FALSE(isExactlyAligned(256, 64));
  EXPECT_FALSE(isExactlyAligned(32, 64));
  EXPECT_FALSE(isExactlyAligned(96, 64));
}

// cuMemAlloc's blocks (256 bytes aligned, in practice 512 or 2 MiB): the
// buffer starts 64 bytes past the guard, so it is 64- but not 128-aligned.
TEST(BufferPlacementTest, AllocatedBlocks) {
  for (uint64_t base : {0x7f0000000000ull, 0x7f0000000100ull, 0x7f0000000200ull,
                        0x7f0000200000ull}) {
    uint64_t lead = getExactlyAlignedLead(base, kGuard, kOffsetTrialAlignment);
    EXPECT_EQ(lead, kGuard + 64) << std::hex << base;
    EXPECT_TRUE(isExactlyAligned(base + lead, kOffsetTrialAlignment));
    EXPECT_FALSE(isExactlyAligned(base + lead, 128));
    EXPECT_NE((base + lead) % 256, 0u);
  }
}

// Any base: at least the guard before the buffer, the smallest exactly
// aligned start, within the slack the block is given.
TEST(BufferPlacementTest, AnyBase) {
  for (uint64_t base = 0x10000; base < 0x10000 + 512; base += 8) {
    uint64_t lead = getExactlyAlignedLead(base, kGuard, kOffsetTrialAlignment);
    EXPECT_GE(lead, kGuard);
    EXPECT_LT(lead, kGuard + getExactAlignmentSlack(kOffsetTrialAlignment));
    EXPECT_TRUE(isExactlyAligned(base + lead, kOffsetTrialAlignment)) << base;
    for (uint64_t smaller = kGuard; smaller < lead; ++smaller)
      EXPECT_FALSE(isExactlyAligned(base + smaller, kOffsetTrialAlignment));
  }
  // Already exactly aligned past the guard: no skip.
  EXPECT_EQ(getExactlyAlignedLead(0x10040, kGuard, 64), kGuard);
}

} // namespace
