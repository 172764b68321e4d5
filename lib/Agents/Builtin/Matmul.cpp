//===- Matmul.cpp - Contractions: register-tiled products -----------------===//
//
// Contraction regions: one linalg.generic that is a contraction by its maps
// (matmul, batch_matmul, either operand transposed, operands computed by
// elementwise producers in the region), a bias or any tensor as the
// accumulator's init, and elementwise epilogues on the product. The exact
// SIMT kernel: a block computes a BM x BN tile of the product from BK-deep
// shared-memory tiles of A and B (k-major, padded against bank conflicts),
// each thread a TM x TN register tile read from shared memory with 16-byte
// loads, accumulated in f32 with fmaf; the epilogue runs on the
// accumulators before the only store. f32 inputs are read as float4
// where their rows are whole vectors. Rows, columns and the reduced
// dimension need not be tile multiples (bounds checks where they are not).
// Products with at least as many 128 x 128 tiles as the device has SMs get
// the pipelined SIMT kernels first: two shared buffers, the next step read
// into registers during the products, one barrier per step, the warps laid
// out so that a warp's 16-byte shared reads are conflict-free.
// f16 and bf16 operands get the warpgroup kernels on sm_90 (MatmulWgmma.cpp)
// and the tensor-core kernels (MatmulMma.cpp) first and these, converting to
// f32 as the tiles are loaded, after; f32 operands
// get the 3xTF32 tensor-core kernels (MatmulTf32.cpp) first. Convolutions, matrix-vector products, integer
// and f64 products and reductions after the product are not written yet:
// their regions get no candidate and the reason.
//
//===----------------------------------------------------------------------===//

#include "Matmul.h"
#include "ElementEvaluator.h"
#include "KernelText.h"
#include "ProductTail.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {
/// Whether `g` is a matrix-vector product (matvec, vecmat, or batched): a
/// contraction without row or without column dimensions.
bool isMatrixVector(linalg::GenericOp g) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(cast<linalg::LinalgOp>(g.getOperation()));
  return succeeded(dims) && (dims->m.empty() || dims->n.empty());
}
} // namespace

bool cuda_agent::builtin::isMultiplyAdd(linalg::GenericOp g) {
  return linalg::detail::isContractionBody(
      *g.getBlock(), [](Operation *mul, Operation *add) {
        return (isa<arith::MulFOp>(mul) && isa<arith::AddFOp>(add)) ||
               (isa<arith::MulIOp>(mul) && isa<arith::AddIOp>(add));
      });
}

bool cuda_agent::builtin::hasProduct(const LinalgRegion &region) {
  // A matrix-vector product reads its matrix once: a memory-bound
  // reduction the row and column-reduction kernels take, not a product;
  // so is a pooling (a convolution's maps, its body a max or a sum of the
  // input alone), which the serial reduction takes.
  return llvm::any_of(region.generics, [](linalg::GenericOp g) {
    return isReduction(g) &&
           ((linalg::isaContractionOpInterface(g) && !isMatrixVector(g)) ||
            (linalg::isaConvolutionOpInterface(g) && isMultiplyAdd(g)));
  });
}

namespace {
/// Follows `operand` back through the region's copies and transposes
/// (linalg's own isaCopyOpInterface, isaTransposeOpInterface) to the tensor
/// they copy, composing `map` with them, so that the kernels read that
/// tensor in place (a linear layer's weight, which torch-mlir transposes
/// before the matmul, is copied into the tiles as it lies instead of through
/// registers).
void lookThroughCopies(Value &operand, AffineMap &map) {
  while (auto copy = operand.getDefiningOp<linalg::GenericOp>()) {
    if (!linalg::isaTransposeOpInterface(copy) &&
        !linalg::isaCopyOpInterface(copy))
      return;
    SmallVector<AffineMap> maps = copy.getIndexingMapsArray();
    map = maps[0].compose(inversePermutation(maps[1])).compose(map);
    operand = copy.getDpsInputOperand(0)->get();
  }
}
} // namespace

FailureOr<Contraction>
cuda_agent::builtin::analyzeContraction(const LinalgRegion &region,
                                        std::string &why) {
  linalg::GenericOp product;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    if (linalg::isaConvolutionOpInterface(g)) {
      why = "a convolution (the conv strategy's class)";
      return failure();
    }
    // Two products: an attention (the flash-attention strategy's class).
    if (product && linalg::isaContractionOpInterface(g)) {
      why.clear();
      return failure();
    }
    if (!linalg::isaContractionOpInterface(g) || product) {
      why = product ? "a reduction after the contraction in the same region "
                      "(a softmax, logsumexp or sum over the product) is not "
                      "written yet"
                    : "a reduction before the contraction in the same region";
      return failure();
    }
    product = g;
  }
  if (!product) {
    why = "no contraction";
    return failure();
  }
  return analyzeContractionOp(product, why);
}

FailureOr<Contraction>
cuda_agent::builtin::analyzeContractionOp(linalg::GenericOp g,
                                          std::string &why) {
  Contraction c;
  c.op = g;
  if (g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1) {
    why = "a contraction with other than two operands and one result";
    return failure();
  }
  c.a = g.getDpsInputOperand(0)->get();
  c.b = g.getDpsInputOperand(1)->get();
  c.init = g.getDpsInitOperand(0)->get();
  c.result = g.getResult(0);
  for (Value v : {c.a, c.b, c.result}) {
    Type type = elementOf(v);
    if (type.isF64()) {
      why = "f64 contractions are not written yet (no f64 kernel)";
      return failure();
    }
    if (!type.isF32() && !type.isF16() && !type.isBF16()) {
      why = "integer contractions (i8, i32) are not written yet (no integer "
            "kernel)";
      return failure();
    }
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(cast<linalg::LinalgOp>(g.getOperation()));
  if (failed(dims)) {
    why = "a contraction whose dimensions cannot be inferred from its maps";
    return failure();
  }
  if (dims->m.size() != 1 || dims->n.size() != 1) {
    why = dims->m.empty() || dims->n.empty()
              ? "matrix-vector products (matvec, vecmat) are not written yet"
              : "a contraction with several row or column dimensions";
    return failure();
  }
  if (dims->k.size() != 1) {
    why = "a contraction over several reduced dimensions";
    return failure();
  }
  c.m = dims->m[0];
  c.n = dims->n[0];
  c.k = dims->k[0];
  c.batch.assign(dims->batch.begin(), dims->batch.end());
  c.ranges = g.getStaticLoopRanges();
  if (llvm::any_of(c.ranges, ShapedType::isDynamic)) {
    why = "dynamic shapes are not written yet";
    return failure();
  }
  c.M = c.ranges[c.m];
  c.N = c.ranges[c.n];
  c.K = c.ranges[c.k];
  c.batches = 1;
  for (unsigned d : c.batch)
    c.batches *= c.ranges[d];
  c.mapA = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
  c.mapB = g.getMatchingIndexingMap(g.getDpsInputOperand(1));
  c.mapC = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  lookThroughCopies(c.a, c.mapA);
  lookThroughCopies(c.b, c.mapB);
  if (!c.mapA.isProjectedPermutation() || !c.mapB.isProjectedPermutation() ||
      !c.mapC.isProjectedPermutation()) {
    why = "a contraction map that is not a projected permutation";
    return failure();
  }
  if (c.batches > 65535) {
    why = "more than 65535 batches";
    return failure();
  }
  return c;
}

SmallVector<std::string> Contraction::loopDims(StringRef m, StringRef n,
                                               StringRef k) const {
  SmallVector<std::string> dims(ranges.size(), "0");
  for (auto [i, d] : llvm::enumerate(batch))
    dims[d] = "b" + std::to_string(i);
  dims[this->m] = m.str();
  dims[this->n] = n.str();
  dims[this->k] = k.str();
  return dims;
}

FailureOr<SmallVector<std::string>>
Contraction::tileOperandIndices(bool isA, std::string &why) const {
  return applyIndexingMap(
      isA ? mapA : mapB,
      isA ? loopDims("r", "0", "k") : loopDims("0", "r", "k"), why);
}

std::string Contraction::batchIndices() const {
  std::string text;
  SmallVector<int64_t> extents;
  for (unsigned d : batch)
    extents.push_back(ranges[d]);
  SmallVector<std::string> idx = delinearize("blockIdx.z", extents);
  for (auto [i, e] : llvm::enumerate(idx))
    text += "  const long long b" + std::to_string(i) + " = " + e + ";\n";
  return text;
}

bool Contraction::isInnermost(Value operand, AffineMap map,
                              unsigned dim) const {
  return map.getNumResults() > 0 &&
         map.getDimPosition(map.getNumResults() - 1) == dim;
}

FailureOr<std::string>
cuda_agent::builtin::writeEpilogue(const LinalgRegion &region,
                                   const Contraction &c, StringRef acc,
                                   unsigned &counter, std::string &why) {
  FailureOr<SmallVector<std::string>> idxC =
      applyIndexingMap(c.mapC, c.loopDims("m", "n", "0"), why);
  if (failed(idxC))
    return failure();
  return writeEpilogueAt(region, c.init, c.result, *idxC, acc, counter, why);
}

LogicalResult cuda_agent::builtin::bindProductAt(ElementEvaluator &eval,
                                                const LinalgRegion &region,
                                                Value init, Value result,
                                                ArrayRef<std::string> idxC,
                                                StringRef acc,
                                                std::string &why) {
  StatementWriter &writer = eval.getWriter();
  std::string product = acc.str();
  if (!region.splats.count(init)) {
    FailureOr<std::string> initValue = eval.valueAt(init, idxC, why);
    if (failed(initValue))
      return failure();
    product = writer.bind("float", *initValue + " + " + product);
  }
  Type resultType = elementOf(result);
  if (!resultType.isF32())
    product = writer.bind("float",
                          loadAs(resultType, storeAs(resultType, product)));
  eval.knownAt[result] = {SmallVector<std::string>(idxC), product};
  return success();
}

/// The indices of region output `out` at which it holds the product's
/// element `idxC` (C expressions, the indices of `result`): `idxC` itself,
/// or `idxC` permuted where the epilogue transposes the product (a linear
/// layer's output transposed, a convolution's moved to channels last for a
/// pooling). Learnt by reading `out` at named indices (readAtElement):
/// each of the product's indices must be one of those names, each name
/// once.
static FailureOr<SmallVector<std::string>>
getOutputElement(const LinalgRegion &region, Value out, Value result,
                 ArrayRef<std::string> idxC, std::string &why) {
  ArrayRef<int64_t> outShape = shapeOf(out), productShape = shapeOf(result);
  SmallVector<std::string> names;
  for (size_t d = 0; d < outShape.size(); ++d)
    names.push_back("o" + std::to_string(d));
  std::string probeWhy;
  FailureOr<SmallVector<std::string>> at =
      readAtElement(region, out, result, names, probeWhy);
  if (failed(at)) {
    // Read at the element, or not at all: the evaluation at it says which.
    if (outShape == productShape)
      return SmallVector<std::string>(idxC);
    why = "a region output of another shape than the product";
    return failure();
  }
  SmallVector<std::string> element(outShape.size());
  if (at->size() != outShape.size()) {
    why = "a region output of another rank than the product";
    return failure();
  }
  for (auto [i, index] : llvm::enumerate(*at)) {
    const auto *name = llvm::find(names, index);
    size_t d = name - names.begin();
    if (name == names.end() || !element[d].empty() ||
        outShape[d] != productShape[i]) {
      why = "an epilogue that reads the product elsewhere than at the "
            "element it writes or a permutation of it";
      return failure();
    }
    element[d] = idxC[i];
  }
  return element;
}

FailureOr<std::string> cuda_agent::builtin::writeEpilogueAt(
    const LinalgRegion &region, Value init, Value result,
    ArrayRef<std::string> idxC, StringRef acc, unsigned &counter,
    std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  if (failed(bindProductAt(eval, region, init, result, idxC, acc, why)))
    return failure();
  for (auto [o, out] : llvm::enumerate(region.outputs)) {
    FailureOr<SmallVector<std::string>> element =
        getOutputElement(region, out, result, idxC, why);
    if (failed(element))
      return failure();
    FailureOr<std::string> value = eval.valueAt(out, *element, why);
    if (failed(value)) {
      why = "an epilogue that reads the product elsewhere than at the "
            "element it writes (" +
            why + ")";
      return failure();
    }
    writer.append("        out" + std::to_string(o) + "[" +
                  linearize(*element, shapeOf(out)) +
                  "] = " + storeAs(elementOf(out), *value) + ";\n");
  }
  return body;
}

FailureOr<std::string> cuda_agent::builtin::writeOperandValue(
    const LinalgRegion &region, const Contraction &c, bool isA, StringRef m,
    StringRef k, unsigned &counter, std::string &value, std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  SmallVector<std::string> dims =
      isA ? c.loopDims(m, "0", k) : c.loopDims("0", m, k);
  FailureOr<SmallVector<std::string>> idx =
      applyIndexingMap(isA ? c.mapA : c.mapB, dims, why);
  if (failed(idx))
    return failure();
  FailureOr<std::string> v = eval.valueAt(isA ? c.a : c.b, *idx, why);
  if (failed(v))
    return failure();
  value = *v;
  return body;
}

bool cuda_agent::builtin::hasHalfOperands(const Contraction &c) {
  Type a = elementOf(c.a), b = elementOf(c.b);
  return a == b && (a.isF16() || a.isBF16());
}

bool cuda_agent::builtin::isSm80OrLater(const GpuTarget &target) {
  const char *chip = target.chip;
  return std::strncmp(chip, "sm_", 3) == 0 && std::atoi(chip + 3) >= 80;
}

bool cuda_agent::builtin::packingOutweighsWgmma(const Contraction &c) {
  return elementOf(c.a).isF32() && elementOf(c.b).isF32() &&
         c.M * c.N < 256 * (c.M + c.N);
}

bool cuda_agent::builtin::hasFewBigTiles(int64_t M, int64_t N,
                                         int64_t batches,
                                         const GpuTarget &target) {
  return (M + 127) / 128 * ((N + 127) / 128) * batches < target.smCount;
}

SmallVector<Tiling> cuda_agent::builtin::simtTilings() {
  return {{128, 128, 8, 8, 8}, {128, 64, 8, 8, 4}, {64, 64, 16, 4, 4}};
}

SmallVector<WarpTiling> cuda_agent::builtin::warpTilings() {
  return {{{256, 128, 8, 16, 8}, 2, 4},
          {{128, 256, 8, 8, 16}, 4, 2},
          {{128, 128, 8, 8, 8}, 2, 4},
          {{128, 128, 8, 8, 8}, 4, 2}};
}

SmallVector<MmaTiling> cuda_agent::builtin::mmaTilings() {
  return {{128, 128, 32, 2, 4}, {64, 64, 32, 2, 2}};
}

SmallVector<std::string> tiles::edgeConds(int64_t extent, int rows, int64_t K,
                                          int bk) {
  SmallVector<std::string> conds;
  if (extent % rows != 0)
    conds.push_back("r < " + std::to_string(extent) + "LL");
  if (K % bk != 0)
    conds.push_back("k < " + std::to_string(K) + "LL");
  return conds;
}

std::string tiles::loadLoop(int rows, int bk, int threads, bool kFast,
                           StringRef base, ArrayRef<std::string> conds,
                           StringRef inner, StringRef store) {
  std::string text = llvm::formatv(
      "#pragma unroll\n"
      "    for (int p = 0; p < {0}; ++p) {{\n"
      "      const int e = tid + p * {1};\n"
      "      const int kk = {2}, rr = {3};\n"
      "      const long long r = {4} + rr, k = k0 + kk;\n"
      "      float x = 0.0f;\n",
      rows * bk / threads, threads,
      kFast ? "e % " + std::to_string(bk) : "e / " + std::to_string(rows),
      kFast ? "e / " + std::to_string(bk) : "e % " + std::to_string(rows),
      base);
  text += (conds.empty() ? "      {\n"
                         : "      if (" + join(conds, " && ") + ") {\n") +
          inner.str() + "      }\n";
  return text + store.str() + "    }\n";
}

std::string tiles::kLoop(int64_t K, int bk) {
  return llvm::formatv("  for (long long k0 = 0; k0 < {0}LL; k0 += {1}) {{\n",
                       K, bk)
      .str();
}

std::string tiles::simtSetup(const Tiling &t) {
  return llvm::formatv(
             "  __shared__ __align__(16) float As[{0}][{1} + 4];\n"
             "  __shared__ __align__(16) float Bs[{0}][{2} + 4];\n"
             "  const int tid = threadIdx.x;\n"
             "  const int tx = tid % {3}, ty = tid / {3};\n"
             "  const long long m0 = (long long)blockIdx.y * {1};\n"
             "  const long long n0 = (long long)blockIdx.x * {2};\n",
             t.bk, t.bm, t.bn, t.bn / t.tn)
      .str();
}

std::string tiles::simtAccumulators(const Tiling &t, StringRef init) {
  return llvm::formatv("  float acc[{0}][{1}];\n"
                       "#pragma unroll\n"
                       "  for (int i = 0; i < {0}; ++i)\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {1}; ++j)\n"
                       "      acc[i][j] = {2};\n",
                       t.tm, t.tn, init)
      .str();
}

/// The loop over a step's kk that reads a thread's tm values of A and tn of
/// B from shared memory as float4 (`aAt` and `bAt`: the addresses, C
/// expressions of kk and q) and multiplies them into acc.
static std::string registerProducts(int bk, int tm, int tn, StringRef aAt,
                                    StringRef bAt) {
  return llvm::formatv(
             "#pragma unroll\n"
             "    for (int kk = 0; kk < {0}; ++kk) {{\n"
             "      float a[{1}], b[{2}];\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < {1} / 4; ++q) {{\n"
             "        const float4 v = *reinterpret_cast<const float4 *>("
             "&{3});\n"
             "        a[q * 4] = v.x; a[q * 4 + 1] = v.y; a[q * 4 + 2] = v.z; "
             "a[q * 4 + 3] = v.w;\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < {2} / 4; ++q) {{\n"
             "        const float4 v = *reinterpret_cast<const float4 *>("
             "&{4});\n"
             "        b[q * 4] = v.x; b[q * 4 + 1] = v.y; b[q * 4 + 2] = v.z; "
             "b[q * 4 + 3] = v.w;\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int i = 0; i < {1}; ++i)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < {2}; ++j)\n"
             "          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);\n"
             "    }\n",
             bk, tm, tn, aAt, bAt)
      .str();
}

std::string tiles::simtProducts(const Tiling &t) {
  // Thread (ty, tx) owns rows ty*4 + i%4 of each BM*4/TM-row quarter and
  // likewise columns: 16-byte shared loads, consecutive output columns.
  return "    __syncthreads();\n" +
         registerProducts(
             t.bk, t.tm, t.tn,
             "As[kk][q * " + std::to_string(t.bm * 4 / t.tm) + " + ty * 4]",
             "Bs[kk][q * " + std::to_string(t.bn * 4 / t.tn) + " + tx * 4]") +
         "    __syncthreads();\n  }\n";
}

/// The store loop over a thread's tm x tn outputs, 4 x 4 blocks at a time:
/// row i at m0 + `rowOffset` + i % 4, column j at n0 + `colOffset` + j % 4
/// (both C expressions of i or j), skipping those past M or N.
static std::string storeLoop(int tm, int tn, StringRef rowOffset,
                             StringRef colOffset, int64_t M, int64_t N) {
  return llvm::formatv(
             "#pragma unroll\n"
             "  for (int i = 0; i < {0}; ++i) {{\n"
             "    const long long m = m0 + {2} + i % 4;\n"
             "    if (m >= {4}LL)\n      continue;\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {1}; ++j) {{\n"
             "      const long long n = n0 + {3} + j % 4;\n"
             "      if (n >= {5}LL)\n        continue;\n"
             "      {{\n",
             tm, tn, rowOffset, colOffset, M, N)
      .str();
}

std::string tiles::simtStoreLoop(const Tiling &t, int64_t M, int64_t N) {
  return storeLoop(t.tm, t.tn,
                   "(i / 4) * " + std::to_string(t.bm * 4 / t.tm) + " + ty * 4",
                   "(j / 4) * " + std::to_string(t.bn * 4 / t.tn) + " + tx * 4",
                   M, N);
}

std::string tiles::warpSetup(const WarpTiling &t) {
  return llvm::formatv(
             "  __shared__ __align__(16) float As[2][{0}][{1} + 4];\n"
             "  __shared__ __align__(16) float Bs[2][{0}][{2} + 4];\n"
             "  const int tid = threadIdx.x;\n"
             "  const int warp = tid / 32, lane = tid % 32;\n"
             "  const int ty = (warp / {3}) * {4} + (lane / {5}) * 4;\n"
             "  const int tx = (warp % {3}) * {6} + (lane % {5}) * 4;\n"
             "  const long long m0 = (long long)blockIdx.y * {1};\n"
             "  const long long n0 = (long long)blockIdx.x * {2};\n",
             t.tile.bk, t.tile.bm, t.tile.bn, t.warpsN, t.warpRows(),
             t.laneCols(), t.warpCols())
      .str();
}

std::string tiles::warpProducts(const WarpTiling &t) {
  // A thread's rows are TM/4 blocks of 4, a half warp tile apart (likewise
  // its columns): a warp reads laneRows (laneCols) consecutive float4.
  return registerProducts(
      t.tile.bk, t.tile.tm, t.tile.tn,
      "As[buf][kk][ty + q * " + std::to_string(t.laneRows() * 4) + "]",
      "Bs[buf][kk][tx + q * " + std::to_string(t.laneCols() * 4) + "]");
}

std::string tiles::warpStoreLoop(const WarpTiling &t, int64_t M, int64_t N) {
  return storeLoop(t.tile.tm, t.tile.tn,
                   "ty + (i / 4) * " + std::to_string(t.laneRows() * 4),
                   "tx + (j / 4) * " + std::to_string(t.laneCols() * 4), M, N);
}

namespace {

/// Whether `operand` (A when `isA`) is read four consecutive elements at a
/// time: an f32 region input whose rows are whole 16-byte vectors, `count`
/// elements per thread a multiple of 4. Each vector is all in bounds or
/// all out, as tiles start at multiples of 4.
bool readsVectors(const Contraction &c, bool isA, int count) {
  Value operand = isA ? c.a : c.b;
  return isa<BlockArgument>(operand) && elementOf(operand).isF32() &&
         shapeOf(operand).back() % 4 == 0 && count % 4 == 0;
}

/// The loop head over a thread's four-element vectors of one operand's
/// tile (`count` elements a thread, `rows` along M or N): the vector's k and
/// row in the tile (`kk`, `rr`), and with `global` the element's `r` and `k`
/// and a zeroed `float4 x`.
std::string vectorLoopHead(const Contraction &c, bool isA, bool kFast,
                           int rows, int bk, int threads, int count,
                           bool global) {
  std::string head = llvm::formatv(
      "#pragma unroll\n"
      "    for (int p = 0; p < {0}; ++p) {{\n"
      "      const int e = (tid + p * {1}) * 4;\n"
      "      const int kk = {2}, rr = {3};\n",
      count / 4, threads,
      kFast ? "e % " + std::to_string(bk) : "e / " + std::to_string(rows),
      kFast ? "e / " + std::to_string(bk) : "e % " + std::to_string(rows));
  if (global)
    head += std::string("      const long long r = ") + (isA ? "m0" : "n0") +
            " + rr, k = k0 + kk;\n"
            "      float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n";
  return head;
}

/// The statement reading the vector at (r, k) of a readsVectors operand into
/// `x`, under `conds` (edgeConds) when there are any.
FailureOr<std::string> vectorRead(const Contraction &c, bool isA,
                                  ArrayRef<std::string> conds,
                                  std::string &why) {
  Value operand = isA ? c.a : c.b;
  FailureOr<SmallVector<std::string>> idx = c.tileOperandIndices(isA, why);
  if (failed(idx))
    return failure();
  std::string load =
      "x = *reinterpret_cast<const float4 *>(in" +
      std::to_string(cast<BlockArgument>(operand).getArgNumber()) + " + " +
      linearize(*idx, shapeOf(operand)) + ");\n";
  return conds.empty()
             ? "      " + load
             : "      if (" + join(conds, " && ") + ")\n        " + load;
}

/// The text of the pipelined SIMT kernel's tile of one operand: the
/// registers `decl`, the statements `fetch` reading the step at k0 into
/// them, and `store` writing them to shared buffer `buf`.
struct TileFetch {
  std::string decl, fetch, store;
};

FailureOr<TileFetch> writeTileFetch(const LinalgRegion &region,
                                    const Contraction &c, const Tiling &t,
                                    bool isA, unsigned &counter,
                                    std::string &why) {
  int rows = isA ? t.bm : t.bn;
  int count = rows * t.bk / t.threads();
  bool kFast = c.isInnermost(isA ? c.a : c.b, isA ? c.mapA : c.mapB, c.k);
  SmallVector<std::string> conds =
      tiles::edgeConds(isA ? c.M : c.N, rows, c.K, t.bk);
  std::string regs = isA ? "ra" : "rb", tile = isA ? "As" : "Bs";
  std::string kk = kFast ? "e % " + std::to_string(t.bk)
                         : "e / " + std::to_string(rows);
  std::string rr = kFast ? "e / " + std::to_string(t.bk)
                         : "e % " + std::to_string(rows);
  TileFetch f;
  if (readsVectors(c, isA, count)) {
    FailureOr<std::string> read = vectorRead(c, isA, conds, why);
    if (failed(read))
      return failure();
    f.decl = llvm::formatv("  float4 {0}[{1}];\n", regs, count / 4);
    f.fetch = vectorLoopHead(c, isA, kFast, rows, t.bk, t.threads(), count,
                             true) +
              *read + "      " + regs + "[p] = x;\n    }\n";
    f.store = vectorLoopHead(c, isA, kFast, rows, t.bk, t.threads(), count,
                             false);
    if (kFast) {
      const char *lanes[] = {"x", "y", "z", "w"};
      for (int l = 0; l < 4; ++l)
        f.store += "      " + tile + "[buf][kk + " + std::to_string(l) +
                   "][rr] = " + regs + "[p]." + lanes[l] + ";\n";
    } else {
      f.store += "      *reinterpret_cast<float4 *>(&" + tile +
                 "[buf][kk][rr]) = " + regs + "[p];\n";
    }
    f.store += "    }\n";
    return f;
  }
  std::string value;
  FailureOr<std::string> body =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return failure();
  f.decl = llvm::formatv("  float {0}[{1}];\n", regs, count);
  f.fetch = tiles::loadLoop(rows, t.bk, t.threads(), kFast, isA ? "m0" : "n0",
                            conds, *body + "        x = " + value + ";\n",
                            "      " + regs + "[p] = x;\n");
  f.store = llvm::formatv("#pragma unroll\n"
                          "    for (int p = 0; p < {0}; ++p) {{\n"
                          "      const int e = tid + p * {1};\n"
                          "      const int kk = {2}, rr = {3};\n"
                          "      {4}[buf][kk][rr] = {5}[p];\n"
                          "    }\n",
                          count, t.threads(), kk, rr, tile, regs);
  return f;
}

/// The pipelined SIMT kernel: the next step's tiles are read into
/// registers while the block multiplies the current shared buffer, then
/// stored to the other one; one barrier per step.
FailureOr<Variant> writeWarpSimt(const LinalgRegion &region,
                                 const Contraction &c, const WarpTiling &w,
                                 std::string &why) {
  const Tiling &t = w.tile;
  unsigned counter = 0;
  std::string name = "matmul";
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, name, t.threads(), false,
                                    w.minBlocks()) +
                    " {\n";
  src += tiles::warpSetup(w);
  src += c.batchIndices();
  std::string init = "0.0f";
  if (c.initIsSplat(region))
    init = region.splats.lookup(c.init);
  src += tiles::simtAccumulators(t, init);
  std::string fetch, store;
  for (bool isA : {true, false}) {
    FailureOr<TileFetch> f = writeTileFetch(region, c, t, isA, counter, why);
    if (failed(f))
      return failure();
    src += f->decl;
    fetch += f->fetch;
    store += f->store;
  }
  src += "  int buf = 0;\n  {\n    const long long k0 = 0;\n" + fetch +
         store + "  }\n  __syncthreads();\n";
  src += tiles::kLoop(c.K, t.bk);
  src += llvm::formatv("    const bool more = k0 + {0} < {1}LL;\n"
                       "    if (more) {{\n"
                       "      const long long next = k0 + {0};\n"
                       "      const long long k0 = next;\n",
                       t.bk, c.K)
             .str() +
         fetch + "    }\n";
  src += tiles::warpProducts(w);
  src += "    if (more) {\n      buf ^= 1;\n" + store +
         "    }\n    __syncthreads();\n  }\n";
  return closeProduct({name, c.M, c.N, c.batches}, w, std::move(src),
                      writeEpilogue(region, c, "acc[i][j]", counter, why), why);
}

/// The shared-memory tile of one operand loaded by every thread: `rows`
/// along M (or N) and BK along K, coalesced along the operand's innermost
/// global dimension.
FailureOr<std::string> writeTileLoad(const LinalgRegion &region,
                                     const Contraction &c, const Tiling &t,
                                     bool isA, unsigned &counter,
                                     std::string &why) {
  int rows = isA ? t.bm : t.bn;
  int64_t extent = isA ? c.M : c.N;
  bool kFast = c.isInnermost(isA ? c.a : c.b, isA ? c.mapA : c.mapB, c.k);
  std::string value;
  FailureOr<std::string> body = writeOperandValue(
      region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return failure();
  SmallVector<std::string> conds = tiles::edgeConds(extent, rows, c.K, t.bk);
  int count = rows * t.bk / t.threads();
  if (readsVectors(c, isA, count)) {
    FailureOr<std::string> read = vectorRead(c, isA, conds, why);
    if (failed(read))
      return failure();
    std::string text = vectorLoopHead(c, isA, kFast, rows, t.bk, t.threads(),
                                      count, true) +
                       *read;
    std::string tile = isA ? "As" : "Bs";
    const char *lanes[] = {"x", "y", "z", "w"};
    for (int l = 0; l < 4; ++l)
      text += "      " + tile +
              (kFast ? "[kk + " + std::to_string(l) + "][rr]"
                     : "[kk][rr + " + std::to_string(l) + "]") +
              " = x." + lanes[l] + ";\n";
    return text + "    }\n";
  }
  return tiles::loadLoop(rows, t.bk, t.threads(), kFast, isA ? "m0" : "n0",
                         conds, *body + "        x = " + value + ";\n",
                         std::string("      ") + (isA ? "As" : "Bs") +
                             "[kk][rr] = x;\n");
}

FailureOr<Variant> writeSimt(const LinalgRegion &region, const Contraction &c,
                             const Tiling &t, std::string &why) {
  unsigned counter = 0;
  int threads = t.threads();
  std::string name = "matmul";
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, name, threads) + " {\n";
  src += tiles::simtSetup(t);
  src += c.batchIndices();
  std::string init = "0.0f";
  if (c.initIsSplat(region))
    init = region.splats.lookup(c.init);
  src += tiles::simtAccumulators(t, init);
  src += tiles::kLoop(c.K, t.bk);
  for (bool isA : {true, false}) {
    FailureOr<std::string> load =
        writeTileLoad(region, c, t, isA, counter, why);
    if (failed(load))
      return failure();
    src += *load;
  }
  src += tiles::simtProducts(t);
  return closeProduct({name, c.M, c.N, c.batches}, t, std::move(src),
                      writeEpilogue(region, c, "acc[i][j]", counter, why), why);
}

/// Contractions: the tensor-core kernels for f16/bf16 operands or for f32
/// ones (3xTF32, after plain TF32 under precision=tf32), then the exact
/// SIMT kernels, the tile that fills the device best first.
class MatmulStrategy final : public Strategy {
public:
  StringRef getName() const override { return "matmul"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    return succeeded(analyzeContraction(region, why));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision precision, VariantList &list) const override {
    std::string reason;
    FailureOr<Contraction> c = analyzeContraction(region, reason);
    if (failed(c)) {
      list.add(failure(), reason);
      return;
    }
    // On sm_90 the wgmma kernels ran 5x faster than mma.sync (docs/perf.md),
    // but f32 operands reach them packed into TF32 parts by a pass over A
    // and B first, three times their bytes. Where each operand element
    // takes part in few products (M N / (M + N) under 256) that pass costs
    // more than wgmma gains, and the mma.sync 3xTF32 kernels, which split
    // the operands in registers, come first: a batch of 128 products of
    // 128 x 256 by 256 x 512 (102) ran 108 us on them against 239 on
    // wgmma; the MLP block's 2048 x 4096 by 4096 x 1024 (683) ran 260 us on
    // wgmma against 397.
    bool tf32 = precision == Precision::Tf32;
    if (packingOutweighsWgmma(*c)) {
      addTf32Variants(region, *c, target, tf32, list);
      addWgmmaVariants(region, *c, target, tf32, list);
    } else {
      addWgmmaVariants(region, *c, target, tf32, list);
      addMmaVariants(region, *c, target, list);
      addTf32Variants(region, *c, target, tf32, list);
    }
    bool fewBigTiles = hasFewBigTiles(c->M, c->N, c->batches, target);
    if (!fewBigTiles)
      for (const WarpTiling &t : warpTilings())
        list.add(writeWarpSimt(region, *c, t, reason), reason);
    for (const Tiling &t : bestFirst(simtTilings(), fewBigTiles))
      list.add(writeSimt(region, *c, t, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getMatmulStrategy() {
  static const MatmulStrategy strategy;
  return strategy;
}
