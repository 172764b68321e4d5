//===- RegionOutlinerTest.cpp - Unit tests for outlining and hashing --------===//
//
// What lit cannot see directly: hashes compared across separately parsed
// programs (different contexts), the canonical text itself, and the C++ API's
// results.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/InitAll.h"
#include "cuda-agent/Outline/RegionHash.h"
#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

class RegionOutlinerTest : public ::testing::Test {
protected:
  RegionOutlinerTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  /// Parses `source` and outlines it; fails the test on error.
  SmallVector<OutlinedRegion> outline(StringRef source,
                                      OutlineOptions options = {}) {
    modules.push_back(parseSourceString<ModuleOp>(source, &context));
    EXPECT_TRUE(modules.back()) << "could not parse:\n" << source.str();
    if (!modules.back())
      return {};
    FailureOr<SmallVector<OutlinedRegion>> regions =
        outlineRegions(*modules.back(), options);
    EXPECT_TRUE(succeeded(regions));
    return succeeded(regions) ? *regions : SmallVector<OutlinedRegion>{};
  }

  MLIRContext context;
  SmallVector<OwningOpRef<ModuleOp>> modules;
};

/// A bias + scaled exp over a matrix; `shape`, `type` and `scale` vary.
std::string elementwiseProgram(StringRef name, StringRef shape, StringRef type,
                               StringRef scale) {
  std::string t = ("tensor<" + shape + "x" + type + ">").str();
  return (R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @)mlir" + name + "(%x: " + t + ", %y: " + t + ") -> " + t + R"mlir( {
  %e = tensor.empty() : )mlir" + t + R"mlir(
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : )mlir" + t + ", " + t + ") outs(%e : " + t + R"mlir() {
  ^bb0(%a: )mlir" + type + ", %b: " + type + ", %o: " + type + R"mlir():
    %k = arith.constant )mlir" + scale + " : " + type + R"mlir(
    %s = arith.addf %a, %b : )mlir" + type + R"mlir(
    %m = arith.mulf %s, %k : )mlir" + type + R"mlir(
    %x2 = math.exp %m : )mlir" + type + R"mlir(
    linalg.yield %x2 : )mlir" + type + R"mlir(
  } -> )mlir" + t + R"mlir(
  return %r : )mlir" + t + R"mlir(
}
)mlir")
      .str();
}

TEST_F(RegionOutlinerTest, HashIsSha256Hex) {
  auto regions = outline(elementwiseProgram("f", "64x32", "f32", "2.0"));
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].hash.size(), 64u);
  EXPECT_TRUE(llvm::all_of(regions[0].hash, [](char c) {
    return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
  }));
  EXPECT_EQ(regions[0].kind, KernelKind::Elementwise);
  // 64*32 iterations of addf, mulf, exp; x, y and the result in f32.
  EXPECT_EQ(regions[0].flops, 64 * 32 * 3);
  EXPECT_EQ(regions[0].bytes, 3 * 64 * 32 * 4);
}

TEST_F(RegionOutlinerTest, SameRegionInTwoProgramsHasOneHash) {
  auto first = outline(elementwiseProgram("first", "64x32", "f32", "2.0"));
  auto second = outline(elementwiseProgram("second", "64x32", "f32", "2.0"));
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(first[0].hash, second[0].hash);
  EXPECT_EQ(printCanonicalRegion(first[0].func),
            printCanonicalRegion(second[0].func));
}

TEST_F(RegionOutlinerTest, ShapeTypeAndConstantChangeTheHash) {
  std::string base =
      outline(elementwiseProgram("f", "64x32", "f32", "2.0"))[0].hash;
  EXPECT_NE(base, outline(elementwiseProgram("f", "64x33", "f32", "2.0"))[0].hash);
  EXPECT_NE(base, outline(elementwiseProgram("f", "64x32", "f16", "2.0"))[0].hash);
  EXPECT_NE(base, outline(elementwiseProgram("f", "64x32", "bf16", "2.0"))[0].hash);
  EXPECT_NE(base, outline(elementwiseProgram("f", "64x32", "f32", "3.0"))[0].hash);
}

TEST_F(RegionOutlinerTest, CanonicalTextHidesNamesAndOwnAttributes) {
  auto regions = outline(elementwiseProgram("my_model", "8x8", "f32", "1.0"));
  ASSERT_EQ(regions.size(), 1u);
  std::string text = printCanonicalRegion(regions[0].func);
  EXPECT_EQ(text.find("my_model"), std::string::npos);
  EXPECT_EQ(text.find("cuda_agent"), std::string::npos);
  EXPECT_EQ(text.find("loc("), std::string::npos);
  EXPECT_NE(text.find("sym_name = \"region\""), std::string::npos);
  // The attribute on the function carries the same hash.
  auto attr = regions[0].func->getAttrOfType<DictionaryAttr>(kRegionAttrName);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getAs<StringAttr>("hash").getValue(), regions[0].hash);
  EXPECT_EQ(attr.getAs<StringAttr>("kind").getValue(), "elementwise");
}

TEST_F(RegionOutlinerTest, MemoizedIndexingMapsDoNotChangeTheHash) {
  const char *source = R"mlir(
func.func @mm(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>, %c: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x4xf32>) outs(%c : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %m : tensor<16x4xf32>
}
)mlir";
  auto regions = outline(source);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].kind, KernelKind::Contraction);
  std::string before = computeRegionHash(regions[0].func);
  regions[0].func.walk([](Operation *op) {
    op->setAttr("linalg.memoized_indexing_maps",
                UnitAttr::get(op->getContext()));
  });
  EXPECT_EQ(before, computeRegionHash(regions[0].func));
  EXPECT_EQ(before, regions[0].hash);
}

TEST_F(RegionOutlinerTest, FusionModesChangeRegionCount) {
  const char *source = R"mlir(
func.func @sm(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %e = tensor.empty() : tensor<16x128xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<16x128xf32>) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %s : tensor<16x128xf32>
}
)mlir";
  EXPECT_EQ(outline(source, {FusionMode::None}).size(), 4u);
  EXPECT_EQ(outline(source, {FusionMode::Elementwise}).size(), 2u);
  auto rows = outline(source, {FusionMode::Rows});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, KernelKind::Reduction);
  EXPECT_EQ(rows[0].func.getSymName(), "sm_region0");
}

TEST_F(RegionOutlinerTest, KindSpellings) {
  EXPECT_EQ(stringifyKernelKind(KernelKind::Elementwise), "elementwise");
  EXPECT_EQ(stringifyKernelKind(KernelKind::Reduction), "reduction");
  EXPECT_EQ(stringifyKernelKind(KernelKind::Contraction), "contraction");
  EXPECT_EQ(stringifyKernelKind(KernelKind::Convolution), "convolution");
  EXPECT_EQ(stringifyKernelKind(KernelKind::Mixed), "mixed");
}

} // namespace
