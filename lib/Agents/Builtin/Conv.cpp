//===- Conv.cpp - Convolutions as implicit GEMMs --------------------------===//
//
// Convolution regions: one linalg.generic that is a convolution by its maps
// (conv_2d_nhwc_hwcf, conv_2d_nchw_fchw and any generic of that form, any
// stride, dilation and kernel size), read as the product of an im2col
// matrix A (M = batch x output pixels, K = input channels x kernel taps)
// and the filter B (K x N = output channels), never materialized: each
// shared tile element of A is read from the input at the index its map
// gives (out * stride + tap * dilation), the row split into the output's
// dimensions and the reduced index into the filter's order, so that a 1x1
// convolution reads A as a plain matrix. The kernels are the matmul
// strategy's (Matmul.h's tiles): the exact SIMT register-tiled product and,
// on sm_80 and later, mma.sync with f32 accumulation for f16/bf16 operands
// and, for f32 ones, the 3xTF32 mainloop of MatmulTf32.h (single TF32
// products too under precision=tf32) fed by an im2col loader: the input's
// tile gathered by cp.async, 16 bytes a copy where the operand's innermost
// indices allow (NHWC channels, an FCHW filter's row), zeros past M, N and
// K; an NCHW input at stride 1 along W whose output rows are whole tiles is
// copied as runs of its rows, 16 bytes a copy from the boundary before each
// tap's first element, the shift kept in the tile line's padding for the
// fragment reads. Where the im2col tile would be gathered element by
// element (a stride along W, output rows that are not whole tiles), two
// more kinds of 3xTF32 kernels: the im2col matrix packed into the
// workspace by a pack kernel (K padded to whole steps, 16-byte aligned
// rows; in chunks of whole tiles past 512 MiB) and multiplied from there
// with 16-byte copies, first where the gathered rows are strided; and the
// gather through a shared table of each reduced index's offset plus each
// thread's row offset, for an unpadded input or a zero pad of one (then
// each entry has its tap's bit and each row the mask of the taps inside
// the source; offered before the row copies too, which it beats on
// KernelBench's pad-1 3x3). 96 output channels get a
// 128 x 96 tile. The body must be a multiply-add of the input and the
// filter (casts allowed); poolings are refused. The epilogue the outliner
// fused (bias,
// activations, residual, scale, casts) runs on the accumulator before the
// only store.
// Depthwise and grouped convolutions (a channel in the input, the filter
// and the output) are memory-bound: a direct kernel, a thread per output
// element. A tensor.pad of the input (or the filter) the outliner fused into
// the region is read with bounds, as the tile edges are: the source at
// out * stride + tap * dilation - low in each padded dimension, the pad
// value outside (ElementEvaluator); the 3xTF32 loader copies a zero pad's
// source by cp.async, zero-filling what lies outside it. A reduction after
// the convolution over its output channels (a min over channels) is
// computed from the tensor-core kernels' accumulators (ConvReduction.cpp).
// On sm_90, f16/bf16 NHWC convolutions whose channels come in whole
// 64-element steps run first on the matmul's warp-specialized wgmma kernel,
// its producer copying the im2col rows (ConvWgmma.cpp).
//
// This file is the strategy: it matches the region, assembles the kernels
// and chooses the variants; the loaders that fill the operands' tiles are
// in ConvOperands.cpp, the pack kernel of the packed im2col matrix in
// ConvPack.cpp, the wgmma producer in ConvWgmma.cpp (Conv.h).
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "ElementEvaluator.h"
#include "KernelText.h"
#include "ProductTail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

bool cuda_agent::builtin::usesDim(AffineExpr expr, unsigned dim) {
  bool found = false;
  expr.walk([&](AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      found |= d.getPosition() == dim;
  });
  return found;
}

std::string cuda_agent::builtin::splitIndex(StringRef linear,
                                            const ConvProduct &c,
                                            ArrayRef<unsigned> dims,
                                            StringRef prefix,
                                            SmallVector<std::string> &loop) {
  std::string text;
  int64_t stride = 1;
  for (int i = int(dims.size()) - 1; i >= 0; --i) {
    std::string name = (prefix + Twine(i)).str();
    std::string q = stride == 1 ? linear.str()
                                : "(" + linear.str() + ") / " +
                                      std::to_string(stride);
    text += "        const int " + name + " = " +
            (i == 0 ? q : "(" + q + ") % " + std::to_string(c.ranges[dims[i]])) +
            ";\n";
    loop[dims[i]] = name;
    stride *= c.ranges[dims[i]];
  }
  return text;
}

std::string cuda_agent::builtin::splitLoops(const ConvProduct &c, StringRef m,
                                            StringRef n, StringRef k,
                                            SmallVector<std::string> &loop) {
  loop.assign(c.ranges.size(), "0");
  std::string text;
  if (!m.empty())
    text += splitIndex("(int)(" + m.str() + ")", c, c.mDims, "mi", loop);
  if (!n.empty())
    text += splitIndex("(int)(" + n.str() + ")", c, c.nDims, "ni", loop);
  if (!k.empty())
    text += splitIndex("(int)(" + k.str() + ")", c, c.kDims, "ki", loop);
  return text;
}

FailureOr<SmallVector<std::string>>
cuda_agent::builtin::renderMap(AffineMap map, ArrayRef<std::string> loop,
                               std::string &why) {
  SmallVector<std::string> idx;
  for (AffineExpr e : map.getResults()) {
    FailureOr<std::string> index = renderIndexExpr(e, loop, why);
    if (failed(index))
      return failure();
    idx.push_back(*index);
  }
  return idx;
}

namespace {

FailureOr<ConvProduct> analyzeConv(const LinalgRegion &region,
                                   std::string &why) {
  ConvProduct c;
  if (llvm::none_of(region.generics, [](linalg::GenericOp g) {
        return isReduction(g) && linalg::isaConvolutionOpInterface(g);
      }))
    return failure(); // another strategy's region: no reason
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    if (c.channelReduction) {
      why = "two reductions after the convolution in the same region";
      return failure();
    }
    if (c.op)
      c.channelReduction = g;
    else if (!linalg::isaConvolutionOpInterface(g)) {
      why = "a reduction before the convolution in the same region";
      return failure();
    } else
      c.op = g;
  }
  linalg::GenericOp g = c.op;
  if (g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1) {
    why = "a convolution with other than an input, a filter and one result";
    return failure();
  }
  c.input = g.getDpsInputOperand(0)->get();
  c.filter = g.getDpsInputOperand(1)->get();
  c.init = g.getDpsInitOperand(0)->get();
  c.result = g.getResult(0);
  for (auto &[padded, pad] : region.pads) {
    if (llvm::any_of(pad.low, [](int64_t n) { return n < 0; }) ||
        llvm::any_of(pad.high, [](int64_t n) { return n < 0; })) {
      why = "a tensor.pad of a slice is not written yet";
      return failure();
    }
    if (llvm::any_of(padded.getUsers(),
                     [&](Operation *user) { return user != g; }) ||
        padded == c.init) {
      why = "a tensor.pad read by other than the convolution (as its input "
            "or filter) is not written yet";
      return failure();
    }
  }
  for (Value v : {c.input, c.filter, c.result}) {
    Type type = elementOf(v);
    if (!type.isF32() && !type.isF16() && !type.isBF16()) {
      why = "convolutions of other than f32, f16 and bf16 (integer, f64) are "
            "not written yet";
      return failure();
    }
  }
  // The implicit GEMM and the direct kernel sum input x filter products; a
  // generic with a convolution's maps and another body (a pooling's max, a
  // sum of the input alone) is the serial reduction's (hasProduct).
  if (!isMultiplyAdd(g)) {
    why = "a convolution whose body is not a multiply-add of its input and "
          "filter (a pooling: the serial-reduction strategy's)";
    return failure();
  }
  c.mapIn = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
  c.mapFilter = g.getMatchingIndexingMap(g.getDpsInputOperand(1));
  c.mapOut = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!c.mapFilter.isProjectedPermutation() ||
      !c.mapOut.isProjectedPermutation()) {
    why = "a convolution whose filter or output map is not a projected "
          "permutation";
    return failure();
  }
  c.ranges = g.getStaticLoopRanges();
  if (llvm::any_of(c.ranges, ShapedType::isDynamic)) {
    why = "dynamic shapes are not written yet";
    return failure();
  }
  // Loops of extent 1 (a 1x1 kernel's taps, a batch of one) index 0: the
  // input map without them reads a 1x1 convolution as a plain matrix.
  SmallVector<AffineExpr> zeroed;
  for (auto [d, range] : llvm::enumerate(c.ranges))
    zeroed.push_back(range == 1 ? getAffineConstantExpr(0, g.getContext())
                                : getAffineDimExpr(d, g.getContext()));
  c.mapIn = simplifyAffineMap(c.mapIn.replaceDimsAndSymbols(
      zeroed, {}, c.mapIn.getNumDims(), c.mapIn.getNumSymbols()));
  auto inInput = [&](unsigned d) {
    return llvm::any_of(c.mapIn.getResults(),
                        [&](AffineExpr e) { return usesDim(e, d); });
  };
  auto iterators = g.getIteratorTypesArray();
  // Rows and columns in the output's order; every parallel loop is in it.
  for (AffineExpr e : c.mapOut.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    bool inFilter = c.mapFilter.isFunctionOfDim(d);
    if (inFilter && inInput(d)) {
      c.depth *= c.ranges[d];
      continue;
    }
    if (c.ranges[d] > 1)
      (inFilter ? c.nDims : c.mDims).push_back(d);
    (inFilter ? c.N : c.M) *= c.ranges[d];
  }
  for (AffineExpr e : c.mapFilter.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (iterators[d] != utils::IteratorType::reduction)
      continue;
    if (c.ranges[d] > 1)
      c.kDims.push_back(d);
    c.K *= c.ranges[d];
  }
  int64_t reduced = 1, parallel = 1;
  for (auto [d, it] : llvm::enumerate(iterators))
    (it == utils::IteratorType::reduction ? reduced : parallel) *= c.ranges[d];
  if (reduced != c.K || parallel != c.M * c.N * c.depth) {
    why = "a convolution with a loop missing from its filter or output map";
    return failure();
  }
  if (product(shapeOf(c.result)) >= (1LL << 31) || c.K >= (1LL << 31)) {
    why = "a convolution with 2^31 outputs or reduced elements";
    return failure();
  }
  return c;
}

/// The epilogue at the product's element (m, n): the output's indices from
/// the row and column, then the region's outputs stored there.
FailureOr<std::string> writeConvEpilogue(const LinalgRegion &region,
                                         const ConvProduct &c, StringRef acc,
                                         unsigned &counter, std::string &why) {
  SmallVector<std::string> loop;
  std::string text = splitLoops(c, "m", "n", "", loop);
  FailureOr<SmallVector<std::string>> idxC =
      applyIndexingMap(c.mapOut, loop, why);
  if (failed(idxC))
    return failure();
  FailureOr<std::string> body =
      writeEpilogueAt(region, c.init, c.result, *idxC, acc, counter, why);
  if (failed(body))
    return failure();
  return text + *body;
}

/// The last lines of a tensor-core kernel of the fragment layout `t`: the
/// store loop with the epilogue at each accumulator, or the reduction over
/// the output channels.
FailureOr<std::string> writeConvStores(const LinalgRegion &region,
                                       const ConvProduct &c, const MmaTiling &t,
                                       unsigned &counter, std::string &why) {
  if (c.channelReduction)
    return writeChannelReduction(region, c, t, counter, why);
  FailureOr<std::string> epilogue =
      writeConvEpilogue(region, c, "acc[i][j][q]", counter, why);
  if (failed(epilogue))
    return failure();
  return fragmentStores(t, c.M, c.N, *epilogue);
}

/// Fails with the reason where only the tensor-core kernels can write the
/// region (a reduction over the output channels).
LogicalResult needsNoTail(const ConvProduct &c, std::string &why) {
  if (!c.channelReduction)
    return success();
  why = "a reduction over the convolution's output channels is written by "
        "the tensor-core kernels only";
  return failure();
}

std::string accumulatorInit(const LinalgRegion &region, const ConvProduct &c) {
  auto it = region.splats.find(c.init);
  return it == region.splats.end() ? "0.0f" : it->second;
}

/// The convolution as the warp-specialized wgmma kernel's product: no
/// batch (the images are rows), the accumulators from the init's splat, the
/// conv epilogue.
SpecializedProduct specializedConv(const LinalgRegion &region,
                                   const ConvProduct &c) {
  return {{"conv", c.M, c.N},
          "",
          accumulatorInit(region, c),
          [&region, c](StringRef acc, unsigned &counter, std::string &why) {
            return writeConvEpilogue(region, c, acc, counter, why);
          }};
}

/// Depthwise and grouped convolutions, memory-bound: a thread per output
/// element, consecutive threads along the output's innermost dimension,
/// summing over the taps (and the group's channels) in f32; the epilogue
/// runs on the sum before the only store.
FailureOr<Variant> writeConvDirect(const LinalgRegion &region,
                                   const ConvProduct &c, int threads,
                                   std::string &why) {
  if (failed(needsNoTail(c, why)))
    return failure();
  unsigned counter = 0;
  ArrayRef<int64_t> shape = shapeOf(c.result);
  int64_t total = product(shape);
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "conv", threads) + " {\n";
  src += llvm::formatv("  const int o = blockIdx.x * {0} + threadIdx.x;\n"
                       "  if (o >= {1})\n    return;\n",
                       threads, total)
             .str();
  SmallVector<std::string> loop(c.ranges.size(), "0");
  int64_t stride = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    if (shape[i] == 1)
      continue;
    std::string name = "oi" + std::to_string(i);
    std::string q = stride == 1 ? "o" : "o / " + std::to_string(stride);
    stride *= shape[i];
    src += "  const int " + name + " = " +
           (stride == total ? q
                            : "(" + q + ") % " + std::to_string(shape[i])) +
           ";\n";
    loop[c.mapOut.getDimPosition(i)] = name;
  }
  src += llvm::formatv("  float acc = {0};\n{1}  for (int t = 0; t < {2}; "
                       "++t) {{\n",
                       accumulatorInit(region, c),
                       c.K <= 64 ? "#pragma unroll\n" : "", c.K)
             .str();
  std::string body = splitIndex("t", c, c.kDims, "ki", loop);
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  SmallVector<std::string> values;
  for (auto [operand, map] :
       {std::pair(c.input, c.mapIn), std::pair(c.filter, c.mapFilter)}) {
    FailureOr<SmallVector<std::string>> idx = renderMap(map, loop, why);
    if (failed(idx))
      return failure();
    FailureOr<std::string> value = eval.valueAt(operand, *idx, why);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  src += body + "        acc = fmaf(" + values[0] + ", " + values[1] +
         ", acc);\n  }\n";
  FailureOr<SmallVector<std::string>> idxC =
      applyIndexingMap(c.mapOut, loop, why);
  if (failed(idxC))
    return failure();
  FailureOr<std::string> epilogue =
      writeEpilogueAt(region, c.init, c.result, *idxC, "acc", counter, why);
  if (failed(epilogue))
    return failure();
  src += "  {\n" + *epilogue + "  }\n}\n";
  return Variant{"direct-b" + std::to_string(threads),
                 src,
                 {{"conv", {(total + threads - 1) / threads, 1, 1},
                   {threads, 1, 1}}}};
}

FailureOr<Variant> writeConvSimt(const LinalgRegion &region,
                                 const ConvProduct &c, const Tiling &t,
                                 std::string &why) {
  if (failed(needsNoTail(c, why)))
    return failure();
  unsigned counter = 0;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "conv", t.threads()) + " {\n";
  src += tiles::simtSetup(t);
  src += tiles::simtAccumulators(t, accumulatorInit(region, c));
  // The next step's elements are read into registers while the block
  // multiplies the current tiles: their latency hides behind the products.
  std::string prefetch, store;
  for (bool isA : {true, false}) {
    int rows = isA ? t.bm : t.bn, count = rows * t.bk / t.threads();
    std::string regs = isA ? "ra" : "rb";
    bool kFast = fillsAlongK(c, isA);
    FailureOr<std::string> load =
        writeConvTileLoad(region, c, rows, t.bk, t.threads(), isA,
                          "      " + regs + "[p] = x;\n", counter, why);
    if (failed(load))
      return failure();
    src += llvm::formatv("  float {0}[{1}];\n", regs, count).str();
    prefetch += *load;
    store += llvm::formatv(
                 "#pragma unroll\n"
                 "    for (int p = 0; p < {0}; ++p) {{\n"
                 "      const int e = tid + p * {1};\n"
                 "      {2}[{3}][{4}] = {5}[p];\n"
                 "    }\n",
                 count, t.threads(), isA ? "As" : "Bs",
                 kFast ? "e % " + std::to_string(t.bk)
                       : "e / " + std::to_string(rows),
                 kFast ? "e / " + std::to_string(t.bk)
                       : "e % " + std::to_string(rows),
                 regs)
                 .str();
  }
  src += "  {\n    const long long k0 = 0;\n" + prefetch + "  }\n";
  src += tiles::kLoop(c.K, t.bk);
  src += store;
  src += llvm::formatv("    if (k0 + {0} < {1}LL) {{\n"
                       "      const long long next = k0 + {0};\n"
                       "      const long long k0 = next;\n",
                       t.bk, c.K)
             .str() +
         prefetch + "    }\n";
  src += tiles::simtProducts(t);
  return closeProduct({"conv", c.M, c.N}, t, std::move(src),
                      writeConvEpilogue(region, c, "acc[i][j]", counter, why),
                      why);
}

FailureOr<Variant> writeConvMma(const LinalgRegion &region,
                                const ConvProduct &c, const MmaTiling &t,
                                std::string &why) {
  Type type = elementOf(c.input);
  unsigned counter = 0;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "conv", t.threads()) + " {\n";
  src += tiles::mmaSetup(t, getCType(type)->storage);
  src += tiles::mmaAccumulators(t, accumulatorInit(region, c));
  src += tiles::kLoop(c.K, t.bk);
  for (bool isA : {true, false}) {
    FailureOr<std::string> load = writeConvTileLoad(
        region, c, isA ? t.bm : t.bn, t.bk, t.threads(), isA,
        std::string("      ") + (isA ? "As" : "Bs") +
            "[rr][kk] = " + storeAs(type, "x") + ";\n",
        counter, why);
    if (failed(load))
      return failure();
    src += *load;
  }
  src += tiles::mmaProducts(t, type.isBF16() ? "bf16" : "f16");
  return closeFragmentProduct({"conv", c.M, c.N}, t, t.threads(), 0,
                              mmaVariantName(t), std::move(src),
                              writeConvStores(region, c, t, counter, why), why);
}

/// The implicit GEMM on tensor cores for f32 operands (MatmulTf32.h's
/// mainloop): the input's tile gathered by the im2col loader, the filter's
/// copied, `split` TF32 products per f32 product; the epilogue on each
/// accumulator before the only store.
FailureOr<Variant> writeConvTf32(const LinalgRegion &region,
                                 const ConvProduct &c, const Tf32Tiling &tiling,
                                 Tf32Split split, std::string &why,
                                 BlockArgument taps = {}) {
  const Tf32Tiling t = withF32Sums(tiling, c.K, split);
  unsigned counter = 0;
  std::string prologue;
  // The taps loader's tile is not k-major; the filter's is as its loader's.
  int64_t sharedBytes = tf32SharedBytes(t, false, fillsAlongK(c, false));
  FailureOr<Tf32TileLoader> a =
      taps ? convTapsLoader(region, c, t, taps, prologue, sharedBytes, why)
           : convTf32Loader(region, c, t, /*isA=*/true, counter, why);
  if (failed(a))
    return failure();
  FailureOr<Tf32TileLoader> b =
      convTf32Loader(region, c, t, /*isA=*/false, counter, why);
  if (failed(b))
    return failure();
  std::string src =
      getPrelude().str() + getTf32Helpers().str() + "\n" +
      kernelSignature(region, "conv", t.threads(), false, taps ? 2 : 0) +
      " {\n";
  src += llvm::formatv("  const long long m0 = (long long)blockIdx.y * {0};\n"
                       "  const long long n0 = (long long)blockIdx.x * {1};\n",
                       t.bm, t.bn)
             .str();
  src += prologue;
  src += writeTf32Mainloop(t, *a, *b, c.K, accumulatorInit(region, c), split);
  FailureOr<Variant> variant = closeFragmentProduct(
      {"conv", c.M, c.N}, t.mmaTiling(), t.threads(),
      taps ? sharedBytes : tf32SharedBytes(t, a->kMajor, b->kMajor),
      tf32VariantName(t, split), std::move(src),
      writeConvStores(region, c, t.mmaTiling(), counter, why), why);
  if (succeeded(variant) && taps)
    variant->name = "taps-" + variant->name;
  return variant;
}

/// The most workspace a packed convolution takes (its filter and one chunk
/// of im2col rows); larger ones pack and multiply the rows chunk by chunk.
constexpr int64_t kPackedBytes = int64_t(512) << 20;

/// The implicit GEMM with its im2col matrix written out: a pack kernel
/// writes the input's im2col rows (each element read as the element
/// gather reads it, through pads and producers), K padded to whole steps
/// and rows to whole tiles, into the workspace as dense 16-byte aligned
/// rows (the first pack kernel the filter's too), then the 3xTF32 mainloop
/// copies both operands 16 bytes at a time without bounds. Where the rows
/// and the filter take more than kPackedBytes, the rows are packed and
/// multiplied in chunks of whole tiles (kernels packN, convN in turn).
FailureOr<Variant> writeConvPacked(const LinalgRegion &region,
                                   const ConvProduct &c,
                                   const Tf32Tiling &tiling, std::string &why) {
  const Tf32Tiling t = withF32Sums(tiling, c.K, Tf32Split::Three);
  int64_t kp = (c.K + t.bk - 1) / t.bk * t.bk;
  int64_t filterFloats = (c.N + t.bn - 1) / t.bn * t.bn * kp;
  int64_t tiles = (c.M + t.bm - 1) / t.bm;
  int64_t fit = (kPackedBytes / 4 - filterFloats) / (kp * t.bm);
  if (fit < 1) {
    why = "a packed convolution whose filter and one tile of rows take more "
          "than the workspace allows";
    return failure();
  }
  int64_t chunks = (tiles + fit - 1) / fit;
  int64_t chunkTiles = (tiles + chunks - 1) / chunks;
  chunks = (tiles + chunkTiles - 1) / chunkTiles;
  int64_t chunkRows = chunkTiles * t.bm;
  unsigned counter = 0;
  std::string src = getPrelude().str() + getTf32Helpers().str() + "\n";
  Variant variant;
  variant.name = "packed-" + tf32VariantName(t, Tf32Split::Three);
  variant.workspaceBytes = (filterFloats + chunkRows * kp) * 4;
  Tf32TileLoader b = packedLoader(t, false, kp, 0, "n0");
  for (int64_t i = 0; i < chunks; ++i) {
    std::string suffix = chunks > 1 ? std::to_string(i) : "";
    int64_t first = i * chunkRows;
    int64_t rows = std::min(chunkRows, tiles * t.bm - first);
    // The pack kernel: this chunk's rows, the filter with the first.
    int64_t quads = rows * kp / 4 + (i == 0 ? filterFloats / 4 : 0);
    src += kernelSignature(region, "pack" + suffix, 256, true) + " {\n" +
           "  const long long e = (long long)blockIdx.x * 256 + threadIdx.x;\n";
    FailureOr<std::string> packA = writePackRows(
        region, c, true, first, rows, kp, filterFloats, 0, counter, why);
    if (failed(packA))
      return failure();
    src += *packA;
    if (i == 0) {
      FailureOr<std::string> packB =
          writePackRows(region, c, false, 0, filterFloats / kp, kp, 0,
                        rows * kp / 4, counter, why);
      if (failed(packB))
        return failure();
      src += *packB;
    }
    src += "}\n\n";
    variant.launches.push_back(
        {"pack" + suffix, {(quads + 255) / 256, 1, 1}, {256, 1, 1}});
    // The product over this chunk's rows.
    std::string name = "conv" + suffix;
    src += kernelSignature(region, name, t.threads(), true) + " {\n";
    src += llvm::formatv(
               "  const long long m0 = {0}LL + (long long)blockIdx.y * {1};\n"
               "  const long long n0 = (long long)blockIdx.x * {2};\n",
               first, t.bm, t.bn)
               .str();
    Tf32TileLoader a = packedLoader(t, true, kp, filterFloats,
                                    "(m0 - " + std::to_string(first) + "LL)");
    src += writeTf32Mainloop(t, a, b, kp, accumulatorInit(region, c),
                             Tf32Split::Three);
    FailureOr<std::string> stores =
        writeConvStores(region, c, t.mmaTiling(), counter, why);
    if (failed(stores))
      return failure();
    src += *stores + "\n";
    FailureOr<Launch> launch =
        productLaunch({name, rows, c.N}, t.bm, t.bn, t.threads(),
                      tf32SharedBytes(t, true, true), why);
    if (failed(launch))
      return failure();
    variant.launches.push_back(*launch);
  }
  variant.source = std::move(src);
  return variant;
}

/// Whether consecutive rows of the im2col matrix (the innermost row loop,
/// ow) read input elements that are not consecutive: a stride along the
/// input's innermost index, or ow not in it (the element gather's 4-byte
/// copies of a warp then spread over several times their bytes).
bool hasStridedRows(const ConvProduct &c) {
  if (c.mDims.empty())
    return false;
  MLIRContext *ctx = c.mapIn.getContext();
  AffineExpr w = c.mapIn.getResults().back();
  AffineExpr d = getAffineDimExpr(c.mDims.back(), ctx);
  auto step = dyn_cast<AffineConstantExpr>(
      simplifyAffineExpr(w.replace(d, d + 1) - w, c.mapIn.getNumDims(), 0));
  return !step || step.getValue() != 1;
}

/// Convolutions: the tensor-core kernels for f16/bf16 operands or for f32
/// ones (3xTF32, after plain TF32 under precision=tf32), then the exact
/// SIMT kernels, the tile that fills the device best first; depthwise and
/// grouped convolutions: the direct kernel.
class ConvStrategy final : public Strategy {
public:
  StringRef getName() const override { return "conv"; }
  bool readsPads() const override { return true; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    return succeeded(analyzeConv(region, why));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision precision, VariantList &list) const override {
    std::string reason;
    FailureOr<ConvProduct> c = analyzeConv(region, reason);
    if (failed(c)) {
      list.add(failure(), reason);
      return;
    }
    if (c->depth > 1) {
      for (int threads : {256, 128})
        list.add(writeConvDirect(region, *c, threads, reason), reason);
      return;
    }
    bool few = hasFewBigTiles(c->M, c->N, 1, target);
    Type in = elementOf(c->input), filter = elementOf(c->filter);
    bool sm80 = isSm80OrLater(target);
    if (in == filter && (in.isF16() || in.isBF16()) && sm80) {
      // On sm_90 the warp-specialized wgmma kernels first, for NHWC inputs.
      addConvWgmmaVariants(region, *c, specializedConv(region, *c), target,
                           list);
      for (const MmaTiling &t : bestFirst(mmaTilings(), few))
        list.add(writeConvMma(region, *c, t, reason), reason);
    }
    if (in.isF32() && filter.isF32() && sm80) {
      // As the matmul strategy's (MatmulTf32.cpp), 128 x 64 for the few
      // output channels of most convolutions.
      SmallVector<Tf32Tiling> tilings =
          bestFirst<Tf32Tiling>({{128, 128, 16, 3, 2, 4},
                                 {128, 64, 16, 4, 4, 2},
                                 {64, 64, 16, 4, 2, 2}},
                                few);
      // The separable im2col's table loader first (an unpadded NCHW input
      // that the row copies do not take, or a zero pad of one: 942 against
      // 1014 us for the row copies on KernelBench's pad-1 3x3 at batch 16),
      // a 96-column tile too where the output channels are a multiple of
      // 96 and not of 128 (AlexNet's first layer: 128-column tiles would
      // compute a quarter of zeros).
      // A reduction over the channels needs them in one tile: 64 x 128
      // tiles too, twice the blocks of 128 x 128.
      if (c->channelReduction)
        tilings.push_back({64, 128, 16, 4, 2, 4});
      SmallVector<Tf32Tiling> tapTilings;
      if (c->N % 96 == 0 && c->N % 128 != 0)
        tapTilings.push_back({128, 96, 16, 3, 4, 2});
      tapTilings.append(tilings);
      auto addTaps = [&] {
        for (const Tf32Tiling &t : tapTilings)
          if (BlockArgument arg = tapsInput(region, *c, t))
            list.add(
                writeConvTf32(region, *c, t, Tf32Split::Three, reason, arg),
                reason);
      };
      // The im2col matrix packed into the workspace where the element
      // gather would read it (no row copies, no 16-byte copies along k):
      // first where a warp's gathered elements are not consecutive (a
      // stride along W; AlexNet's first layer: 428 against 774 us at best
      // through the table, docs/perf.md), else after the table's kernels
      // (the KernelBench 3x3: 2661 against 1848 us).
      bool packFirst = hasStridedRows(*c);
      if (!packFirst)
        addTaps();
      if (needsGather(region, *c, tapTilings.front()))
        for (const Tf32Tiling &t : ArrayRef(tapTilings).take_front(2))
          list.add(writeConvPacked(region, *c, t, reason), reason);
      if (packFirst)
        addTaps();
      if (precision == Precision::Tf32)
        for (const Tf32Tiling &t : ArrayRef(tilings).take_front(2))
          list.add(writeConvTf32(region, *c, t, Tf32Split::One, reason),
                   reason);
      for (const Tf32Tiling &t : tilings)
        list.add(writeConvTf32(region, *c, t, Tf32Split::Three, reason),
                 reason);
    }
    for (const Tiling &t : bestFirst(simtTilings(), few))
      list.add(writeConvSimt(region, *c, t, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getConvStrategy() {
  static const ConvStrategy strategy;
  return strategy;
}
