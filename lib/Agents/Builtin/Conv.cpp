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
// with 16-byte copies, first where the gathered rows are strided; and, for
// an unpadded input, the gather through a shared table of each reduced
// index's offset plus each thread's row offset. 96 output channels get a
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
// source by cp.async, zero-filling what lies outside it. Reductions after
// the convolution (a min over channels) are not written yet: those regions
// get no candidate and the reason.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "ProductTail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// A convolution generic read as an implicit GEMM.
struct ConvProduct {
  linalg::GenericOp op;
  Value input, filter, init, result;
  AffineMap mapIn, mapFilter, mapOut;
  SmallVector<int64_t> ranges;
  /// Loop dimensions of the rows (batch and output pixels, in the output's
  /// order), the columns (output channels) and the reduction (channels and
  /// taps, in the filter's order), slowest first; extent-1 loops left out.
  SmallVector<unsigned> mDims, nDims, kDims;
  int64_t M = 1, N = 1, K = 1;
  /// The extent of the channels in the input, the filter and the output
  /// (depthwise and grouped convolutions): 1 for an implicit GEMM.
  int64_t depth = 1;
};

/// Whether loop dimension `dim` occurs in `expr`.
bool uses(AffineExpr expr, unsigned dim) {
  bool found = false;
  expr.walk([&](AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      found |= d.getPosition() == dim;
  });
  return found;
}

/// `expr` as a C int expression of the loop indices `dims`: sums and
/// constant multiples of dimensions (out * stride + tap * dilation).
FailureOr<std::string> renderExpr(AffineExpr expr, ArrayRef<std::string> dims,
                                  std::string &why) {
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(c.getValue());
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin || (expr.getKind() != AffineExprKind::Add &&
               expr.getKind() != AffineExprKind::Mul)) {
    why = "a convolution input map with other than sums and products";
    return failure();
  }
  FailureOr<std::string> lhs = renderExpr(bin.getLHS(), dims, why);
  FailureOr<std::string> rhs = renderExpr(bin.getRHS(), dims, why);
  if (failed(lhs) || failed(rhs))
    return failure();
  const char *op = expr.getKind() == AffineExprKind::Add ? " + " : " * ";
  return "(" + *lhs + op + *rhs + ")";
}

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
    if (c.op || !linalg::isaConvolutionOpInterface(g)) {
      why = c.op ? "a reduction after the convolution in the same region (a "
                   "min or sum over its channels) is not written yet"
                 : "a reduction before the convolution in the same region";
      return failure();
    }
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
  // The implicit GEMM and the direct kernel sum input x filter products (casts
  // of either allowed); a generic with a convolution's maps and another body
  // (a pooling's max, a sum of the input alone) is not one of them.
  if (!linalg::detail::isContractionBody(
          *g.getBlock(), [](Operation *mul, Operation *add) {
            return isa<arith::MulFOp>(mul) && isa<arith::AddFOp>(add);
          })) {
    why = "a convolution whose body is not a multiply-add of its input and "
          "filter (a pooling's max or sum) is not written yet";
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
                        [&](AffineExpr e) { return uses(e, d); });
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

/// Statements splitting the int `linear` into the loop indices of `dims`
/// (slowest first) named `prefix`<i>, set in `loop`.
std::string splitIndex(StringRef linear, const ConvProduct &c,
                       ArrayRef<unsigned> dims, StringRef prefix,
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

/// The loop indices of the product's element (row `m`, column `n`, reduced
/// index `k`; null for none) as statements and names.
std::string splitLoops(const ConvProduct &c, StringRef m, StringRef n,
                       StringRef k, SmallVector<std::string> &loop) {
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

/// The operand's indices of `map` at the loop indices `loop`.
FailureOr<SmallVector<std::string>>
renderMap(AffineMap map, ArrayRef<std::string> loop, std::string &why) {
  SmallVector<std::string> idx;
  for (AffineExpr e : map.getResults()) {
    FailureOr<std::string> index = renderExpr(e, loop, why);
    if (failed(index))
      return failure();
    idx.push_back(*index);
  }
  return idx;
}

/// The index of the input (`isA`) or the filter at a tile element (row
/// `r`, reduced index `k`), the statements splitting them appended to
/// `body`.
FailureOr<SmallVector<std::string>> tileElementIndex(const ConvProduct &c,
                                                     bool isA,
                                                     std::string &body,
                                                     std::string &why) {
  SmallVector<std::string> loop;
  body += isA ? splitLoops(c, "r", "", "k", loop)
              : splitLoops(c, "", "r", "k", loop);
  return renderMap(isA ? c.mapIn : c.mapFilter, loop, why);
}

/// Whether the tile of the input (`isA`) or the filter is filled along k:
/// when the operand's innermost index holds only reduced loops (NHWC's
/// channel, FCHW's tap), else along the rows.
bool fillsAlongK(const ConvProduct &c, bool isA) {
  AffineExpr innermost = (isA ? c.mapIn : c.mapFilter).getResults().back();
  return llvm::none_of(isA ? c.mDims : c.nDims,
                       [&](unsigned d) { return uses(innermost, d); });
}

/// The loop filling the shared tile of the input (`isA`, the implicit
/// im2col matrix) or the filter: each element read at the index the
/// operand's map gives, through the region's producers, along the operand's
/// innermost index (fillsAlongK).
FailureOr<std::string> writeConvTileLoad(const LinalgRegion &region,
                                         const ConvProduct &c, int rows,
                                         int bk, int threads, bool isA,
                                         StringRef store, unsigned &counter,
                                         std::string &why) {
  Value operand = isA ? c.input : c.filter;
  bool kFast = fillsAlongK(c, isA);
  std::string body;
  FailureOr<SmallVector<std::string>> index =
      tileElementIndex(c, isA, body, why);
  if (failed(index))
    return failure();
  SmallVector<std::string> idx = std::move(*index);
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  FailureOr<std::string> value = eval.valueAt(operand, idx, why);
  if (failed(value))
    return failure();
  SmallVector<std::string> conds =
      tiles::edgeConds(isA ? c.M : c.N, rows, c.K, bk);
  return tiles::loadLoop(rows, bk, threads, kFast, isA ? "m0" : "n0", conds,
                         body + "        x = " + *value + ";\n", store);
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

std::string accumulatorInit(const LinalgRegion &region, const ConvProduct &c) {
  auto it = region.splats.find(c.init);
  return it == region.splats.end() ? "0.0f" : it->second;
}

/// Depthwise and grouped convolutions, memory-bound: a thread per output
/// element, consecutive threads along the output's innermost dimension,
/// summing over the taps (and the group's channels) in f32; the epilogue
/// runs on the sum before the only store.
FailureOr<Variant> writeConvDirect(const LinalgRegion &region,
                                   const ConvProduct &c, int threads,
                                   std::string &why) {
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
  return closeProduct(
      {"conv", c.M, c.N}, t, std::move(src),
      writeConvEpilogue(region, c, "acc[i][j][q]", counter, why), why);
}

/// The elements one cp.async of the operand (`isA`: the input) copies: 4 or
/// 2 where as many consecutive indices along the tile's contiguous direction
/// (k when `kMajor`, else its rows) are consecutive elements of the operand,
/// aligned to the whole copy, else 1. The direction's fastest loops are a
/// contiguous run of the operand as far as they are its innermost indices,
/// alone, in the same order, each inner one over the operand's whole extent
/// (an FCHW filter's (c, kh, kw): the reduced index is the offset in a
/// filter's row); the run's extent must be a multiple of the width, so that
/// a copy never straddles its end or the tile's edge. A pad of the operand
/// (`pad`) ends the run where it adds anything: then a copy is wholly inside
/// its source or wholly outside.
int copyWidth(const ConvProduct &c, bool isA, bool kMajor,
              const RegionPad *pad) {
  AffineMap map = isA ? c.mapIn : c.mapFilter;
  ArrayRef<unsigned> along = kMajor ? ArrayRef(c.kDims)
                                    : ArrayRef(isA ? c.mDims : c.nDims);
  ArrayRef<int64_t> shape = shapeOf(isA ? c.input : c.filter);
  int64_t runExtent = 1, runShape = 1;
  int pos = int(map.getNumResults()) - 1;
  for (int a = int(along.size()) - 1; a >= 0; --a) {
    unsigned d = along[a];
    // Indices of extent 1 stay 0.
    while (pos >= 0 && shape[pos] == 1)
      --pos;
    // An outer loop continues the run only over inner ones that cover
    // their indices' whole extents.
    if (pos < 0 || runExtent != runShape)
      break;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(pos));
    if (!dim || dim.getPosition() != d ||
        (pad && (pad->low[pos] != 0 || pad->high[pos] != 0)) ||
        llvm::any_of(map.getResults().take_front(pos),
                     [&](AffineExpr e) { return uses(e, d); }))
      break;
    runExtent *= c.ranges[d];
    runShape *= shape[pos];
    --pos;
  }
  for (int width : {4, 2})
    if (runExtent % width == 0 && runShape % width == 0)
      return width;
  return 1;
}

/// The pad of a region input with the value +0.0 that `operand` is, or
/// null: cp.async's zero fill writes its outside.
const RegionPad *zeroPadOfInput(const LinalgRegion &region, Value operand) {
  auto it = region.pads.find(operand);
  if (it == region.pads.end() || !isa<BlockArgument>(it->second.source))
    return nullptr;
  auto pad = operand.getDefiningOp<tensor::PadOp>();
  Value padding = pad ? pad.getConstantPaddingValue() : Value();
  return padding && matchPattern(padding, m_PosZeroFloat()) ? &it->second
                                                             : nullptr;
}

/// The loop dimension along which the im2col tile's rows of the input
/// (region input `arg`, read through `pad` when not null) are consecutive
/// elements of one input row, or none: the innermost row loop (ow) is the
/// input's innermost index at stride 1 (w = ow + kw * dilation - low) and
/// no other index's, its extent a multiple of the `rows`-row tile (a tile's
/// rows are one run of an output row), the input's rows whole 16-byte
/// vectors (W a multiple of 4). NCHW at stride 1 along W.
std::optional<unsigned> rowRunDim(const ConvProduct &c, int rows,
                                  BlockArgument arg) {
  if (c.mDims.empty() || fillsAlongK(c, /*isA=*/true))
    return std::nullopt;
  unsigned ow = c.mDims.back();
  ArrayRef<AffineExpr> results = c.mapIn.getResults();
  if (llvm::any_of(results.drop_back(),
                   [&](AffineExpr e) { return uses(e, ow); }))
    return std::nullopt;
  MLIRContext *ctx = arg.getContext();
  AffineExpr w = results.back();
  AffineExpr d = getAffineDimExpr(ow, ctx);
  AffineExpr step = simplifyAffineExpr(w.replace(d, d + 1) - w,
                                       c.mapIn.getNumDims(), 0);
  auto one = dyn_cast<AffineConstantExpr>(step);
  if (!one || one.getValue() != 1 || c.ranges[ow] % rows != 0 ||
      shapeOf(arg).back() % 4 != 0)
    return std::nullopt;
  return ow;
}

/// The TF32 loader of an NCHW input whose tile rows run along an input row
/// (rowRunDim): each k line of the tile (a channel and tap) is the run of
/// the input row from w0 = ow0 + kw * dilation - low, copied 16 bytes at a
/// time from the 16-byte boundary at or before w0 (sh = w0 & 3 floats
/// before it), one vector more than the tile's rows (the line's padding
/// holds it); sh goes into the line's last float for the fragment reads
/// (Tf32TileLoader::lineShifts). The input's rows are whole vectors, so a
/// copy is wholly inside a row or wholly in its pad (zero-filled), as it is
/// for the other padded dimensions and k past K.
FailureOr<Tf32TileLoader> convRowRunLoader(const ConvProduct &c,
                                           const Tf32Tiling &t,
                                           BlockArgument arg,
                                           const RegionPad *pad,
                                           std::string &why) {
  Tf32TileLoader loader;
  loader.kMajor = false;
  loader.lineShifts = true;
  int perLine = t.bm / 4 + 1, chunks = t.bk * perLine;
  int ld = tf32TileStride(t, /*isA=*/true, /*kMajor=*/false);
  std::string body;
  FailureOr<SmallVector<std::string>> index =
      tileElementIndex(c, /*isA=*/true, body, why);
  if (failed(index))
    return failure();
  SmallVector<std::string> idx = std::move(*index);
  if (pad)
    idx = padSourceIndex(*pad, idx);
  ArrayRef<int64_t> shape = shapeOf(arg);
  std::string w0 = idx.back();
  idx.back() = "wc";
  SmallVector<std::string> conds = tiles::edgeConds(c.M, t.bm, c.K, t.bk);
  if (pad)
    conds.append(padBoundsConds(*pad, idx));
  if (!pad || (pad->low.back() == 0 && pad->high.back() == 0))
    conds.push_back("(unsigned long long)(wc) < " +
                    std::to_string(shape.back()) + "ULL");
  std::string base = "in" + std::to_string(arg.getArgNumber());
  std::string at = base + " + " + linearize(idx, shape);
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(chunks, t.threads());
    text += llvm::formatv(
        "          const int kk = e / {0}, j = e % {0};\n"
        "          const long long r = m0, k = {1} + kk;\n",
        perLine, k0)
                .str();
    text += body;
    text += llvm::formatv(
        "          const int w0 = {0};\n"
        "          const int sh = w0 & 3, wc = w0 - sh + j * 4;\n"
        "          if (j == 0)\n"
        "            ({1})[kk * {2} + {3}] = __int_as_float(sh);\n",
        w0, tile, ld, ld - 1)
                .str();
    std::string dst = tile.str() + " + kk * " + std::to_string(ld) + " + j * 4";
    text += "          const bool full = " + join(conds, " && ") + ";\n" +
            "          ca_cp_async16(" + dst + ", full ? " + at + " : " + base +
            ", full);\n        }\n";
    return text;
  };
  return loader;
}

/// Whether the im2col matrix of the input `arg` (read as it is, no pad)
/// is separable: its offset at row m and reduced index k is rowPart(m) +
/// tapPart(k), each index of the input map a sum of constant multiples of
/// loop dimensions without a constant term (out * stride + tap *
/// dilation), the input under 2^31 elements (a tap's offset is an int).
bool hasSeparableIm2col(const ConvProduct &c, BlockArgument arg) {
  if (product(shapeOf(arg)) >= (1LL << 31))
    return false;
  MLIRContext *ctx = arg.getContext();
  SmallVector<AffineExpr> zeros(c.mapIn.getNumDims(),
                                getAffineConstantExpr(0, ctx));
  for (AffineExpr e : c.mapIn.getResults()) {
    if (!e.isPureAffine())
      return false;
    bool linear = true;
    e.walk([&](AffineExpr sub) {
      linear &= sub.getKind() == AffineExprKind::Add ||
                sub.getKind() == AffineExprKind::Mul ||
                isa<AffineDimExpr, AffineConstantExpr>(sub);
    });
    auto at0 = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(e.replaceDims(zeros), c.mapIn.getNumDims(), 0));
    if (!linear || !at0 || at0.getValue() != 0)
      return false;
  }
  return true;
}

/// The input's offset at the loop indices of the rows (`m` set, the
/// reduced ones 0) or of the reduced index (`k` set, the rows 0), as
/// statements splitting it appended to `body` and the expression.
FailureOr<std::string> im2colPart(const ConvProduct &c, BlockArgument arg,
                                  StringRef m, StringRef k, std::string &body,
                                  std::string &why) {
  SmallVector<std::string> loop;
  body += splitLoops(c, m, "", k, loop);
  FailureOr<SmallVector<std::string>> idx = renderMap(c.mapIn, loop, why);
  if (failed(idx))
    return failure();
  return linearize(*idx, shapeOf(arg));
}

/// The TF32 loader of an unpadded NCHW input whose im2col offsets are
/// separable (hasSeparableIm2col): a block first writes the offset of
/// every reduced index of the reduction (each channel and tap; -1 past K)
/// into a shared table, and each thread the offset of its tile row (the
/// loader's copies give a thread one row when the block's threads are a
/// multiple of the tile's rows); a copy then adds the two, one table read
/// and one 4-byte cp.async per element instead of splitting the row and
/// the reduced index into the loop indices at every copy. The statements
/// before the mainloop go into `prologue`. The table lies in the dynamic
/// shared memory after the mainloop's stages (static shared memory would
/// not count in the plan's shared_bytes, and the launcher would not opt
/// into more than 48 KiB of dynamic for it); `sharedBytes` grows by it.
FailureOr<Tf32TileLoader>
convTapsLoader(const ConvProduct &c, const Tf32Tiling &t, BlockArgument arg,
               std::string &prologue, int64_t &sharedBytes, std::string &why) {
  int threads = t.threads();
  int64_t kPad = (c.K + t.bk - 1) / t.bk * t.bk;
  int64_t tableAt = sharedBytes / 4;
  sharedBytes += kPad * 4;
  std::string rowBody, tapBody;
  FailureOr<std::string> row = im2colPart(c, arg, "r", "", rowBody, why);
  FailureOr<std::string> tap = im2colPart(c, arg, "", "k", tapBody, why);
  if (failed(row) || failed(tap))
    return failure();
  bool rowsWhole = c.M % t.bm == 0;
  prologue += llvm::formatv(
      "  // The input's offset of each reduced index (-1 past K), after the\n"
      "  // mainloop's stages, and of this thread's tile row.\n"
      "  extern __shared__ __align__(16) float ca_smem_taps[];\n"
      "  int *const ca_taps = reinterpret_cast<int *>(ca_smem_taps + {0});\n"
      "  long long aRow;\n"
      "  bool aRowIn;\n"
      "  {{\n"
      "    const long long r = m0 + threadIdx.x % {1};\n",
      tableAt, t.bm);
  prologue +=
      rowBody + "    aRow = " + *row + ";\n" + "    aRowIn = " +
      (rowsWhole ? std::string("true") : "r < " + std::to_string(c.M) + "LL") +
      ";\n  }\n";
  prologue += llvm::formatv("  for (int k = threadIdx.x; k < {0}; k += {1}) "
                            "{{\n",
                            kPad, threads);
  prologue += tapBody + "    ca_taps[k] = k < " + std::to_string(c.K) +
              " ? (int)(" + *tap + ") : -1;\n  }\n  __syncthreads();\n";
  Tf32TileLoader loader;
  loader.kMajor = false;
  int ld = tf32TileStride(t, /*isA=*/true, /*kMajor=*/false);
  std::string base = "in" + std::to_string(arg.getArgNumber());
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(t.bm * t.bk, threads);
    text += llvm::formatv(
        "          const int kk = e / {0};\n"
        "          const int tap = ca_taps[(int)({1}) + kk];\n"
        "          const bool full = tap >= 0{2};\n"
        "          ca_cp_async4({3} + kk * {4} + threadIdx.x % {0}, full ? "
        "{5} + aRow + tap : {5}, full);\n"
        "        }\n",
        t.bm, k0, rowsWhole ? "" : " && aRowIn", tile, ld, base);
    return text;
  };
  return loader;
}

/// The TF32 mainloop's loader of the input (`isA`: the im2col matrix, each
/// element at out * stride + tap * dilation) or the filter, filled along
/// the operand's innermost index (fillsAlongK), zeros past M, N and K: a
/// region input, or a zero pad of one (its source read at the index less
/// the low padding, zeros outside it), is copied by cp.async (copyWidth
/// elements at a time), an operand the region computes is read through its
/// producers (a pad of another value with bounds) and stored.
FailureOr<Tf32TileLoader> convTf32Loader(const LinalgRegion &region,
                                         const ConvProduct &c,
                                         const Tf32Tiling &t, bool isA,
                                         unsigned &counter, std::string &why) {
  Value operand = isA ? c.input : c.filter;
  Tf32TileLoader loader;
  loader.kMajor = fillsAlongK(c, isA);
  bool kMajor = loader.kMajor;
  const RegionPad *pad = zeroPadOfInput(region, operand);
  auto arg = dyn_cast<BlockArgument>(pad ? pad->source : operand);
  if (isA && arg && rowRunDim(c, t.bm, arg))
    return convRowRunLoader(c, t, arg, pad, why);
  int width = arg ? copyWidth(c, isA, kMajor, pad) : 1;
  int rows = isA ? t.bm : t.bn, threads = t.threads();
  int chunksPerLine = (kMajor ? t.bk : rows) / width;
  int chunks = rows * t.bk / width;
  int ld = tf32TileStride(t, isA, kMajor);
  std::string body;
  FailureOr<SmallVector<std::string>> index =
      tileElementIndex(c, isA, body, why);
  if (failed(index))
    return failure();
  SmallVector<std::string> idx = std::move(*index);
  SmallVector<std::string> conds =
      tiles::edgeConds(isA ? c.M : c.N, rows, c.K, t.bk);
  std::string copy;
  if (arg) {
    std::string base = "in" + std::to_string(arg.getArgNumber());
    if (pad) {
      idx = padSourceIndex(*pad, idx);
      conds.append(padBoundsConds(*pad, idx));
    }
    std::string at = base + " + " + linearize(idx, shapeOf(arg));
    std::string call = "ca_cp_async" + std::to_string(width * 4) + "(dst, ";
    copy = conds.empty() ? "          " + call + at + ", true);\n"
                         : "          const bool full = " + join(conds, " && ") +
                               ";\n          " + call + "full ? " + at + " : " +
                               base + ", full);\n";
  } else {
    StatementWriter writer(body, counter);
    ElementEvaluator eval(region, writer);
    FailureOr<std::string> value = eval.valueAt(operand, idx, why);
    if (failed(value))
      return failure();
    body += "        x = " + *value + ";\n";
  }
  std::string first = isA ? "m0" : "n0";
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string line = "e / " + std::to_string(chunksPerLine);
    std::string along = "e % " + std::to_string(chunksPerLine);
    if (width > 1)
      along = "(" + along + ") * " + std::to_string(width);
    std::string text = tf32ChunkLoop(chunks, threads);
    text += llvm::formatv(
        "          const int kk = {0}, rr = {1};\n"
        "          const long long r = {2} + rr, k = {3} + kk;\n"
        "          float *const dst = {4} + {5};\n",
        kMajor ? along : line, kMajor ? line : along, first, k0, tile,
        kMajor ? "rr * " + std::to_string(ld) + " + kk"
               : "kk * " + std::to_string(ld) + " + rr");
    if (!copy.empty())
      return text + body + copy + "        }\n";
    text += "          float x = 0.0f;\n";
    text += (conds.empty() ? "          {\n"
                           : "          if (" + join(conds, " && ") + ") {\n") +
            body + "          }\n          *dst = x;\n        }\n";
    return text;
  };
  return loader;
}

/// The implicit GEMM on tensor cores for f32 operands (MatmulTf32.h's
/// mainloop): the input's tile gathered by the im2col loader, the filter's
/// copied, `split` TF32 products per f32 product; the epilogue on each
/// accumulator before the only store.
FailureOr<Variant> writeConvTf32(const LinalgRegion &region,
                                 const ConvProduct &c, const Tf32Tiling &t,
                                 Tf32Split split, std::string &why,
                                 BlockArgument taps = {}) {
  unsigned counter = 0;
  std::string prologue;
  // The taps loader's tile is not k-major; the filter's is as its loader's.
  int64_t sharedBytes = tf32SharedBytes(t, false, fillsAlongK(c, false));
  FailureOr<Tf32TileLoader> a =
      taps ? convTapsLoader(c, t, taps, prologue, sharedBytes, why)
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
  FailureOr<Variant> variant = closeProduct(
      {"conv", c.M, c.N}, t, split,
      taps ? sharedBytes : tf32SharedBytes(t, a->kMajor, b->kMajor),
      std::move(src),
      writeConvEpilogue(region, c, "acc[i][j][q]", counter, why), why);
  if (succeeded(variant) && taps)
    variant->name = "taps-" + variant->name;
  return variant;
}

/// The most workspace a packed convolution takes (its filter and one chunk
/// of im2col rows); larger ones pack and multiply the rows chunk by chunk.
constexpr int64_t kPackedBytes = int64_t(512) << 20;

/// A packed operand's rows (the input's im2col rows, or the filter's
/// columns) in the workspace: `rows` rows from `first`, `kp` floats each (K
/// padded to whole steps), zeros past the operand's `extent` rows and K.
/// The statements of the pack kernel's thread `e` (a quad of floats, `e` a
/// long long in scope, minus `skip` quads of the operands before it) at
/// float `at` of the workspace.
FailureOr<std::string> writePackRows(const LinalgRegion &region,
                                     const ConvProduct &c, bool isA,
                                     int64_t first, int64_t rows, int64_t kp,
                                     int64_t at, int64_t skip,
                                     unsigned &counter, std::string &why) {
  std::string body;
  FailureOr<SmallVector<std::string>> index =
      tileElementIndex(c, isA, body, why);
  if (failed(index))
    return failure();
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  FailureOr<std::string> value =
      eval.valueAt(isA ? c.input : c.filter, *index, why);
  if (failed(value))
    return failure();
  int64_t quads = kp / 4;
  std::string text = llvm::formatv(
      "  if (e >= {0}LL && e < {1}LL) {{\n"
      "    const long long line = (e - {0}LL) / {2}, k4 = (e - {0}LL) % {2} "
      "* 4;\n"
      "    const long long r = {3}LL + line;\n"
      "    float v[4];\n"
      "#pragma unroll\n"
      "    for (int q = 0; q < 4; ++q) {{\n"
      "      const long long k = k4 + q;\n"
      "      float x = 0.0f;\n"
      "      if (r < {4}LL && k < {5}LL) {{\n",
      skip, skip + rows * quads, quads, first, isA ? c.M : c.N, c.K);
  text +=
      body + "        x = " + *value + ";\n      }\n      v[q] = x;\n    }\n";
  text +=
      llvm::formatv("    *reinterpret_cast<float4 *>(reinterpret_cast<float "
                    "*>(workspace) + {0}LL + line * {1} + k4) = "
                    "make_float4(v[0], v[1], v[2], v[3]);\n  }\n",
                    at, kp);
  return text;
}

/// The loader of a packed operand (writePackRows): 16-byte cp.async copies
/// of the tile's rows from the workspace at float `at` plus `row` rows
/// (a C expression), no bounds.
Tf32TileLoader packedLoader(const Tf32Tiling &t, bool isA, int64_t kp,
                            int64_t at, std::string row) {
  Tf32TileLoader loader;
  loader.kMajor = true;
  int rows = isA ? t.bm : t.bn, threads = t.threads();
  int ld = tf32TileStride(t, isA, /*kMajor=*/true);
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(rows * t.bk / 4, threads);
    text += llvm::formatv(
        "          const int rr = e / {0}, kk = (e % {0}) * 4;\n"
        "          ca_cp_async16({1} + rr * {2} + kk, reinterpret_cast<const "
        "float *>(workspace) + {3}LL + ({4} + rr) * {5}LL + {6} + kk, "
        "true);\n"
        "        }\n",
        t.bk / 4, tile, ld, at, row, kp, k0);
    return text;
  };
  return loader;
}

/// The implicit GEMM with its im2col matrix written out: a pack kernel
/// writes the input's im2col rows (each element read as the element
/// gather reads it, through pads and producers), K padded to whole steps
/// and rows to whole tiles, into the workspace as dense 16-byte aligned
/// rows (the first pack kernel the filter's too), then the 3xTF32 mainloop
/// copies both operands 16 bytes at a time without bounds. Where the rows
/// and the filter take more than kPackedBytes, the rows are packed and
/// multiplied in chunks of whole tiles (kernels packN, convN in turn).
FailureOr<Variant> writeConvPacked(const LinalgRegion &region,
                                   const ConvProduct &c, const Tf32Tiling &t,
                                   std::string &why) {
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
    FailureOr<std::string> epilogue =
        writeConvEpilogue(region, c, "acc[i][j][q]", counter, why);
    if (failed(epilogue))
      return failure();
    src += fragmentStores(t.mmaTiling(), c.M, c.N, *epilogue) + "\n";
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

/// Whether convTf32Loader reads the im2col tiles of tiling `t` element by
/// element (4-byte copies or stores): not the row copies of an NCHW input
/// nor the 16-byte copies of NHWC channels.
bool needsGather(const LinalgRegion &region, const ConvProduct &c,
                 const Tf32Tiling &t) {
  const RegionPad *pad = zeroPadOfInput(region, c.input);
  auto arg = dyn_cast<BlockArgument>(pad ? pad->source : c.input);
  if (!arg)
    return true;
  if (rowRunDim(c, t.bm, arg))
    return false;
  return copyWidth(c, true, fillsAlongK(c, true), pad) == 1;
}

/// The region input whose im2col tiles convTapsLoader can copy, or null:
/// an unpadded NCHW input (its tile rows contiguous, not k) with separable
/// offsets, outside rowRunDim's row copies at tiling `t`, the block's
/// threads a multiple of the tile's rows.
BlockArgument tapsInput(const LinalgRegion &region, const ConvProduct &c,
                        const Tf32Tiling &t) {
  auto arg = dyn_cast<BlockArgument>(c.input);
  if (!arg || region.pads.count(c.input) || fillsAlongK(c, /*isA=*/true) ||
      t.threads() % t.bm != 0 || rowRunDim(c, t.bm, arg) ||
      !hasSeparableIm2col(c, arg))
    return {};
  return arg;
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
    if (in == filter && (in.isF16() || in.isBF16()) && sm80)
      for (const MmaTiling &t : bestFirst(mmaTilings(), few))
        list.add(writeConvMma(region, *c, t, reason), reason);
    if (in.isF32() && filter.isF32() && sm80) {
      // As the matmul strategy's (MatmulTf32.cpp), 128 x 64 for the few
      // output channels of most convolutions.
      SmallVector<Tf32Tiling> tilings =
          bestFirst<Tf32Tiling>({{128, 128, 16, 3, 2, 4},
                                 {128, 64, 16, 4, 4, 2},
                                 {64, 64, 16, 4, 2, 2}},
                                few);
      // The separable im2col's table loader first (an unpadded NCHW input
      // that the row copies do not take), a 96-column tile too where the
      // output channels are a multiple of 96 and not of 128 (AlexNet's
      // first layer: 128-column tiles would compute a quarter of zeros).
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
