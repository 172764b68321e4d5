//===- Matmul.h - Contractions read from their maps -------------*- C++ -*-===//
//
// The matmul strategy's reading of a contraction region: which loop of the
// contraction generic is a batch, row (M), column (N) or reduced (K)
// dimension, the operands' maps (transposes are only maps), the
// accumulator's init, and the pieces every matmul kernel writes the same
// way: an operand's value at (row, k) through the region's elementwise
// producers, and the epilogue that turns an accumulator into the region's
// outputs at one element of the product.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H
#define CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H

#include "Strategy.h"

#include <algorithm>

namespace mlir::cuda_agent::builtin {

/// A contraction generic and its dimensions.
struct Contraction {
  linalg::GenericOp op;
  /// Loop dimensions of the batch, the rows, the columns and the reduction.
  SmallVector<unsigned> batch;
  unsigned m = 0, n = 0, k = 0;
  SmallVector<int64_t> ranges;
  int64_t M = 0, N = 0, K = 0, batches = 1;
  Value a, b, init, result;
  AffineMap mapA, mapB, mapC;

  /// The contraction's loop indices as C names: batch dimensions `bI`, the
  /// given row, column and reduced indices.
  SmallVector<std::string> loopDims(StringRef m, StringRef n,
                                    StringRef k) const;
  /// Operand A's (`isA`) or B's indices at row (or column) `r` and reduced
  /// index `k` of the block's tile (C variables of those names).
  FailureOr<SmallVector<std::string>>
  tileOperandIndices(bool isA, std::string &why) const;
  /// Statements declaring the batch indices `bI` from blockIdx.z.
  std::string batchIndices() const;
  /// Whether loop dimension `dim` is the innermost index of `operand`.
  bool isInnermost(Value operand, AffineMap map, unsigned dim) const;
  /// Whether the accumulator starts from one value (a fill): then the
  /// kernels start their accumulators from it.
  bool initIsSplat(const LinalgRegion &region) const {
    return region.splats.count(init);
  }
};

/// Reads the region's one contraction, or says why the region has none the
/// matmul kernels cover.
FailureOr<Contraction> analyzeContraction(const LinalgRegion &region,
                                          std::string &why);

/// Reads the contraction generic `g` (one of several in a region: an
/// attention's two products), or says why the matmul kernels do not cover it.
FailureOr<Contraction> analyzeContractionOp(linalg::GenericOp g,
                                            std::string &why);

/// Statements computing operand A (`isA`) or B at row (or column) `m` and
/// reduced index `k` (C expressions), through the region's producers; the
/// value's name goes to `value`.
FailureOr<std::string> writeOperandValue(const LinalgRegion &region,
                                         const Contraction &c, bool isA,
                                         StringRef m, StringRef k,
                                         unsigned &counter, std::string &value,
                                         std::string &why);

/// Statements storing every region output at the product's element (m, n)
/// (C variables `m`, `n` and the batch indices in scope), the contraction's
/// sum being `acc` (f32) before its init is added.
FailureOr<std::string> writeEpilogue(const LinalgRegion &region,
                                     const Contraction &c, StringRef acc,
                                     unsigned &counter, std::string &why);

class ElementEvaluator;

/// Makes the product's value at its element `idxC` (C expressions) known to
/// `eval` as the value of its result `result` there: the sum `acc` (f32)
/// plus the accumulator's `init` where that is not a splat the kernel
/// started from, rounded to the result's type.
LogicalResult bindProductAt(ElementEvaluator &eval, const LinalgRegion &region,
                            Value init, Value result,
                            ArrayRef<std::string> idxC, StringRef acc,
                            std::string &why);

/// The statements storing every region output at one element of a product
/// whose result `result` has the indices `idxC` (C expressions), the sum
/// being `acc` (f32) before the accumulator's `init` is added (nothing
/// added when `init` is a splat the kernel started from).
FailureOr<std::string> writeEpilogueAt(const LinalgRegion &region, Value init,
                                       Value result,
                                       ArrayRef<std::string> idxC,
                                       StringRef acc, unsigned &counter,
                                       std::string &why);

/// The SIMT kernel's shape: a BM x BN block tile, BK-deep steps, a TM x TN
/// register tile per thread (TM, TN multiples of 4).
struct Tiling {
  int bm, bn, bk, tm, tn;
  int threads() const { return (bm / tm) * (bn / tn); }
};

/// The pipelined SIMT kernel's shape: tiling `tile` (TM, TN multiples of
/// 4) with its warps laid out `warpsM` x `warpsN` over the block tile,
/// each warp's lanes over its warp tile so that a warp's 16-byte shared
/// reads of either operand span at most 128 bytes.
struct WarpTiling {
  Tiling tile;
  int warpsM, warpsN;
  int warpRows() const { return tile.bm / warpsM; }
  int warpCols() const { return tile.bn / warpsN; }
  int laneCols() const { return warpCols() / tile.tn; }
  int laneRows() const { return 32 / laneCols(); }
  /// Blocks per SM the registers are planned for: two with 8 x 8 per
  /// thread (at most 128 registers), one with more.
  int minBlocks() const { return tile.tm * tile.tn <= 64 ? 2 : 1; }
};

/// A tensor-core BM x BN block tile, BK deep, split over WARPS_M x WARPS_N
/// warps.
struct MmaTiling {
  int bm, bn, bk, warpsM, warpsN;
  int threads() const { return 32 * warpsM * warpsN; }
  int mTiles() const { return bm / warpsM / 16; } ///< 16-row mma tiles
  int nTiles() const { return bn / warpsN / 8; }  ///< 8-column mma tiles
};

/// The text the SIMT and tensor-core kernels of every product (matmul,
/// implicit-GEMM convolution) share; each kernel writes its own operand
/// loads and epilogue indices between them.
namespace tiles {
/// The conditions under which a tile element (row `r`, reduced index `k`)
/// is inside the operand: `r < extent` unless the `rows`-row tiles divide
/// it, `k < K` unless the `bk`-deep steps divide K.
SmallVector<std::string> edgeConds(int64_t extent, int rows, int64_t K,
                                   int bk);
/// The loop filling one operand's shared tile, `rows` x `bk`, `threads`
/// elements at a time: each thread's element e gives `kk` and `rr` (k the
/// fastest when `kFast`), `r` = `base` + rr and `k` = k0 + kk; `inner`
/// runs under `conds` (all true when empty) to set `x`, then `store`.
std::string loadLoop(int rows, int bk, int threads, bool kFast, StringRef base,
                     ArrayRef<std::string> conds, StringRef inner,
                     StringRef store);
/// `for (long long k0 = 0; k0 < K; k0 += bk) {`.
std::string kLoop(int64_t K, int bk);
/// SIMT: shared tiles As, Bs (k-major), thread and block coordinates.
std::string simtSetup(const Tiling &t);
/// SIMT: the TM x TN accumulators, all `init`.
std::string simtAccumulators(const Tiling &t, StringRef init);
/// SIMT: the products of one loaded step and the end of the k loop.
std::string simtProducts(const Tiling &t);
/// SIMT: the loops over a thread's elements (m, n) that the epilogue
/// statements follow, skipping those past M x N; closed by simtStoreEnd.
std::string simtStoreLoop(const Tiling &t, int64_t M, int64_t N);
inline StringRef simtStoreEnd() { return "      }\n    }\n  }\n}\n"; }
/// Pipelined SIMT: two shared buffers each of As, Bs (k-major), the
/// thread's first row `ty` and column `tx` in the block tile, block
/// coordinates.
std::string warpSetup(const WarpTiling &t);
/// Pipelined SIMT: the products of buffer `buf`'s step.
std::string warpProducts(const WarpTiling &t);
/// Pipelined SIMT: simtStoreLoop() for the warp layout; closed by
/// simtStoreEnd.
std::string warpStoreLoop(const WarpTiling &t, int64_t M, int64_t N);
/// mma.sync: shared tiles As, Bs ([rows][k], `storage`), warp coordinates.
std::string mmaSetup(const MmaTiling &t, StringRef storage);
/// mma.sync: the accumulator fragments (an array named `name`), all `init`.
std::string mmaAccumulators(const MmaTiling &t, StringRef init,
                            StringRef name = "acc");
/// mma.sync: the fragment reads and products of one loaded step (`ptxType`
/// f16 or bf16) and the end of the k loop.
std::string mmaProducts(const MmaTiling &t, StringRef ptxType);
/// mma.sync: the loops over a thread's accumulator elements (m, n) that the
/// epilogue statements follow; closed by mmaStoreEnd.
std::string mmaStoreLoop(const MmaTiling &t, int64_t M, int64_t N);
inline StringRef mmaStoreEnd() { return "      }\n}\n"; }
} // namespace tiles

/// Whether `target` is sm_80 or later (mma.sync on f16, bf16 and TF32,
/// cp.async).
bool isSm80OrLater(const GpuTarget &target);
/// Whether both operands of `c` are f16, or both bf16: the products the
/// 16-bit tensor-core kernels (mma.sync, wgmma) take.
bool hasHalfOperands(const Contraction &c);

/// Whether `c` has f32 operands that each take part in so few products
/// (M N / (M + N) under 256) that packing them into TF32 parts for the
/// wgmma kernels costs more than those kernels gain over mma.sync's.
bool packingOutweighsWgmma(const Contraction &c);

/// Whether a product of `M` x `N` (times `batches`) has fewer 128 x 128
/// tiles than `target` has SMs: then the smaller tiles come first.
bool hasFewBigTiles(int64_t M, int64_t N, int64_t batches,
                    const GpuTarget &target);

/// `tilings` (largest first) in the order their variants are tried: the
/// smallest first when `fewBigTiles`.
template <typename T>
SmallVector<T> bestFirst(SmallVector<T> tilings, bool fewBigTiles) {
  if (fewBigTiles)
    std::reverse(tilings.begin(), tilings.end());
  return tilings;
}

/// The SIMT and mma.sync tilings of every product, largest first.
SmallVector<Tiling> simtTilings();
/// The pipelined SIMT tilings of the products with at least as many
/// 128 x 128 tiles as the device has SMs.
SmallVector<WarpTiling> warpTilings();
SmallVector<MmaTiling> mmaTilings();

/// Appends the tensor-core variants (MatmulMma.cpp) when both operands are
/// f16 or both bf16 and `target` is sm_80 or later.
void addMmaVariants(const LinalgRegion &region, const Contraction &c,
                    const GpuTarget &target, VariantList &list);

/// Appends the warpgroup (wgmma) variants (MatmulWgmma.cpp), built for
/// sm_90a, when `target` is sm_90 and both operands are f16, both bf16 or
/// both f32: for 16-bit operands the warp-specialized ones first (on the
/// operands as they are where both are region inputs copied with cp.async,
/// else packed into the workspace first), then those loading an operand
/// through registers where they must; for f32 operands, 3xTF32 products
/// on packed operands, after the plain TF32 ones when `allowTf32`
/// (precision=tf32). No variant (and no reason: the mma.sync ones follow)
/// otherwise.
void addWgmmaVariants(const LinalgRegion &region, const Contraction &c,
                      const GpuTarget &target, bool allowTf32,
                      VariantList &list);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_MATMUL_H
