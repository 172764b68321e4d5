//===- KernelAlignmentTest.cpp - The alignment read from PTX --------------===//
//
// ptxGlobalAccessAlignment on PTX as NVRTC writes it: vector loads and
// stores, predicated and labelled statements, cp.async sizes, and accesses
// that are not global (shared memory, `::` state spaces) left out.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/KernelAlignment.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

TEST(KernelAlignment, ScalarAccessesNeedTheirSize) {
  EXPECT_EQ(ptxGlobalAccessAlignment("\tld.global.f32 \t%f1, [%rd4];\n"
                                     "\tst.global.f32 \t[%rd5], %f1;\n"),
            4);
  EXPECT_EQ(ptxGlobalAccessAlignment("\tld.global.nc.u16 \t%rs1, [%rd4];\n"),
            2);
}

TEST(KernelAlignment, VectorAccessesNeedTheirWidth) {
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "$L__BB0_2:\n\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, "
                "[%rd10];\n"),
            16);
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "\t@%p1 st.global.v2.f64 \t[%rd3], {%fd1, %fd2};\n"),
            16);
}

TEST(KernelAlignment, SharedAndLocalAccessesDoNotCount) {
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "\tld.shared.v4.f32 \t{%f1, %f2, %f3, %f4}, [%r1];\n"
                "\tst.local.v4.u32 \t[%rd1], {%r1, %r2, %r3, %r4};\n"
                "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r3;\n"),
            1);
}

TEST(KernelAlignment, AsyncCopiesNeedTheirSize) {
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "\tcp.async.ca.shared.global [%r1], [%rd2], 8;\n"),
            8);
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
                "bytes [%r1], [%rd2], %r3, [%r4];\n"),
            16);
}

TEST(KernelAlignment, CommentsAndLabelsAreSkipped) {
  EXPECT_EQ(ptxGlobalAccessAlignment(
                "// ld.global.v4.f32 in a comment\n\tadd.s32 %r1, %r2, 1;\n"),
            1);
  EXPECT_EQ(ptxGlobalAccessAlignment("\tatom.global.add.f32 \t%f1, [%rd1], "
                                     "%f2;\n"),
            4);
}
