//===- ReplayAgentTest.cpp - KernelTask and the replay backend --------------===//
//
// A task built from a real outlined region, and the replay agent serving
// candidates for it from a directory the test writes.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/InitAll.h"
#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Task/KernelTask.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

const char *kProgram = R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<64x128xf16>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x128xf16>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f16, %c: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
)mlir";

class ReplayAgentTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
    ASSERT_TRUE(module);
    FailureOr<SmallVector<OutlinedRegion>> regions =
        outlineRegions(*module, OutlineOptions());
    ASSERT_TRUE(succeeded(regions));
    ASSERT_EQ(regions->size(), 1u);
    FailureOr<KernelTask> built = buildKernelTask((*regions)[0].func, "sm_90");
    ASSERT_TRUE(succeeded(built));
    task = *built;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("replay", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Writes DIR/<task hash>/<file> with `text`.
  void write(llvm::StringRef file, llvm::StringRef text) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, task.regionHash);
    ASSERT_FALSE(llvm::sys::fs::create_directories(path));
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  KernelTask task;
  llvm::SmallString<128> dir;
};

TEST_F(ReplayAgentTest, TaskDescribesTheRegion) {
  EXPECT_EQ(task.regionHash.size(), 64u);
  EXPECT_EQ(task.kind, "elementwise");
  EXPECT_EQ(task.arch, "sm_90");
  // addf and maximumf per element; the cast does not count.
  EXPECT_EQ(task.flops, 2 * 64 * 128);
  EXPECT_EQ(task.bytes, 64 * 128 * 2 + 128 * 4 + 64 * 128 * 4);
  ASSERT_EQ(task.operands.size(), 3u);
  EXPECT_EQ(task.operands[0].name, "in0");
  EXPECT_EQ(task.operands[0].dtype, "f16");
  EXPECT_EQ(task.operands[0].shape, (SmallVector<int64_t>{64, 128}));
  EXPECT_FALSE(task.operands[0].isOutput);
  EXPECT_EQ(task.operands[1].name, "in1");
  EXPECT_EQ(task.operands[1].dtype, "f32");
  EXPECT_EQ(task.operands[2].name, "out0");
  EXPECT_TRUE(task.operands[2].isOutput);
  EXPECT_NE(task.regionMlir.find("func.func @region("), std::string::npos);
  EXPECT_EQ(task.regionMlir.find("bias_relu"), std::string::npos);
}

TEST_F(ReplayAgentTest, ServesCandidatesInNameOrderUpToCount) {
  write("b.cu", "// b");
  write("b.json", R"({"launches": []})");
  write("a.cu", "// a");
  write("a.json", R"({"launches": [1]})");
  write("c.cu", "// c");
  write("c.json", "{}");
  write("notes.txt", "ignored");
  auto agent = createReplayAgent(dir);
  EXPECT_EQ(agent->getName(), "replay");
  llvm::Expected<std::vector<Candidate>> two = agent->propose(task, {}, 2);
  ASSERT_TRUE(bool(two)) << llvm::toString(two.takeError());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "a");
  EXPECT_EQ((*two)[0].source, "// a");
  EXPECT_EQ((*two)[0].launchPlan, R"({"launches": [1]})");
  EXPECT_EQ((*two)[0].agent, "replay");
  EXPECT_EQ((*two)[1].name, "b");

  // The next turn gets what was not attempted yet.
  std::vector<Attempt> history = {{(*two)[0], "mismatch", ""},
                                  {(*two)[1], "slower", ""}};
  llvm::Expected<std::vector<Candidate>> rest = agent->propose(task, history, 5);
  ASSERT_TRUE(bool(rest)) << llvm::toString(rest.takeError());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ((*rest)[0].name, "c");
}

TEST_F(ReplayAgentTest, NoDirectoryForTheRegionMeansNoCandidates) {
  auto agent = createReplayAgent(dir);
  llvm::Expected<std::vector<Candidate>> none = agent->propose(task, {}, 4);
  ASSERT_TRUE(bool(none)) << llvm::toString(none.takeError());
  EXPECT_TRUE(none->empty());
}

TEST_F(ReplayAgentTest, SourceWithoutPlanIsAnErrorNamingTheFile) {
  write("lonely.cu", "// no plan");
  auto agent = createReplayAgent(dir);
  llvm::Expected<std::vector<Candidate>> result = agent->propose(task, {}, 4);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("lonely.cu' has no launch plan"), std::string::npos)
      << message;
}

TEST_F(ReplayAgentTest, TaskNeedsAnOutlinedRegion) {
  auto plain = module->lookupSymbol<func::FuncOp>("bias_relu");
  ASSERT_TRUE(plain);
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(buildKernelTask(plain, "sm_90")));
}

TEST_F(ReplayAgentTest, Tf32PrecisionLeavesRegionsWithoutProductsAlone) {
  // No product to round: the task and its key are the exact ones.
  auto region = *module->getOps<func::FuncOp>().begin();
  for (auto func : module->getOps<func::FuncOp>())
    if (func->hasAttr(kRegionAttrName))
      region = func;
  FailureOr<KernelTask> tf32 =
      buildKernelTask(region, "sm_90", wire::kPrecisionTf32);
  ASSERT_TRUE(succeeded(tf32));
  EXPECT_EQ(tf32->precision, "");
  EXPECT_EQ(tf32->regionHash, task.regionHash);
}

TEST(KernelTaskTest, Tf32PrecisionKeysF32ProductsApart) {
  // precision=tf32 on a product of f32 operands: the task says so and its
  // key (the hash the database, the jobs and the decisions use) is another
  // one, so a TF32 kernel is never found for an exact request.
  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
)mlir",
                                                            &context);
  ASSERT_TRUE(module);
  FailureOr<SmallVector<OutlinedRegion>> regions =
      outlineRegions(*module, OutlineOptions());
  ASSERT_TRUE(succeeded(regions));
  ASSERT_EQ(regions->size(), 1u);
  FailureOr<KernelTask> exact = buildKernelTask((*regions)[0].func, "sm_90");
  FailureOr<KernelTask> tf32 =
      buildKernelTask((*regions)[0].func, "sm_90", wire::kPrecisionTf32);
  ASSERT_TRUE(succeeded(exact) && succeeded(tf32));
  EXPECT_EQ(exact->precision, "");
  EXPECT_EQ(tf32->precision, "tf32");
  EXPECT_EQ(tf32->regionHash.size(), 64u);
  EXPECT_NE(tf32->regionHash, exact->regionHash);
  EXPECT_EQ(tf32->regionMlir, exact->regionMlir);
  // The same request gives the same key.
  FailureOr<KernelTask> again =
      buildKernelTask((*regions)[0].func, "sm_90", wire::kPrecisionTf32);
  ASSERT_TRUE(succeeded(again));
  EXPECT_EQ(again->regionHash, tf32->regionHash);
}

} // namespace
