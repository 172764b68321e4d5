//===- MatmulMma.cpp - f16/bf16 contractions on tensor cores --------------===//
//
// The matmul strategy's tensor-core kernels for f16 or bf16 operands with
// f32 accumulation (sm_80 and later): a block computes a BM x BN tile from
// BK-deep tiles of A (row-major, k contiguous) and B (column-major, k
// contiguous) in shared memory, padded by 16 bytes a row so that the
// fragment reads of a warp hit 32 different banks; each warp computes a
// WM x WN part of it with `mma.sync.aligned.m16n8k16` (inline PTX), its A
// and B fragments read as 32-bit pairs of consecutive k. The operands go
// through the region's producers (casts, transposes) as the tiles are
// loaded, bounds-checked where the shape is not a tile multiple; the
// epilogue (Matmul.cpp) runs on each accumulator before the only store.
// ldmatrix, cp.async double buffering and wgmma are the next steps.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "ProductTail.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

std::string tiles::mmaSetup(const MmaTiling &t, StringRef storage) {
  return llvm::formatv(
             "  __shared__ __align__(16) {0} As[{1}][{3} + 8];\n"
             "  __shared__ __align__(16) {0} Bs[{2}][{3} + 8];\n"
             "  const int tid = threadIdx.x, lane = tid % 32, warp = tid / "
             "32;\n"
             "  const int g = lane / 4, tig = lane % 4;\n"
             "  const int wm = (warp / {4}) * {5}, wn = (warp % {4}) * {6};\n"
             "  const long long m0 = (long long)blockIdx.y * {1};\n"
             "  const long long n0 = (long long)blockIdx.x * {2};\n",
             storage, t.bm, t.bn, t.bk, t.warpsN, t.mTiles() * 16,
             t.nTiles() * 8)
             .str();
}

std::string tiles::mmaAccumulators(const MmaTiling &t, StringRef init,
                                   StringRef name) {
  return llvm::formatv("  float {3}[{0}][{1}][4];\n"
                       "#pragma unroll\n"
                       "  for (int i = 0; i < {0}; ++i)\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {1}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        {3}[i][j][q] = {2};\n",
                       t.mTiles(), t.nTiles(), init, name)
             .str();
}

std::string tiles::mmaProducts(const MmaTiling &t, StringRef ptxType) {
  // Fragments (PTX ISA, m16n8k16): A rows g and g + 8, k pairs 2 * tig and
  // 2 * tig + 8; B columns g, the same k pairs; C rows g and g + 8, columns
  // 2 * tig and 2 * tig + 1.
  return llvm::formatv(
             "    __syncthreads();\n"
             "#pragma unroll\n"
             "    for (int kk = 0; kk < {0}; kk += 16) {{\n"
             "      unsigned a[{1}][4], b[{2}][2];\n"
             "#pragma unroll\n"
             "      for (int i = 0; i < {1}; ++i) {{\n"
             "        const int row = wm + i * 16 + g;\n"
             "        a[i][0] = *reinterpret_cast<const unsigned *>("
             "&As[row][kk + 2 * tig]);\n"
             "        a[i][1] = *reinterpret_cast<const unsigned *>("
             "&As[row + 8][kk + 2 * tig]);\n"
             "        a[i][2] = *reinterpret_cast<const unsigned *>("
             "&As[row][kk + 2 * tig + 8]);\n"
             "        a[i][3] = *reinterpret_cast<const unsigned *>("
             "&As[row + 8][kk + 2 * tig + 8]);\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int j = 0; j < {2}; ++j) {{\n"
             "        const int col = wn + j * 8 + g;\n"
             "        b[j][0] = *reinterpret_cast<const unsigned *>("
             "&Bs[col][kk + 2 * tig]);\n"
             "        b[j][1] = *reinterpret_cast<const unsigned *>("
             "&Bs[col][kk + 2 * tig + 8]);\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int i = 0; i < {1}; ++i)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < {2}; ++j)\n"
             "          asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32."
             "{3}.{3}.f32 {{%0, %1, %2, %3}, {{%4, %5, %6, %7}, {{%8, %9}, "
             "{{%0, %1, %2, %3};\\n\"\n"
             "                       : \"+f\"(acc[i][j][0]), "
             "\"+f\"(acc[i][j][1]), \"+f\"(acc[i][j][2]), "
             "\"+f\"(acc[i][j][3])\n"
             "                       : \"r\"(a[i][0]), \"r\"(a[i][1]), "
             "\"r\"(a[i][2]), \"r\"(a[i][3]), \"r\"(b[j][0]), "
             "\"r\"(b[j][1]));\n"
             "    }\n"
             "    __syncthreads();\n"
             "  }\n",
             t.bk, t.mTiles(), t.nTiles(), ptxType)
             .str();
}

std::string tiles::mmaStoreLoop(const MmaTiling &t, int64_t M, int64_t N) {
  return llvm::formatv(
             "#pragma unroll\n"
             "  for (int i = 0; i < {0}; ++i)\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {1}; ++j)\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const long long m = m0 + wm + i * 16 + g + (q / 2) * 8;\n"
             "        const long long n = n0 + wn + j * 8 + 2 * tig + q % 2;\n"
             "        if (m >= {2}LL || n >= {3}LL)\n"
             "          continue;\n",
             t.mTiles(), t.nTiles(), M, N)
             .str();
}

namespace {

/// One operand's shared tile, [rows][BK + 8] in its storage type, loaded
/// by every thread through the region's producers.
FailureOr<std::string> writeMmaTileLoad(const LinalgRegion &region,
                                        const Contraction &c,
                                        const MmaTiling &t, bool isA,
                                        unsigned &counter, std::string &why) {
  int rows = isA ? t.bm : t.bn;
  int64_t extent = isA ? c.M : c.N;
  Type type = elementOf(isA ? c.a : c.b);
  bool kFast = c.isInnermost(isA ? c.a : c.b, isA ? c.mapA : c.mapB, c.k);
  std::string value;
  FailureOr<std::string> body =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return failure();
  SmallVector<std::string> conds = tiles::edgeConds(extent, rows, c.K, t.bk);
  return tiles::loadLoop(rows, t.bk, t.threads(), kFast, isA ? "m0" : "n0",
                         conds, *body + "        x = " + value + ";\n",
                         std::string("      ") + (isA ? "As" : "Bs") +
                             "[rr][kk] = " + storeAs(type, "x") + ";\n");
}

FailureOr<Variant> writeMma(const LinalgRegion &region, const Contraction &c,
                            const MmaTiling &t, std::string &why) {
  Type type = elementOf(c.a);
  std::string storage = getCType(type)->storage;
  std::string ptxType = type.isBF16() ? "bf16" : "f16";
  unsigned counter = 0;
  int threads = t.threads();
  std::string name = "matmul";
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, name, threads) + " {\n";
  src += tiles::mmaSetup(t, storage);
  src += c.batchIndices();
  std::string init =
      c.initIsSplat(region) ? region.splats.lookup(c.init) : "0.0f";
  src += tiles::mmaAccumulators(t, init);
  src += tiles::kLoop(c.K, t.bk);
  for (bool isA : {true, false}) {
    FailureOr<std::string> load =
        writeMmaTileLoad(region, c, t, isA, counter, why);
    if (failed(load))
      return failure();
    src += *load;
  }
  src += tiles::mmaProducts(t, ptxType);
  return closeProduct({name, c.M, c.N, c.batches}, t, std::move(src),
                      writeEpilogue(region, c, "acc[i][j][q]", counter, why),
                      why);
}

} // namespace

void cuda_agent::builtin::addMmaVariants(const LinalgRegion &region,
                                         const Contraction &c,
                                         const GpuTarget &target,
                                         VariantList &list) {
  if (!hasHalfOperands(c))
    return;
  if (!isSm80OrLater(target))
    return;
  std::string reason;
  for (const MmaTiling &t :
       bestFirst(mmaTilings(), hasFewBigTiles(c.M, c.N, c.batches, target)))
    list.add(writeMma(region, c, t, reason), reason);
}
