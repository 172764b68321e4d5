//===- MatmulTf32.cpp - f32 contractions on tensor cores (3xTF32) ---------===//
//
// The matmul strategy's tensor-core kernels for f32 operands (sm_80 and
// later), and their mainloop, which a convolution's implicit GEMM can reuse
// with loaders of its own (MatmulTf32.h). The pipeline: `stages - 1` tiles
// of A and B are requested with cp.async before the loop; each iteration
// waits for the oldest, requests the tile `stages - 1` ahead into the
// buffer the previous iteration read, and runs the warp's mma.sync
// m16n8k8 on the one that arrived. Fragments are split into TF32 high and
// low parts as they are read from shared memory, so the tiles stay f32.
//
// The contraction's loaders: an operand that is a region input is copied
// by cp.async, 16 bytes at a time, zero-filled past the shape's edge; where
// its contiguous rows are not whole vectors (K = 5921), each tile line is
// copied from the 16-byte boundary before it into the tile's padding and
// the fragment reads skip the peeled floats (peelLoader); an operand
// computed by the region's producers (casts, elementwise ops) is read
// through them into registers and stored. The epilogue (Matmul.cpp) runs
// on each accumulator before the only store. A product whose 128 x 128
// tiles leave SMs idle and whose reduction is long also gets split-K
// variants: the reduction's steps split over blockIdx.z, each part's sums
// to the workspace, a finish kernel adding them in a fixed order (the same
// result every run) before the epilogue.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "ProductTail.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

int cuda_agent::builtin::tf32TileStride(const Tf32Tiling &t, bool isA,
                                        bool kMajor) {
  // [rows][BK + 4]: a fragment read (row g, k tig) hits bank
  // g * (BK + 4) + tig, 32 different ones for BK a multiple of 8 not of 32
  // too; [BK][rows + 8]: (k tig, row g) hits tig * (rows + 8) + g.
  return kMajor ? t.bk + 4 : (isA ? t.bm : t.bn) + 8;
}

namespace {
/// Floats of one stage of an operand's shared tile.
int stageFloats(const Tf32Tiling &t, bool isA, bool kMajor) {
  return (kMajor ? (isA ? t.bm : t.bn) : t.bk) *
         tf32TileStride(t, isA, kMajor);
}
} // namespace

int64_t cuda_agent::builtin::tf32SharedBytes(const Tf32Tiling &t, bool aKMajor,
                                             bool bKMajor) {
  return int64_t(t.stages) *
         (stageFloats(t, true, aKMajor) + stageFloats(t, false, bKMajor)) * 4;
}

StringRef cuda_agent::builtin::getTf32Helpers() {
  return R"cuda(// cp.async (sm_80): 16, 8 or 4 bytes from global to shared memory, zeros
// when !full; commit_group closes a stage's copies, wait_group<N> waits
// until at most N stages are in flight.
__device__ __forceinline__ void ca_cp_async16(float *dst, const float *src, bool full) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(full ? 16 : 0));
}
__device__ __forceinline__ void ca_cp_async8(float *dst, const float *src, bool full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(full ? 8 : 0));
}
__device__ __forceinline__ void ca_cp_async4(float *dst, const float *src, bool full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(full ? 4 : 0));
}
__device__ __forceinline__ void ca_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void ca_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
// x rounded to TF32 (to nearest, ties away), as f32 bits: cvt.rna.tf32.f32's
// rounding of a finite value (infinities kept), by the bits; sm_90 has no
// instruction for the cvt, whose NaN and infinity checks cost more.
__device__ __forceinline__ unsigned ca_tf32(float x) {
  return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}
// d += a * b for one warp: a 16x8 (row), b 8x8 (col), TF32 in, f32 out.
__device__ __forceinline__ void ca_mma_tf32(float *d, const unsigned *a, const unsigned *b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
)cuda";
}

std::string cuda_agent::builtin::tf32ChunkLoop(int chunks, int threads) {
  std::string text = llvm::formatv("#pragma unroll\n"
                                   "        for (int p = 0; p < {0}; ++p) {{\n"
                                   "          const int e = tid + p * {1};\n",
                                   (chunks + threads - 1) / threads, threads);
  if (chunks % threads != 0)
    text += "          if (e >= " + std::to_string(chunks) +
            ")\n            break;\n";
  return text;
}

int64_t cuda_agent::builtin::tf32StepsPerSplit(const Tf32Tiling &t, int64_t k,
                                               int splits) {
  int64_t steps = (k + t.bk - 1) / t.bk;
  return (steps + splits - 1) / splits;
}

std::string cuda_agent::builtin::writeTf32Mainloop(const Tf32Tiling &t,
                                                   const Tf32TileLoader &a,
                                                   const Tf32TileLoader &b,
                                                   int64_t k, StringRef init,
                                                   Tf32Split split,
                                                   int splits) {
  int aStage = stageFloats(t, true, a.kMajor);
  int bStage = stageFloats(t, false, b.kMajor);
  int lda = tf32TileStride(t, true, a.kMajor);
  int ldb = tf32TileStride(t, false, b.kMajor);
  int64_t kTiles = (k + t.bk - 1) / t.bk;
  std::string text = llvm::formatv(
      "  extern __shared__ __align__(16) float ca_smem[];\n"
      "  float *const As = ca_smem, *const Bs = ca_smem + {0};\n"
      "  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;\n"
      "  const int g = lane / 4, tig = lane % 4;\n"
      "  const int wm = (warp / {1}) * {2}, wn = (warp % {1}) * {3};\n",
      t.stages * aStage, t.warpsN, t.warpRows(), t.warpCols());
  text += tiles::mmaAccumulators(t.mmaTiling(), init);
  // The fragments the tensor cores sum into: `part`, added to acc every
  // promoteSteps steps, where the sums are promoted.
  StringRef sums = t.promoteSteps ? "part" : "acc";
  if (t.promoteSteps)
    text += llvm::formatv("  // The tensor cores' sums of {0} steps at a time, "
                          "added to acc in f32.\n",
                          t.promoteSteps)
                .str() +
            tiles::mmaAccumulators(t.mmaTiling(), "0.0f", sums);
  for (auto [loader, name] : {std::pair(&a, "aShift"), std::pair(&b, "bShift")})
    if (!loader->shift.empty())
      text += "  const int " + std::string(name) + " = " + loader->shift +
              ";\n";
  auto loads = [&](StringRef stage) {
    return "      {\n" +
           a.writeLoad(("As + " + stage + " * " + std::to_string(aStage)).str(),
                       "k0") +
           "      }\n      {\n" +
           b.writeLoad(("Bs + " + stage + " * " + std::to_string(bStage)).str(),
                       "k0") +
           "      }\n";
  };
  // The first stages - 1 tiles, then one tile requested per iteration.
  // Split-K: this block's part of the steps, from kBegin.
  std::string from;
  if (splits > 1) {
    int64_t per = tf32StepsPerSplit(t, k, splits);
    text += llvm::formatv("  const int kTiles = min({0}, {1} - (int)blockIdx.z "
                          "* {0});\n"
                          "  const long long kBegin = (long long)blockIdx.z * "
                          "{2};\n",
                          per, kTiles, per * t.bk)
                .str();
    from = "kBegin + ";
  } else {
    text += llvm::formatv("  const int kTiles = {0};\n", kTiles).str();
  }
  text += llvm::formatv("#pragma unroll\n"
                        "  for (int s = 0; s < {0}; ++s) {{\n"
                        "    if (s < kTiles) {{\n"
                        "      const long long k0 = {2}(long long)s * {1};\n",
                        t.stages - 1, t.bk, from)
              .str();
  text += loads("s") + "    }\n    ca_cp_async_commit();\n  }\n";
  text += llvm::formatv("  for (int kt = 0; kt < kTiles; ++kt) {{\n"
                        "    ca_cp_async_wait<{0}>();\n"
                        "    __syncthreads();\n"
                        "    if (kt + {1} < kTiles) {{\n"
                        "      const int next = kt + {1};\n"
                        "      const int stage = next % {2};\n"
                        "      const long long k0 = {4}(long long)next * {3};\n",
                        t.stages - 2, t.stages - 1, t.stages, t.bk, from)
              .str();
  text += loads("stage") + "    }\n    ca_cp_async_commit();\n";
  // Fragments (PTX ISA, m16n8k8 .tf32): A rows g and g + 8, columns tig and
  // tig + 4; B rows (k) tig and tig + 4, column g.
  // A peeled tile's lines start `shift` floats in (along k when kMajor).
  auto at = [](bool kMajor, int ld, StringRef row, StringRef kIdx,
               StringRef shift) {
    std::string s = shift.empty() ? "" : shift.str() + " + ";
    return kMajor ? "(" + row.str() + ") * " + std::to_string(ld) + " + " + s +
                        kIdx.str()
                  : "(" + kIdx.str() + ") * " + std::to_string(ld) + " + " + s +
                        row.str();
  };
  StringRef aShift = a.shift.empty() ? "" : "aShift";
  StringRef bShift = b.shift.empty() ? "" : "bShift";
  assert(!(a.lineShifts && a.kMajor) && !(b.lineShifts && b.kMajor) &&
         "per-line shifts of k lines only");
  // Per-line shifts: the offsets of the k lines kk + tig and kk + tig + 4,
  // read once per k step of 8 from the lines' last float.
  auto lineShiftsAt = [](StringRef tile, int ld, StringRef name) {
    return llvm::formatv("      const int {0}0 = __float_as_int({1}[(kk + "
                         "tig) * {2} + {3}]);\n"
                         "      const int {0}1 = __float_as_int({1}[(kk + "
                         "tig + 4) * {2} + {3}]);\n",
                         name, tile, ld, ld - 1)
        .str();
  };
  bool three = split == Tf32Split::Three;
  text += llvm::formatv(
      "    const float *const At = As + (kt % {0}) * {1};\n"
      "    const float *const Bt = Bs + (kt % {0}) * {2};\n"
      "#pragma unroll\n"
      "    for (int kk = 0; kk < {3}; kk += 8) {{\n"
      "      unsigned aBig[{4}][4], bBig[{5}][2];\n",
      t.stages, aStage, bStage, t.bk, t.mTiles(), t.nTiles())
              .str();
  if (three)
    text += llvm::formatv("      unsigned aSmall[{0}][4], bSmall[{1}][2];\n",
                          t.mTiles(), t.nTiles())
                .str();
  auto splitInto = [&](StringRef big, StringRef small, StringRef value) {
    std::string s = "        " + big.str() + " = ca_tf32(" + value.str() + ");\n";
    if (three)
      s += "        " + small.str() + " = ca_tf32(" + value.str() +
           " - __uint_as_float(" + big.str() + "));\n";
    return s;
  };
  if (a.lineShifts)
    text += lineShiftsAt("At", lda, "aSh");
  if (b.lineShifts)
    text += lineShiftsAt("Bt", ldb, "bSh");
  text += llvm::formatv("#pragma unroll\n"
                        "      for (int i = 0; i < {0}; ++i) {{\n"
                        "        const int row = wm + i * 16 + g;\n",
                        t.mTiles())
              .str();
  const char *aRows[] = {"row", "row + 8", "row", "row + 8"};
  const char *aKs[] = {"kk + tig", "kk + tig", "kk + tig + 4", "kk + tig + 4"};
  const char *aLineShifts[] = {"aSh0", "aSh0", "aSh1", "aSh1"};
  for (int q = 0; q < 4; ++q) {
    std::string x = "x" + std::to_string(q);
    text += "        const float " + x + " = At[" +
            at(a.kMajor, lda, aRows[q], aKs[q],
               a.lineShifts ? StringRef(aLineShifts[q]) : aShift) +
            "];\n";
    std::string r = "[i][" + std::to_string(q) + "]";
    text += splitInto("aBig" + r, "aSmall" + r, x);
  }
  text += llvm::formatv("      }\n"
                        "#pragma unroll\n"
                        "      for (int j = 0; j < {0}; ++j) {{\n"
                        "        const int col = wn + j * 8 + g;\n",
                        t.nTiles())
              .str();
  const char *bKs[] = {"kk + tig", "kk + tig + 4"};
  for (int q = 0; q < 2; ++q) {
    std::string y = "y" + std::to_string(q);
    std::string lineShift = "bSh" + std::to_string(q);
    text += "        const float " + y + " = Bt[" +
            at(b.kMajor, ldb, "col", bKs[q],
               b.lineShifts ? StringRef(lineShift) : bShift) +
            "];\n";
    std::string r = "[j][" + std::to_string(q) + "]";
    text += splitInto("bBig" + r, "bSmall" + r, y);
  }
  // The small products first: they are the smallest terms of the sum.
  text += llvm::formatv("      }\n"
                        "#pragma unroll\n"
                        "      for (int i = 0; i < {0}; ++i)\n"
                        "#pragma unroll\n"
                        "        for (int j = 0; j < {1}; ++j) {{\n",
                        t.mTiles(), t.nTiles())
              .str();
  if (three)
    text += llvm::formatv("          ca_mma_tf32({0}[i][j], aSmall[i], bBig[j]);\n"
                          "          ca_mma_tf32({0}[i][j], aBig[i], bSmall[j]);\n",
                          sums)
                .str();
  text += llvm::formatv("          ca_mma_tf32({0}[i][j], aBig[i], bBig[j]);\n"
                        "        }\n    }\n",
                        sums)
              .str();
  if (t.promoteSteps)
    text += llvm::formatv("    if ((kt + 1) % {0} == 0 || kt + 1 == kTiles) {{\n"
                          "#pragma unroll\n"
                          "      for (int i = 0; i < {1}; ++i)\n"
                          "#pragma unroll\n"
                          "        for (int j = 0; j < {2}; ++j)\n"
                          "#pragma unroll\n"
                          "          for (int q = 0; q < 4; ++q) {{\n"
                          "            acc[i][j][q] += part[i][j][q];\n"
                          "            part[i][j][q] = 0.0f;\n"
                          "          }\n"
                          "    }\n",
                          t.promoteSteps, t.mTiles(), t.nTiles())
                .str();
  return text + "  }\n";
}

Tf32Tiling cuda_agent::builtin::withF32Sums(Tf32Tiling t, int64_t k,
                                            Tf32Split split) {
  // A second set of accumulators needs registers: a warp tile of 64 x 64
  // (128 a thread, 256 with the sums) spills; 64 x 32 takes 219 of 255.
  bool room = t.mTiles() * t.nTiles() * 4 <= kTf32MaxSummedAccumulators;
  if (split == Tf32Split::Three && k > kTf32PromoteAfterK && room)
    t.promoteSteps = int(kTf32SumK / t.bk);
  return t;
}

namespace {

/// cp.async of 16 bytes of which only the first `bytes` are read (zeros
/// after them): the peeling loader's copy.
StringRef getPeelHelper() {
  return R"cuda(// cp.async of 16 bytes, the first `bytes` of them read, zeros after.
__device__ __forceinline__ void ca_cp_async16z(float *dst, const float *src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes));
}
)cuda";
}

/// The loader of a region input whose contiguous rows (k when `kMajor`,
/// else the tile's rows) are not whole 16-byte vectors: each line of the
/// tile is copied 16 bytes at a time from the boundary at or before its
/// first element (`sh` floats before it), one vector more than the line
/// (the tile's padding holds it); a copy reads only the elements before
/// the line's end in the operand (zeros after, and for lines past the
/// shape), so every read stays inside the operand. The fragment reads
/// skip the `sh` floats (Tf32TileLoader::shift).
Tf32TileLoader peelLoader(const Contraction &c, const Tf32Tiling &t, bool isA,
                          BlockArgument arg, bool kMajor, std::string &why) {
  Tf32TileLoader loader;
  loader.kMajor = kMajor;
  int rows = isA ? t.bm : t.bn, threads = t.threads();
  int64_t extent = isA ? c.M : c.N;
  int perLine = (kMajor ? t.bk : rows) / 4 + 1;
  int chunks = (kMajor ? rows : t.bk) * perLine;
  int ld = tf32TileStride(t, isA, kMajor);
  // The operand's linear index at row `r` and reduced index `k`.
  auto linear = [&](StringRef r, StringRef k) -> FailureOr<std::string> {
    FailureOr<SmallVector<std::string>> idx = applyIndexingMap(
        isA ? c.mapA : c.mapB,
        isA ? c.loopDims(r, "0", k) : c.loopDims("0", r, k), why);
    if (failed(idx))
      return failure();
    return linearize(*idx, shapeOf(arg));
  };
  std::string first = isA ? "m0" : "n0";
  FailureOr<std::string> at = linear("r", "k");
  // The lines this thread's fragments read start alike: rows g + 4i of a
  // k-major tile, k lines tig + 4i of the other (steps start at multiples
  // of 16).
  FailureOr<std::string> shiftAt = kMajor ? linear("(" + first + " + g)", "0")
                                          : linear(first, "tig");
  if (failed(at) || failed(shiftAt))
    return loader;
  loader.shift = "(int)((" + *shiftAt + ") & 3)";
  std::string base = "in" + std::to_string(arg.getArgNumber());
  // The line's end along its contiguous direction, and the condition that
  // the line is in the operand at all.
  std::string end = std::to_string(kMajor ? c.K : extent) + "LL";
  std::string lineIn = kMajor ? "r < " + std::to_string(extent) + "LL"
                              : "k < " + std::to_string(c.K) + "LL";
  std::string along = kMajor ? "k" : "r";
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(chunks, threads);
    std::string line = "e / " + std::to_string(perLine);
    std::string offset = "(e % " + std::to_string(perLine) + ") * 4";
    text += llvm::formatv("          const int kk = {0}, rr = {1};\n",
                          kMajor ? offset : line, kMajor ? line : offset)
                .str();
    text += kMajor ? "          const long long r = " + first +
                         " + rr;\n          long long k = " + k0.str() +
                         ";\n"
                   : "          const long long k = " + k0.str() +
                         " + kk;\n          long long r = " + first + ";\n";
    text += "          const int sh = (int)((" + *at + ") & 3);\n";
    text += "          " + along + " += " + (kMajor ? "kk" : "rr") +
            " - sh;\n";
    text += "          const long long left = " + lineIn + " ? (" + end +
            " - " + along + ") * 4 : 0;\n"
            "          const int bytes = left < 0 ? 0 : left > 16 ? 16 : "
            "(int)left;\n";
    text += "          ca_cp_async16z(" + tile.str() + " + " +
            (kMajor ? "rr * " + std::to_string(ld) + " + kk"
                    : "kk * " + std::to_string(ld) + " + rr") +
            ", bytes ? " + base + " + " + *at + " : " + base + ", bytes);\n";
    return text + "        }\n";
  };
  return loader;
}

/// The loader of a region input read as it is: cp.async of 4 consecutive
/// elements along its contiguous dimension, or peelLoader's copies where
/// its contiguous rows are not whole 16-byte vectors.
Tf32TileLoader copyLoader(const Contraction &c, const Tf32Tiling &t, bool isA,
                          BlockArgument arg, bool kMajor, std::string &why) {
  Tf32TileLoader loader;
  loader.kMajor = kMajor;
  int rows = isA ? t.bm : t.bn;
  int64_t extent = isA ? c.M : c.N;
  int64_t contiguous = kMajor ? c.K : extent;
  if (contiguous % 4 != 0)
    return peelLoader(c, t, isA, arg, kMajor, why);
  int width = 4;
  int chunksPerLine = (kMajor ? t.bk : rows) / width;
  int chunks = rows * t.bk / width, threads = t.threads();
  int ld = tf32TileStride(t, isA, kMajor);
  FailureOr<SmallVector<std::string>> idx = c.tileOperandIndices(isA, why);
  if (failed(idx))
    return loader;
  std::string at = "in" + std::to_string(arg.getArgNumber()) + " + " +
                   linearize(*idx, shapeOf(arg));
  SmallVector<std::string> conds = tiles::edgeConds(extent, rows, c.K, t.bk);
  std::string base = "in" + std::to_string(arg.getArgNumber());
  std::string first = isA ? "m0" : "n0";
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(chunks, threads);
    std::string line = "e / " + std::to_string(chunksPerLine);
    std::string along =
        "(e % " + std::to_string(chunksPerLine) + ") * " + std::to_string(width);
    text += llvm::formatv(
        "          const int kk = {0}, rr = {1};\n"
        "          const long long r = {2} + rr, k = {3} + kk;\n",
        kMajor ? along : line, kMajor ? line : along, first, k0)
                .str();
    std::string dst = tile.str() + " + " +
                      (kMajor ? "rr * " + std::to_string(ld) + " + kk"
                              : "kk * " + std::to_string(ld) + " + rr");
    std::string call = "ca_cp_async" + std::to_string(width * 4) + "(" + dst;
    if (conds.empty())
      text += "          " + call + ", " + at + ", true);\n";
    else
      text += "          const bool full = " + join(conds, " && ") + ";\n" +
              "          " + call + ", full ? " + at + " : " + base +
              ", full);\n";
    return text + "        }\n";
  };
  return loader;
}

/// The loader of an operand computed by the region's producers: each
/// element read through them and stored (no cp.async).
Tf32TileLoader storeLoader(const LinalgRegion &region, const Contraction &c,
                           const Tf32Tiling &t, bool isA, bool kMajor,
                           unsigned &counter, std::string &why) {
  Tf32TileLoader loader;
  loader.kMajor = kMajor;
  std::string value;
  FailureOr<std::string> body =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return loader;
  int rows = isA ? t.bm : t.bn;
  int64_t extent = isA ? c.M : c.N;
  int count = rows * t.bk, threads = t.threads();
  int ld = tf32TileStride(t, isA, kMajor);
  SmallVector<std::string> conds = tiles::edgeConds(extent, rows, c.K, t.bk);
  std::string first = isA ? "m0" : "n0";
  std::string inner = *body + "            x = " + value + ";\n";
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = llvm::formatv(
        "#pragma unroll\n"
        "        for (int p = 0; p < {0}; ++p) {{\n"
        "          const int e = tid + p * {1};\n"
        "          const int kk = {2}, rr = {3};\n"
        "          const long long r = {4} + rr, k = {5} + kk;\n"
        "          float x = 0.0f;\n",
        count / threads, threads,
        kMajor ? "e % " + std::to_string(t.bk) : "e / " + std::to_string(rows),
        kMajor ? "e / " + std::to_string(t.bk) : "e % " + std::to_string(rows),
        first, k0);
    text += (conds.empty() ? "          {\n"
                           : "          if (" + join(conds, " && ") + ") {\n") +
            inner + "          }\n";
    text += "          (" + tile.str() + ")[" +
            (kMajor ? "rr * " + std::to_string(ld) + " + kk"
                    : "kk * " + std::to_string(ld) + " + rr") +
            "] = x;\n        }\n";
    return text;
  };
  return loader;
}

/// The loader of operand A (`isA`) or B of `c`, or none (writeLoad empty)
/// with the reason in `why`.
Tf32TileLoader operandLoader(const LinalgRegion &region, const Contraction &c,
                             const Tf32Tiling &t, bool isA, unsigned &counter,
                             std::string &why) {
  Value operand = isA ? c.a : c.b;
  AffineMap map = isA ? c.mapA : c.mapB;
  bool kMajor = c.isInnermost(operand, map, c.k);
  auto arg = dyn_cast<BlockArgument>(operand);
  if (!arg)
    return storeLoader(region, c, t, isA, kMajor, counter, why);
  // A region input: copied where its innermost dimension is k or the
  // tile's rows; any other layout goes through the stores.
  if (!kMajor && !c.isInnermost(operand, map, isA ? c.m : c.n))
    return storeLoader(region, c, t, isA, /*kMajor=*/true, counter, why);
  return copyLoader(c, t, isA, arg, kMajor, why);
}

/// The split-K tail: each part's products stored to its M x N slice of
/// the workspace (blockIdx.z), then a `finish` kernel, a thread per
/// element, that adds the parts in order (the same sum every run), the
/// accumulator's init first, and runs the epilogue on the sum.
FailureOr<Variant> closeSplitK(const LinalgRegion &region, const Contraction &c,
                               const Tf32Tiling &t, Tf32Split split, int splits,
                               int64_t sharedBytes, std::string src,
                               unsigned &counter, std::string &why) {
  int64_t elements = c.M * c.N;
  src += fragmentStores(t.mmaTiling(), c.M, c.N,
                        llvm::formatv("        reinterpret_cast<float *>("
                                      "workspace)[((long long)blockIdx.z * "
                                      "{0}LL + m) * {1}LL + n] = "
                                      "acc[i][j][q];\n",
                                      c.M, c.N)
                            .str()) +
         "\n";
  src += kernelSignature(region, "finish", 256, true) + " {\n";
  std::string init =
      c.initIsSplat(region) ? region.splats.lookup(c.init) : "0.0f";
  src += llvm::formatv(
             "  const long long e = (long long)blockIdx.x * 256 + threadIdx.x;\n"
             "  if (e >= {0}LL)\n    return;\n"
             "  const long long m = e / {1}LL, n = e % {1}LL;\n"
             "  const float *const parts = reinterpret_cast<const float "
             "*>(workspace);\n"
             "  float acc = {2};\n"
             "#pragma unroll\n"
             "  for (int s = 0; s < {3}; ++s)\n"
             "    acc += parts[s * {0}LL + e];\n",
             elements, c.N, init, splits)
             .str();
  FailureOr<std::string> epilogue =
      writeEpilogue(region, c, "acc", counter, why);
  if (failed(epilogue))
    return failure();
  src += "  {\n" + *epilogue + "  }\n}\n";
  FailureOr<Launch> launch = productLaunch({"matmul", c.M, c.N, splits}, t.bm,
                                           t.bn, t.threads(), sharedBytes, why);
  if (failed(launch))
    return failure();
  return Variant{tf32VariantName(t, split) + "-k" + std::to_string(splits),
                 std::move(src),
                 {*launch, {"finish", {(elements + 255) / 256, 1, 1},
                            {256, 1, 1}}},
                 splits * elements * 4};
}

/// The kernel of `t` for the contraction `c`; split-K over `splits` parts
/// (for one batch) when more than one.
FailureOr<Variant> writeTf32(const LinalgRegion &region, const Contraction &c,
                             const Tf32Tiling &tiling, Tf32Split split,
                             std::string &why, int splits = 1) {
  const Tf32Tiling t = withF32Sums(
      tiling, splits > 1 ? tf32StepsPerSplit(tiling, c.K, splits) * tiling.bk
                         : c.K,
      split);
  unsigned counter = 0;
  Tf32TileLoader a = operandLoader(region, c, t, true, counter, why);
  Tf32TileLoader b = operandLoader(region, c, t, false, counter, why);
  if (!a.writeLoad || !b.writeLoad)
    return failure();
  int threads = t.threads();
  std::string name = "matmul";
  std::string helpers = getTf32Helpers().str();
  if (!a.shift.empty() || !b.shift.empty())
    helpers += getPeelHelper();
  std::string src = getPrelude().str() + helpers + "\n" +
                    kernelSignature(region, name, threads, splits > 1) +
                    " {\n";
  src += llvm::formatv("  const long long m0 = (long long)blockIdx.y * {0};\n"
                       "  const long long n0 = (long long)blockIdx.x * {1};\n",
                       t.bm, t.bn)
             .str();
  src += c.batchIndices();
  std::string init =
      c.initIsSplat(region) && splits == 1 ? region.splats.lookup(c.init)
                                           : "0.0f";
  src += writeTf32Mainloop(t, a, b, c.K, init, split, splits);
  if (splits > 1)
    return closeSplitK(region, c, t, split, splits,
                       tf32SharedBytes(t, a.kMajor, b.kMajor), std::move(src),
                       counter, why);
  return closeProduct({name, c.M, c.N, c.batches}, t, split,
                      tf32SharedBytes(t, a.kMajor, b.kMajor), std::move(src),
                      writeEpilogue(region, c, "acc[i][j][q]", counter, why),
                      why);
}

} // namespace

void cuda_agent::builtin::addTf32Variants(const LinalgRegion &region,
                                          const Contraction &c,
                                          const GpuTarget &target,
                                          bool allowTf32, VariantList &list) {
  if (!elementOf(c.a).isF32() || !elementOf(c.b).isF32())
    return;
  if (!isSm80OrLater(target))
    return;
  // 128 x 128 (warp tiles 64 x 32) and 128 x 256 (64 x 64) for products
  // that fill the device, 64 x 64 (32 x 32) for those that do not.
  SmallVector<Tf32Tiling> tilings =
      bestFirst<Tf32Tiling>({{128, 128, 16, 3, 2, 4},
                             {128, 256, 16, 3, 2, 4},
                             {64, 64, 16, 4, 2, 2}},
                            hasFewBigTiles(c.M, c.N, c.batches, target));
  std::string reason;
  // Split-K first for one product whose 128 x 128 tiles leave SMs idle:
  // the parts fill about one and two waves, at least 16 steps each.
  if (c.batches == 1 && hasFewBigTiles(c.M, c.N, 1, target)) {
    Tf32Tiling t = {128, 128, 16, 3, 2, 4};
    int64_t tiles = (c.M + 127) / 128 * ((c.N + 127) / 128);
    int64_t steps = (c.K + t.bk - 1) / t.bk;
    SmallVector<int> seen;
    for (int64_t waves : {1, 2}) {
      int64_t parts = std::min<int64_t>(
          {(waves * target.smCount + tiles - 1) / tiles, steps / 16, 16});
      if (parts < 2)
        continue;
      // As many parts as have steps once each takes ceil(steps / parts).
      int64_t per = tf32StepsPerSplit(t, c.K, parts);
      int splits = int((steps + per - 1) / per);
      if (splits < 2 || llvm::is_contained(seen, splits))
        continue;
      seen.push_back(splits);
      list.add(writeTf32(region, c, t, Tf32Split::Three, reason, splits),
               reason);
    }
  }
  // Batched products with a short reduction (K <= 512, at most 32 steps of
  // 16) spend much of each step in its barrier and its cp.async wait: steps
  // of 32 halve them. A batch of 128 products of 128 x 256 by 256 x 512 ran
  // 99.6 us on 64 x 64 x 32 tiles against 108.2 on 64 x 64 x 16 (H100,
  // docs/perf.md); they are offered first and timed with the others, with
  // 64 x 128 tiles of four warps (32 x 64 each: fewer fragment reads and
  // splits per mma; 102.4 us there). Two or four stages, steps of 64, and
  // 128 x 64 tiles were slower (105.9-119.2 us).
  if (c.batches > 1 && c.K <= 512)
    tilings.insert(tilings.begin(),
                   {{64, 64, 32, 3, 2, 2}, {64, 128, 32, 3, 2, 2}});
  if (allowTf32)
    for (const Tf32Tiling &t : ArrayRef(tilings).take_front(2))
      list.add(writeTf32(region, c, t, Tf32Split::One, reason), reason);
  for (const Tf32Tiling &t : tilings)
    list.add(writeTf32(region, c, t, Tf32Split::Three, reason), reason);
}
