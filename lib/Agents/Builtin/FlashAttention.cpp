//===- FlashAttention.cpp - Attention a block of queries at a time --------===//
//
// An attention region (cuda-agent/Outline/AttentionChains.h): scores
// S = Q K^T through elementwise ops (scales, masks) to X, a softmax over the
// keys written as a max of X, E = exp(X - max), a sum of E and
// probabilities P that are E times values per row (a division by the sum,
// a guard that zeroes a row whose max is -inf), and O = P V. The kernel
// (Dao et al., 2022, "FlashAttention") keeps S and P out of memory: each
// block of four or eight warps takes 64 or 128 queries (16 rows a warp),
// stages their Q in shared memory and streams the keys 64 at a time; a step
// computes the warp's 16 x 64 scores with mma.sync 3xTF32 (MatmulTf32.h's
// helpers; each value split into its TF32 parts by its bits, ca_tf32_split;
// each 8 of the head dimension summed apart and added in f32), evaluates X
// from each score through the region's ops, updates the rows' running max
// and sum (online softmax, OnlineSoftmax.cpp: the sums and the output
// rescaled when the max grows) and adds E V to the output rows, again on
// the tensor cores: the scores' accumulators are the A fragments of the
// second product, its keys taken in the order the accumulators hold them
// (a thread's columns 2t and 2t + 1 as the fragment's k = t and t + 4, V's
// rows read in the same order). Each step's E V is summed apart and added
// to the output in f32 (no accumulator over more than 64 keys). At the end
// the output rows are P's ops applied to the sum of E V: P is linear in E
// (checked: products and quotients by values per row, sums, selects of it
// and zero), so that is the sum of P V; then the second product's
// epilogue.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "Matmul.h"
#include "MatmulTf32.h"
#include "Rows.h"

#include "cuda-agent/Outline/AttentionChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The keys a step streams.
constexpr int kKeys = 64;

/// A flash kernel's shape: `warps` warps a block, 16 queries each, and
/// whether its tiles are read four floats a load where they can be.
/// With `stages` 2, the key and value tiles of the next step are copied
/// by cp.async into a second buffer while the block computes the current
/// one (region inputs read as they are only). With `splitTiles`, the key
/// and value tiles are stored in shared memory as their two TF32 parts,
/// split once as they are loaded instead of by every warp that reads them.
/// With `minBlocks`, the registers are bounded so that that many blocks
/// share an SM (spilling a few where they must).
struct FlashTiling {
  int warps;
  bool vectorLoads;
  int stages = 1;
  bool splitTiles = false;
  int minBlocks = 0;
  /// The scores' values split into three TF32 parts and six products
  /// summed (exact to about f32's own rounding) instead of two parts and
  /// three products; their tiles not stored split.
  bool sixProducts = false;
  int queries() const { return 16 * warps; }
  int threads() const { return 32 * warps; }
};

/// An attention region read from its ops.
struct Attention {
  Contraction scores, output;
  AttentionSoftmax softmax;
  Value probabilities;
  /// The reshape between the scores and X, and between P and the second
  /// product's operand, where there are.
  Operation *scoreView = nullptr, *probabilityView = nullptr;
  /// Indices of the scores' result (C names `qm`, `kn` and the batch
  /// indices) and of X and P at the same element.
  SmallVector<std::string> scoreIndices, rowIndices;
};

/// The indices of the expanded side of `view` (an expand or collapse shape)
/// at the element whose indices on its collapsed side are `idx`.
SmallVector<std::string> expandedIndices(Operation *view,
                                         ArrayRef<std::string> idx) {
  SmallVector<ReassociationIndices> groups;
  ArrayRef<int64_t> expanded;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(view)) {
    groups = expand.getReassociationIndices();
    expanded = expand.getResultType().getShape();
  } else {
    auto collapse = cast<tensor::CollapseShapeOp>(view);
    groups = collapse.getReassociationIndices();
    expanded = collapse.getSrcType().getShape();
  }
  SmallVector<std::string> out;
  for (auto [group, index] : llvm::zip(groups, idx)) {
    if (group.size() == 1) {
      out.push_back(index);
      continue;
    }
    SmallVector<int64_t> extents;
    for (int64_t d : group)
      extents.push_back(expanded[d]);
    llvm::append_range(out, delinearize(index, extents));
  }
  return out;
}

/// Reads the region as an attention, or says why it is not one the kernel
/// covers.
FailureOr<Attention> analyzeAttention(const LinalgRegion &region,
                                      std::string &why) {
  Attention a;
  SmallVector<linalg::GenericOp> products, reductions;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    if (linalg::isaContractionOpInterface(g))
      products.push_back(g);
    else
      reductions.push_back(g);
  }
  if (products.size() != 2) {
    why.clear(); // another strategy's class
    return failure();
  }
  FailureOr<Contraction> scores = analyzeContractionOp(products[0], why);
  if (failed(scores))
    return failure();
  FailureOr<Contraction> output = analyzeContractionOp(products[1], why);
  if (failed(output))
    return failure();
  a.scores = *scores;
  a.output = *output;
  for (Value v : {a.scores.a, a.scores.b, a.scores.result, a.output.b,
                  a.output.result})
    if (!elementOf(v).isF32()) {
      why = "an attention of other than f32 tensors";
      return failure();
    }
  if (!isAttentionHeadDim(a.scores.K) || !isAttentionHeadDim(a.output.N)) {
    why = "a head dimension that is not a multiple of " +
          std::to_string(kAttentionHeadDimStep) + " up to " +
          std::to_string(kMaxAttentionHeadDim);
    return failure();
  }
  if (a.scores.N != a.output.K || a.scores.M != a.output.M ||
      a.scores.batch.size() != a.output.batch.size() ||
      a.scores.batches != a.output.batches) {
    why = "the second product does not reduce over the scores' keys";
    return failure();
  }
  for (auto [d1, d2] : llvm::zip(a.scores.batch, a.output.batch))
    if (a.scores.ranges[d1] != a.output.ranges[d2]) {
      why = "the products' batches differ";
      return failure();
    }
  if (!a.scores.initIsSplat(region) || !a.output.initIsSplat(region)) {
    why = "a product that does not start from one value";
    return failure();
  }
  // The reshapes: the scores' expansion and the probabilities' collapse.
  for (Operation *view : region.views) {
    if (isa<tensor::ExpandShapeOp>(view) && !a.scoreView)
      a.scoreView = view;
    else if (isa<tensor::CollapseShapeOp>(view) && !a.probabilityView)
      a.probabilityView = view;
    else {
      why = "a reshape other than the scores' and the probabilities'";
      return failure();
    }
  }
  // Where X and P are read: the scores' element, through the reshapes.
  FailureOr<SmallVector<std::string>> idxS = applyIndexingMap(
      a.scores.mapC, a.scores.loopDims("qm", "kn", "0"), why);
  FailureOr<SmallVector<std::string>> idxA = applyIndexingMap(
      a.output.mapA, a.output.loopDims("qm", "0", "kn"), why);
  if (failed(idxS) || failed(idxA))
    return failure();
  a.scoreIndices = *idxS;
  a.rowIndices =
      a.scoreView ? expandedIndices(a.scoreView, *idxS) : *idxS;
  SmallVector<std::string> idxP =
      a.probabilityView ? expandedIndices(a.probabilityView, *idxA) : *idxA;
  a.probabilities = a.probabilityView ? a.probabilityView->getOperand(0)
                                      : a.output.a;
  if (idxP != a.rowIndices ||
      (a.probabilityView && a.probabilityView->getResult(0) != a.output.a)) {
    why = "the second product does not read the probabilities at the "
          "scores' element";
    return failure();
  }
  FailureOr<AttentionSoftmax> softmax =
      analyzeAttentionSoftmax(reductions, a.probabilities, why);
  if (failed(softmax))
    return failure();
  a.softmax = *softmax;
  if (shapeOf(a.softmax.x) != shapeOf(a.probabilities) ||
      a.rowIndices.size() != shapeOf(a.softmax.x).size()) {
    why = "the softmax is not over the scores";
    return failure();
  }
  if (region.outputs.size() != 1) {
    why = "an attention region with more than one output";
    return failure();
  }
  return a;
}

/// The statements evaluating X at the scores' element from the product
/// `acc` (f32, started from the product's init) into `x`.
FailureOr<std::string> writeScoreValue(const LinalgRegion &region,
                                       const Attention &a, unsigned &counter,
                                       std::string &x, std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  if (failed(bindProductAt(eval, region, a.scores.init, a.scores.result,
                           a.scoreIndices, "acc", why)))
    return failure();
  if (a.scoreView) {
    FailureOr<std::string> source =
        eval.valueAt(a.scoreView->getOperand(0), a.scoreIndices, why);
    if (failed(source))
      return failure();
    eval.knownAt[a.scoreView->getResult(0)] = {a.rowIndices, *source};
  }
  FailureOr<std::string> value = eval.valueAt(a.softmax.x, a.rowIndices, why);
  if (failed(value))
    return failure();
  x = *value;
  return body;
}

/// The statements storing the output at (qm, d): P's ops applied to the
/// row's sum of E V `acc` (the maxima `m`, the sum `l`), then the second
/// product's epilogue.
FailureOr<std::string> writeOutputValue(const LinalgRegion &region,
                                        const Attention &a, unsigned &counter,
                                        std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  for (linalg::GenericOp max : a.softmax.maxima)
    eval.known[max.getResult(0)] = "m";
  eval.known[linalg::GenericOp(a.softmax.sum).getResult(0)] = "l";
  eval.knownAt[a.softmax.e] = {a.rowIndices, "acc"};
  FailureOr<std::string> p = eval.valueAt(a.probabilities, a.rowIndices, why);
  if (failed(p))
    return failure();
  FailureOr<SmallVector<std::string>> idxO = applyIndexingMap(
      a.output.mapC, a.output.loopDims("qm", "d", "0"), why);
  if (failed(idxO))
    return failure();
  std::string sum =
      writer.bind("float", region.splats.lookup(a.output.init) + " + " + *p);
  FailureOr<std::string> stores =
      writeEpilogueAt(region, a.output.init, a.output.result, *idxO, sum,
                      counter, why);
  if (failed(stores))
    return failure();
  return body + *stores;
}

/// The loop filling a shared tile of `rows` x `cols` floats (stride `ld`)
/// with operand A (`isA`) or B of `c`: tile row rr is the operand's row (or
/// column) r = `row0` + rr and tile column cc its reduced index k = cc, or,
/// with `reducedRows`, rr is k = `row0` + rr and cc is r; rows past
/// `extent` are zeros. Four columns a load where the operand is a region
/// input whose innermost index is the tile's column and whose rows are
/// whole 16-byte vectors; through the region's producers one element at a
/// time otherwise.
FailureOr<std::string> writeTileLoad(const LinalgRegion &region,
                                     const Contraction &c, bool isA,
                                     bool reducedRows, StringRef tile,
                                     int rows, int64_t cols, int ld,
                                     StringRef row0, int64_t extent,
                                     const FlashTiling &t, unsigned &counter,
                                     std::string &why, bool async = false,
                                     bool split = false) {
  StringRef rowVar = reducedRows ? "k" : "r", colVar = reducedRows ? "r" : "k";
  Value operand = isA ? c.a : c.b;
  AffineMap map = isA ? c.mapA : c.mapB;
  unsigned colDim = reducedRows ? (isA ? c.m : c.n) : c.k;
  auto arg = dyn_cast<BlockArgument>(operand);
  // The operands are f32 (analyzeAttention) and the strategy sees no pads
  // (readsPads).
  bool vector = t.vectorLoads && arg && c.isInnermost(operand, map, colDim) &&
                shapeOf(operand).back() % 4 == 0;
  if (async && !vector) {
    why = "a tile that cp.async cannot copy as it lies (computed, or rows "
          "that are not whole 16-byte vectors)";
    return failure();
  }
  int width = vector ? 4 : 1;
  std::string text = llvm::formatv(
      "  for (int e = tid; e < {0}; e += {1}) {{\n"
      "    const int rr = e / {2}, cc = e % {2} * {3};\n"
      "    const long long {4} = {5} + rr, {6} = cc;\n",
      rows * cols / width, t.threads(), cols / width, width, rowVar, row0,
      colVar).str();
  if (vector) {
    FailureOr<SmallVector<std::string>> idx = c.tileOperandIndices(isA, why);
    if (failed(idx))
      return failure();
    if (async)
      return text + llvm::formatv(
                        "    const bool full = {0} < {1}LL;\n"
                        "    ca_cp_async16({2} + rr * {3} + cc, full ? in{4} + "
                        "{5} : in{4}, full);\n  }\n",
                        rowVar, extent, tile, ld, arg.getArgNumber(),
                        linearize(*idx, shapeOf(operand)))
                        .str();
    text += llvm::formatv(
        "    float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n"
        "    if ({0} < {1}LL)\n"
        "      x = *reinterpret_cast<const float4 *>(in{2} + {3});\n",
        rowVar, extent, arg.getArgNumber(),
        linearize(*idx, shapeOf(operand))).str();
    if (!split)
      return text + llvm::formatv("    *reinterpret_cast<float4 *>({0} + rr "
                                  "* {1} + cc) = x;\n  }\n",
                                  tile, ld)
                        .str();
    return text + llvm::formatv(
                      "    const uint2 p0 = ca_tf32_split(x.x), p1 = "
                      "ca_tf32_split(x.y);\n"
                      "    const uint2 p2 = ca_tf32_split(x.z), p3 = "
                      "ca_tf32_split(x.w);\n"
                      "    uint4 *const to = reinterpret_cast<uint4 *>({0} + "
                      "rr * {1} + cc);\n"
                      "    to[0] = uint4{{p0.x, p0.y, p1.x, p1.y};\n"
                      "    to[1] = uint4{{p2.x, p2.y, p3.x, p3.y};\n  }\n",
                      tile, ld)
                      .str();
  }
  std::string value;
  FailureOr<std::string> statements =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(statements))
    return failure();
  text += llvm::formatv("    float x = 0.0f;\n"
                        "    if ({0} < {1}LL) {{\n{2}      x = {3};\n    }\n"
                        "    {4}[rr * {5} + cc] = {6};\n  }\n",
                        rowVar, extent, *statements, value, tile, ld,
                        split ? "ca_tf32_split(x)" : "x")
              .str();
  return text;
}

/// The split of an f32 value into two TF32 parts, big + small, each rounded
/// to nearest with ties away from zero as cvt.rna.tf32.f32 rounds a finite
/// value (infinities kept), by the bits: no branch, no conversion.
constexpr StringLiteral kTf32Split = R"cuda(
__device__ __forceinline__ uint2 ca_tf32_split(float x) {
  uint2 p;
  p.x = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
  p.y = (__float_as_uint(x - __uint_as_float(p.x)) + 0x1000u) & 0xffffe000u;
  return p;
}
__device__ __forceinline__ void ca_tf32_split3(float x, unsigned *p) {
  const uint2 h = ca_tf32_split(x);
  const float rest = x - __uint_as_float(h.x) - __uint_as_float(h.y);
  p[0] = h.x;
  p[1] = h.y;
  p[2] = (__float_as_uint(rest) + 0x1000u) & 0xffffe000u;
}
)cuda";

/// The 3xTF32 products of one warp's 16 rows into `acc[j]`, j < `tiles`:
/// the A fragment's values x0..x3 (set by `aValues`) split; tile j's B
/// values `y0` and `y1` split, or read split where `bSplit`; small x big,
/// big x small, then big x big (small x small dropped). With `apart`, the
/// three are summed by the tensor cores in a fresh accumulator that is
/// added to acc[j] in f32: their sum truncates, so a long chain of them
/// drifts (docs/perf.md, twenty-ninth session).
std::string tf32Step(StringRef aValues, int tiles, StringRef y0, StringRef y1,
                     bool bSplit, StringRef acc, bool apart,
                     bool six = false) {
  std::string target = apart ? "t" : (acc + "[j]").str();
  // (A part, B part) of each product, smallest first; six: each value in
  // three parts, the products of weight 2^-22 or more kept.
  SmallVector<std::pair<int, int>> pairs =
      six ? SmallVector<std::pair<int, int>>{{2, 0}, {1, 1}, {0, 2},
                                             {1, 0}, {0, 1}, {0, 0}}
          : SmallVector<std::pair<int, int>>{{1, 0}, {0, 1}, {0, 0}};
  std::string products;
  for (auto [pa, pb] : pairs)
    products += llvm::formatv("        ca_mma_tf32({0}, a[{1}], b[{2}]);\n",
                              target, pa, pb)
                    .str();
  if (apart)
    products = "        float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n" +
               products +
               llvm::formatv("#pragma unroll\n"
                             "        for (int q = 0; q < 4; ++q)\n"
                             "          {0}[j][q] += t[q];\n",
                             acc)
                   .str();
  if (six)
    return llvm::formatv(
               "{{\n{0}"
               "      unsigned a[3][4];\n"
               "      const float xs[4] = {{x0, x1, x2, x3};\n"
               "#pragma unroll\n"
               "      for (int q = 0; q < 4; ++q) {{\n"
               "        unsigned p[3];\n"
               "        ca_tf32_split3(xs[q], p);\n"
               "        a[0][q] = p[0];\n"
               "        a[1][q] = p[1];\n"
               "        a[2][q] = p[2];\n"
               "      }\n"
               "#pragma unroll\n"
               "      for (int j = 0; j < {1}; ++j) {{\n"
               "        unsigned p0[3], p1[3];\n"
               "        ca_tf32_split3({2}, p0);\n"
               "        ca_tf32_split3({3}, p1);\n"
               "        const unsigned b[3][2] = {{{{p0[0], p1[0]}, {{p0[1], "
               "p1[1]}, {{p0[2], p1[2]}};\n"
               "{4}"
               "      }\n"
               "    }\n",
               aValues, tiles, y0, y1, products)
        .str();
  StringRef split = bSplit ? "" : "ca_tf32_split";
  return llvm::formatv(
             "{{\n{0}"
             "      unsigned a[2][4];\n"
             "      const float xs[4] = {{x0, x1, x2, x3};\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const uint2 p = ca_tf32_split(xs[q]);\n"
             "        a[0][q] = p.x;\n"
             "        a[1][q] = p.y;\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int j = 0; j < {1}; ++j) {{\n"
             "        const uint2 p0 = {2}({3}), p1 = {2}({4});\n"
             "        const unsigned b[2][2] = {{{{p0.x, p1.x}, {{p0.y, "
             "p1.y}};\n"
             "{5}"
             "      }\n"
             "    }\n",
             aValues, tiles, split, y0, y1, products)
      .str();
}

FailureOr<Variant> writeFlashAttention(const LinalgRegion &region,
                                       const Attention &a, const FlashTiling &t,
                                       std::string &why) {
  const Contraction &s = a.scores, &o = a.output;
  int64_t dk = s.K, dv = o.N, queries = s.M, keys = s.N;
  // Row strides (in tile elements) at which a warp's fragment reads hit
  // 32 banks: K's rows are read at g and k = tig, V's at k = 2 tig and g;
  // a split value is 8 bytes, read in two half-warps.
  bool split = t.splitTiles;
  int ldk = int(dk) + 4, ldv = int(dv) + (split ? 2 : 4);
  int vTiles = int(dv / 8);
  unsigned counter = 0;
  std::string x;
  FailureOr<std::string> qLoad =
      writeTileLoad(region, s, true, false, "Qs", t.queries(), dk, ldk, "m0",
                    queries, t, counter, why);
  // Two stages: the tiles of the step at `nNext` into buffer `next`.
  bool async = t.stages == 2;
  // cp.async copies the tiles as they lie, and the six products split the
  // key tile's values themselves: neither reads split tiles.
  assert(!(split && (async || t.sixProducts)) &&
         "split tiles with two stages or six products");
  StringRef kTile = async ? "Kb[next]" : "Ks", vTile = async ? "Vb[next]" : "Vs";
  StringRef keyRow = async ? "nNext" : "n0";
  FailureOr<std::string> kLoad =
      writeTileLoad(region, s, false, false, kTile, kKeys, dk, ldk, keyRow,
                    keys, t, counter, why, async, split);
  // V's tile is [key][d]: its rows are the second product's reduced index.
  FailureOr<std::string> vLoad =
      writeTileLoad(region, o, false, true, vTile, kKeys, dv, ldv, keyRow,
                    keys, t, counter, why, async, split);
  if (failed(qLoad) || failed(kLoad) || failed(vLoad))
    return failure();
  FailureOr<std::string> score =
      writeScoreValue(region, a, counter, x, why);
  if (failed(score))
    return failure();
  FailureOr<std::string> store = writeOutputValue(region, a, counter, why);
  if (failed(store))
    return failure();
  Block &maxBody =
      linalg::GenericOp(a.softmax.maxima.front()).getRegion().front();
  FailureOr<Combiner> maxOf = findCombiner(maxBody, maxBody.getArgument(1), why);
  if (failed(maxOf))
    return failure();

  std::string src = getPrelude().str() + getTf32Helpers().str() +
                    kTf32Split.str() + "\n" +
                    kernelSignature(region, "attention", t.threads(), false,
                                    t.minBlocks) +
                    " {\n";
  src += llvm::formatv(
             "  extern __shared__ __align__(16) unsigned char ca_smem[];\n"
             "  float *const Qs = reinterpret_cast<float *>(ca_smem);\n"
             "  const int tid = threadIdx.x, lane = tid % 32, warp = tid / "
             "32;\n"
             "  const int g = lane / 4, tig = lane % 4;\n"
             "  const long long m0 = (long long)blockIdx.x * {0};\n"
             "  const float ninf = {1};\n",
             t.queries(), maxOf->identity)
             .str();
  // Shared memory in 4-byte words: a split value takes two.
  int64_t words = split ? 2 : 1;
  int64_t kFloats = kKeys * ldk * words, vFloats = kKeys * ldv * words;
  if (async)
    src += llvm::formatv("  float *const Kb[2] = {{Qs + {0}, Qs + {1}};\n"
                         "  float *const Vb[2] = {{Qs + {2}, Qs + {3}};\n",
                         t.queries() * ldk, t.queries() * ldk + kFloats,
                         t.queries() * ldk + 2 * kFloats,
                         t.queries() * ldk + 2 * kFloats + vFloats)
               .str();
  else
    src += llvm::formatv("  {0} *const Ks = reinterpret_cast<{0} *>(Qs + "
                         "{1});\n"
                         "  {0} *const Vs = Ks + {2};\n",
                         split ? "uint2" : "float", t.queries() * ldk,
                         kKeys * ldk)
               .str();
  src += s.batchIndices();
  src += "  // The block's queries.\n" + *qLoad;
  src += llvm::formatv(
             "  float mRow[2] = {{ninf, ninf}, lRow[2] = {{0.0f, "
             "0.0f};\n"
             "  float out[{0}][4];\n"
             "#pragma unroll\n"
             "  for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "    for (int q = 0; q < 4; ++q)\n"
             "      out[j][q] = 0.0f;\n",
             vTiles)
             .str();
  int64_t steps = (keys + kKeys - 1) / kKeys;
  if (async) {
    // The first step's tiles, then each step copies the next one's while
    // it computes; a barrier after each step frees its buffer.
    src += "  {\n    const int next = 0;\n    const long long nNext = 0;\n" +
           indent(*kLoad) + indent(*vLoad) +
           "  }\n  ca_cp_async_commit();\n";
    src += llvm::formatv(
               "  for (int step = 0; step < {0}; ++step) {{\n"
               "    const long long n0 = (long long)step * {1};\n"
               "    if (step + 1 < {0}) {{\n"
               "      const int next = (step + 1) % 2;\n"
               "      const long long nNext = n0 + {1};\n",
               steps, kKeys)
               .str() +
           indent(indent(*kLoad)) + indent(indent(*vLoad)) +
           "    }\n    ca_cp_async_commit();\n"
           "    ca_cp_async_wait<1>();\n    __syncthreads();\n"
           "    const float *const Ks = Kb[step % 2];\n"
           "    const float *const Vs = Vb[step % 2];\n";
  } else {
    src += llvm::formatv("  for (long long n0 = 0; n0 < {0}LL; n0 += {1}) {{\n"
                         "    __syncthreads();\n",
                         keys, kKeys)
               .str() +
           indent(*kLoad) + indent(*vLoad) + "    __syncthreads();\n";
  }
  // The warp's scores: 16 query rows x the step's 64 keys.
  src += llvm::formatv("    float sc[{0}][4];\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        sc[j][q] = {1};\n"
                       "    const int row = warp * 16 + g;\n"
                       "#pragma unroll\n"
                       "    for (int kk = 0; kk < {2}; kk += 8) ",
                       kKeys / 8, region.splats.lookup(s.init), dk)
             .str();
  src += tf32Step(llvm::formatv("      const float x0 = Qs[row * {0} + kk + "
                                "tig], x1 = Qs[(row + 8) * {0} + kk + tig];\n"
                                "      const float x2 = Qs[row * {0} + kk + "
                                "tig + 4], x3 = Qs[(row + 8) * {0} + kk + tig "
                                "+ 4];\n",
                                ldk)
                      .str(),
                  kKeys / 8,
                  llvm::formatv("Ks[(j * 8 + g) * {0} + kk + tig]", ldk).str(),
                  llvm::formatv("Ks[(j * 8 + g) * {0} + kk + tig + 4]", ldk)
                      .str(),
                  split, "sc", /*apart=*/true, t.sixProducts);
  // X at each score (-inf past the keys), the rows' max over the step.
  src += llvm::formatv(
             "    float stepMax[2] = {{ninf, ninf};\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const long long qm = min(m0 + row + (q / 2) * 8, "
             "{1}LL);\n"
             "        const long long kn0 = n0 + j * 8 + 2 * tig + q % 2;\n"
             "        const long long kn = min(kn0, {2}LL);\n"
             "        const float acc = sc[j][q];\n",
             kKeys / 8, queries - 1, keys - 1)
             .str();
  src += indent(indent(indent(*score)));
  src += llvm::formatv("        sc[j][q] = kn0 < {0}LL ? {1} : ninf;\n"
                       "        stepMax[q / 2] = {2};\n"
                       "      }\n",
                       keys, x, maxOf->combine("stepMax[q / 2]", "sc[j][q]"))
             .str();
  // The running max and sum: E at the new max, the old sums rescaled.
  src += llvm::formatv(
             "    float alpha[2];\n"
             "#pragma unroll\n"
             "    for (int r = 0; r < 2; ++r) {{\n"
             "      float mx = stepMax[r];\n"
             "      mx = {0};\n"
             "      mx = {1};\n"
             "      const float mNew = {2};\n"
             "      alpha[r] = mNew == ninf ? 1.0f : expf(mRow[r] - "
             "mNew);\n"
             "      mRow[r] = mNew;\n"
             "      lRow[r] *= alpha[r];\n"
             "    }\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {3}; ++j)\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const float m = mRow[q / 2];\n"
             "        sc[j][q] = m == ninf ? 0.0f : expf(sc[j][q] - m);\n"
             "        lRow[q / 2] += sc[j][q];\n"
             "      }\n",
             maxOf->combine("mx", "__shfl_xor_sync(0xffffffffu, mx, 1)"),
             maxOf->combine("mx", "__shfl_xor_sync(0xffffffffu, mx, 2)"),
             maxOf->combine("mRow[r]", "mx"), kKeys / 8)
             .str();
  // E V on the tensor cores: the scores' accumulators as A fragments, the
  // keys in their order (k = tig is key 2 tig, k = tig + 4 key 2 tig + 1).
  src += llvm::formatv("    float part[{0}][4];\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        part[j][q] = 0.0f;\n"
                       "#pragma unroll\n"
                       "    for (int kt = 0; kt < {1}; ++kt) ",
                       vTiles, kKeys / 8)
             .str();
  src += tf32Step("      const float x0 = sc[kt][0], x1 = sc[kt][2], x2 = "
                  "sc[kt][1], x3 = sc[kt][3];\n",
                  vTiles,
                  llvm::formatv("Vs[(kt * 8 + 2 * tig) * {0} + j * 8 + g]", ldv)
                      .str(),
                  llvm::formatv("Vs[(kt * 8 + 2 * tig + 1) * {0} + j * 8 + g]",
                                ldv)
                      .str(),
                  split, "part", /*apart=*/false);
  src += llvm::formatv("#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        out[j][q] = out[j][q] * alpha[q / 2] + "
                       "part[j][q];\n",
                       vTiles)
             .str();
  src += async ? "    __syncthreads();\n  }\n" : "  }\n";
  // The rows' sums over their quad of threads, then the outputs.
  src += llvm::formatv(
             "#pragma unroll\n"
             "  for (int r = 0; r < 2; ++r) {{\n"
             "    lRow[r] += __shfl_xor_sync(0xffffffffu, lRow[r], 1);\n"
             "    lRow[r] += __shfl_xor_sync(0xffffffffu, lRow[r], 2);\n"
             "  }\n"
             "#pragma unroll\n"
             "  for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "    for (int q = 0; q < 4; ++q) {{\n"
             "      const long long qm = m0 + warp * 16 + g + (q / 2) * 8;\n"
             "      if (qm >= {1}LL)\n"
             "        continue;\n"
             "      const long long d = j * 8 + 2 * tig + q % 2;\n"
             "      const float m = mRow[q / 2], l = lRow[q / 2], acc = "
             "out[j][q];\n",
             vTiles, queries)
             .str();
  src += indent(indent(*store));
  src += "    }\n}\n";
  int64_t shared = int64_t(sizeof(float)) *
                   (t.queries() * ldk + t.stages * (kFloats + vFloats));
  Variant variant{llvm::formatv("flash-{6}xtf32-q{0}-k{1}{2}{3}{4}{5}",
                                t.queries(), kKeys,
                                t.vectorLoads ? "-v4" : "",
                                async ? "-s2" : "", split ? "-split" : "",
                                t.minBlocks ? "-b" + std::to_string(t.minBlocks)
                                            : std::string(),
                                t.sixProducts ? 6 : 3)
                      .str(),
                  std::move(src),
                  {{"attention",
                    {(queries + t.queries() - 1) / t.queries(), 1, s.batches},
                    {t.threads(), 1, 1},
                    shared}},
                  0};
  return variant;
}

/// Attention regions: the flash kernel.
class FlashAttentionStrategy final : public Strategy {
public:
  StringRef getName() const override { return "flash-attention"; }
  bool readsViews() const override { return true; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    return succeeded(analyzeAttention(region, why));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    std::string reason;
    if (!isSm80OrLater(target)) {
      list.add(failure(), reason = "the flash kernel's mma.sync TF32 needs "
                                   "sm_80 or later");
      return;
    }
    FailureOr<Attention> a = analyzeAttention(region, reason);
    if (failed(a)) {
      list.add(failure(), reason);
      return;
    }
    // Fastest first, as an H100 timed them at 16 x 16 heads x 512 x 64
    // (docs/perf.md, twenty-ninth session): 128 queries a block with its
    // registers bounded for two blocks an SM, 454 us; the same with split
    // tiles, 468; 64 queries, four blocks, 474; the six-product scores
    // (more precise, for the seeds of the large-magnitude trial where the
    // three-product ones fail) 579; the two-stage forms 564 and 570; the
    // unbounded ones (one block an SM) 588 and 605; scalar loads 949.
    for (FlashTiling t : {FlashTiling{8, true, 1, false, 2},
                          FlashTiling{8, true, 1, true, 2},
                          FlashTiling{4, true, 1, false, 4},
                          FlashTiling{8, true, 1, false, 2, true},
                          FlashTiling{8, true, 2}, FlashTiling{4, true, 2},
                          FlashTiling{8, true}, FlashTiling{4, true},
                          FlashTiling{4, false}})
      list.add(writeFlashAttention(region, *a, t, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getFlashAttentionStrategy() {
  static const FlashAttentionStrategy strategy;
  return strategy;
}
