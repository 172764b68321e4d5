//===- ModuleStateTest.cpp - Unit tests for the module-state reader -------===//
//
// findModuleState() on PTX text in the forms NVVM and hand-written PTX use
// (linkage, alignment, arrays, initializers, several declarators, comments),
// what it must leave alone (.const, .shared, texture references, global
// loads and stores, `.ptr.global` parameters), and compileCandidate()'s
// rejection of a real CUDA source that keeps a `__device__` variable.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/ModuleState.h"
#include "cuda-agent/Cuda/NvrtcCompiler.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

std::vector<std::string> names(std::string_view ptx) {
  std::vector<std::string> result;
  for (const ModuleStateDecl &decl : findModuleState(ptx))
    result.push_back(decl.name);
  return result;
}

using Names = std::vector<std::string>;

/// `decl` followed by a kernel body that stores through the address of each
/// of `used`.
std::string withUses(const std::string &decl, const Names &used) {
  std::string ptx = decl + "\n.visible .entry k()\n{\n";
  for (const std::string &name : used)
    ptx += "\tmov.u64 \t%rd1, " + name + ";\n\tst.global.u32 \t[%rd1], %r1;\n";
  return ptx + "\tret;\n}\n";
}

/// A kernel body (nvcc's, for `__device__ const float table[4]` read at a
/// computed index) with `extra` instructions before its return.
std::string tableKernel(const std::string &extra = "") {
  return ".version 8.5\n.target sm_90\n.address_size 64\n\n"
         "\t// .globl\tk\n"
         ".global .align 4 .b8 table[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, "
         "128, 64};\n"
         ".const .align 4 .b8 scale[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, "
         "128, 64};\n\n"
         ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n{\n"
         "\t.reg .pred \t%p<3>;\n\t.reg .f32 \t%f<6>;\n\t.reg .b32 \t%r<2>;\n"
         "\t.reg .b64 \t%rd<17>;\n\n"
         "\tld.param.u64 \t%rd1, [k_param_0];\n\tld.param.u64 \t%rd2, [k_param_1];\n"
         "\tcvta.to.global.u64 \t%rd3, %rd1;\n\tcvta.to.global.u64 \t%rd4, %rd2;\n"
         "\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.s32 \t%rd5, %r1, 4;\n"
         "\tadd.s64 \t%rd6, %rd4, %rd5;\n\tld.global.u32 \t%rd7, [%rd6];\n"
         "\tshl.b64 \t%rd8, %rd7, 2;\n\tand.b64 \t%rd9, %rd8, 12;\n"
         "\tmov.u64 \t%rd10, table;\n\tadd.s64 \t%rd11, %rd10, %rd9;\n"
         "\tld.global.nc.f32 \t%f1, [%rd11];\n"
         "\tld.global.nc.v2.f32 \t{%f2, %f3}, [table+8];\n"
         "$L__BB0_1:\n\tadd.f32 \t%f4, %f1, %f2;\n\tadd.s64 \t%rd16, %rd3, %rd5;\n" +
         extra + "\tst.global.f32 \t[%rd16], %f4;\n\tret;\n\n}\n";
}

TEST(ModuleStateTest, GlobalVariableForms) {
  auto check = [](const std::string &decl, const Names &expected) {
    EXPECT_EQ(names(withUses(decl, expected)), expected) << decl;
  };
  check(".global .align 8 .b8 memo_key[8000000];", {"memo_key"});
  check(".visible .global .align 4 .u32 hits;", {"hits"});
  check(".weak .global .f32 w = 1.0;", {"w"});
  check(".extern .global .align 4 .b8 ext[];", {"ext"});
  check(".common .global .u64 c;", {"c"});
  check(".global .v4 .f32 vec;", {"vec"});
  check(".global .align 4 .b8 init[8] = {1, 0, 0, 0, 2, 0, 0, 0};", {"init"});
  check(".global .u32 a, b[4], c = 3;", {"a", "b", "c"});
  check(".global\n\t.align 16\n\t.b8 _ZN4memo10tail_valueE[4000000];",
        {"_ZN4memo10tail_valueE"});
  // A use in another variable's initializer counts.
  EXPECT_EQ(names(withUses(".global .u32 target; .global .u64 p = generic(target);",
                           {"p"})),
            (Names{"target", "p"}));
}

TEST(ModuleStateTest, UnusedVariableIsDeadData) {
  // NVRTC emits a namespace-scope constexpr like this and never touches it.
  EXPECT_TRUE(names(withUses(".global .align 4 .u32 kNumElements = 1048576;", {}))
                  .empty());
  // A longer name that contains it is not a use.
  EXPECT_TRUE(names(withUses(".global .u32 n;", {"n2", "_n"})).empty());
  EXPECT_EQ(names(withUses(".global .u32 n;", {"n"})), Names{"n"});
}

// A `__device__ const` (or `__device__ constexpr`) lookup table is an
// initialized `.global` that nvcc and NVRTC read with `ld.global.nc`: only
// read, it is not state. Any way its address could be written through, or
// leave the analysis, makes it state again.
TEST(ModuleStateTest, ReadOnlyTableIsNotState) {
  EXPECT_TRUE(names(tableKernel()).empty());
  auto writable = [](const std::string &extra) {
    EXPECT_EQ(names(tableKernel(extra)), Names{"table"}) << extra;
  };
  writable("\tst.global.f32 \t[%rd11], %f1;\n");              // through its address
  writable("\tst.global.f32 \t[table+4], %f1;\n");            // directly
  writable("\tcvta.global.u64 \t%rd12, %rd11;\n\tst.f32 \t[%rd12], %f1;\n"); // generic
  writable("\tatom.global.add.f32 \t%f5, [%rd11], %f1;\n");   // atomically
  writable("\tred.global.add.f32 \t[%rd11], %f1;\n");
  writable("\tst.global.u64 \t[%rd16], %rd11;\n");            // its address escapes
  writable("\txor.b64 \t%rd13, %rd11, 7;\n\tst.global.u64 \t[%rd16], %rd13;\n");
  writable("\tsetp.eq.s64 \t%p1, %rd10, 0;\n@%p1 bra \t$L__BB0_1;\n"); // control flow
  writable("\tsetp.eq.s64 \t%p1, %rd10, 0;\n\tselp.f32 \t%f5, %f1, %f2, %p1;\n"
           "\tst.global.f32 \t[%rd16], %f5;\n"); // a value depending on the address
  writable("\tsetp.eq.s64 \t%p1, %rd10, 0;\n@%p1 st.global.f32 \t[%rd16], %f1;\n");
  writable("\tmov.u64 \t%rd14, table;\n\tst.param.b64 \t[param0], %rd14;\n");
  writable("\tcp.async.ca.shared.global \t[%rd16], [%rd11], 16;\n"); // unknown: state
  // Another variable initialized with its address.
  EXPECT_EQ(names(tableKernel() + ".global .u64 alias = generic(table);\n"),
            Names{"table"});
  // Loads through it and plain computations stay reads.
  EXPECT_TRUE(names(tableKernel("\tadd.s64 \t%rd12, %rd11, 4;\n"
                                "\tld.global.nc.f32 \t%f5, [%rd12+4];\n"))
                  .empty());
}

TEST(ModuleStateTest, AfterHeaderDirectives) {
  // .version, .target and .address_size end without a `;`.
  EXPECT_EQ(names(withUses(".version 8.5\n.target sm_90\n.address_size 64\n\n"
                           "\t// .globl\tadd_relu\n"
                           ".global .align 8 .b8 memo_key[8000000];\n"
                           ".global .align 4 .b8 memo_value[4000000];\n",
                           {"memo_key", "memo_value"})),
            (Names{"memo_key", "memo_value"}));
}

TEST(ModuleStateTest, DeviceMalloc) {
  std::vector<ModuleStateDecl> found = findModuleState(
      ".address_size 64\n\n.extern .func  (.param .b64 func_retval0) malloc\n(\n"
      "\t.param .b64 malloc_param_0\n)\n;");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "malloc");
  EXPECT_TRUE(names(".extern .func (.param .b32 r) vprintf (.param .b64 a);").empty());
}

TEST(ModuleStateTest, LeavesOtherStateSpacesAlone) {
  const char *ptx = R"(//
// Generated by NVIDIA NVVM Compiler
// .global .u32 in_a_comment;
.version 8.5
.target sm_90
.address_size 64
.const .align 4 .b8 table[16] = {0, 0, 128, 63};
.shared .align 4 .b8 tile[1024];
.global .texref tex;
.global .samplerref smp;
.global .align 4 .u32 kNumElements = 1048576;
/* .global .u32 in_a_block_comment; */
.visible .entry add_relu(
	.param .u64 .ptr .global .align 4 add_relu_param_0,
	.param .u64 add_relu_param_1
)
{
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<8>;
	.local .align 4 .b8 	__local_depot0[16];
	ld.param.u64 	%rd1, [add_relu_param_0];
	ld.const.f32 	%f2, [table+4];
	tex.1d.v4.f32.s32 	{%f1, %f2, %f3, %f4}, [tex, {%r1}];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.f32 	%f1, [%rd2];
	st.global.f32 	[%rd2], %f1;
	atom.global.add.u32 	%r1, [%rd2], 1;
	ret;
}
)";
  EXPECT_TRUE(names(ptx).empty());
}

TEST(ModuleStateTest, ReasonNamesTheVariables) {
  std::string reason = describeModuleState(findModuleState(
      withUses(".global .u32 memo; .global .f32 answer[4];", {"memo", "answer"})));
  EXPECT_NE(reason.find("module-scope .global variable 'memo'"), std::string::npos);
  EXPECT_NE(reason.find("module-scope .global variable 'answer'"), std::string::npos);
}

TEST(ModuleStateTest, CompilerRejectsDeviceVariable) {
  llvm::Expected<CompiledKernel> kernel = compileCandidate(
      "__device__ float remembered[1024];\n"
      "extern \"C\" __global__ void k(const float *a, float *b) {\n"
      "  int i = threadIdx.x;\n"
      "  if (remembered[i] == 0.0f) remembered[i] = a[i];\n"
      "  b[i] = remembered[i];\n"
      "}\n",
      CompileOptions());
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("module-scope .global variable 'remembered'"),
            std::string::npos)
      << message;

  llvm::Expected<CompiledKernel> constant = compileCandidate(
      "__constant__ float scale[4] = {1, 2, 3, 4};\n"
      "extern \"C\" __global__ void k(const float *a, float *b) {\n"
      "  b[threadIdx.x] = a[threadIdx.x] * scale[threadIdx.x % 4];\n"
      "}\n",
      CompileOptions());
  EXPECT_TRUE(bool(constant)) << llvm::toString(constant.takeError());

  // A read-only table in global memory (`__device__ const`, `constexpr`)
  // is not state either.
  llvm::Expected<CompiledKernel> table = compileCandidate(
      "__device__ const float kTable[4] = {1, 2, 3, 4};\n"
      "__device__ constexpr float kOther[4] = {5, 6, 7, 8};\n"
      "extern \"C\" __global__ void k(const float *a, float *b) {\n"
      "  int i = threadIdx.x;\n"
      "  b[i] = a[i] * kTable[i % 4] + kOther[(i + 1) % 4];\n"
      "}\n",
      CompileOptions());
  EXPECT_TRUE(bool(table)) << llvm::toString(table.takeError());
}

} // namespace
