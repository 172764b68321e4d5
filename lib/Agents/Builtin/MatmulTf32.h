//===- MatmulTf32.h - The TF32 tensor-core mainloop -------------*- C++ -*-===//
//
// The mainloop of the f32 products on tensor cores (MatmulTf32.cpp): a block
// computes a BM x BN tile of C = A * B from BK-deep tiles of A and B staged
// through `stages` buffers of dynamic shared memory (cp.async, several tiles
// in flight), each warp a part of it with `mma.sync.aligned.m16n8k8` on TF32
// operands. 3xTF32 splits every f32 operand into big = tf32(x) and small =
// tf32(x - big) and accumulates small*big + big*small + big*big in f32,
// which is as accurate as an f32 product; 1xTF32 (precision=tf32 only)
// accumulates big*big. The mainloop does not know where the tiles come
// from: each operand has a loader that writes the statements filling one
// stage, so a contraction reads its operands' rows and a convolution can
// gather an implicit-GEMM tile.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_MATMULTF32_H
#define CUDA_AGENT_AGENTS_BUILTIN_MATMULTF32_H

#include "Matmul.h"

#include <functional>

namespace mlir::cuda_agent::builtin {

/// A BM x BN block tile, BK deep (a multiple of 8), `stages` tiles in
/// shared memory, split over warpsM x warpsN warps (each a multiple of 16
/// rows and 8 columns). With `promoteSteps`, the tensor cores sum that many
/// BK steps into a fragment of their own, which is then added to the
/// accumulators in f32 (withF32Sums).
struct Tf32Tiling {
  int bm, bn, bk, stages, warpsM, warpsN;
  int promoteSteps = 0;
  int threads() const { return 32 * warpsM * warpsN; }
  int warpRows() const { return bm / warpsM; }
  int warpCols() const { return bn / warpsN; }
  int mTiles() const { return warpRows() / 16; } ///< 16-row mma tiles
  int nTiles() const { return warpCols() / 8; }  ///< 8-column mma tiles
  /// The same block and warp split as the mma.sync tiles' (their store loop).
  MmaTiling mmaTiling() const { return {bm, bn, bk, warpsM, warpsN}; }
};

/// How many TF32 products make one f32 product.
enum class Tf32Split {
  Three, ///< small*big + big*small + big*big: f32 accuracy
  One,   ///< big*big: TF32 accuracy (precision=tf32)
};

/// How one operand's tile reaches shared memory. A `kMajor` tile is stored
/// [rows][BK + 4] floats (k contiguous), any other [BK][rows + 8] (rows
/// contiguous); both paddings keep a warp's fragment reads on 32 banks.
/// `writeLoad(tile, k0)` writes the statements that fill the operand's
/// rows x BK tile at reduced offset `k0` (a `long long` in scope) into
/// `tile` (a `float *` C expression), zero outside the operand: cp.async
/// copies (ca_cp_async*, which the mainloop commits and waits for) or plain
/// stores. `tid` (the thread), `m0`, `n0` (the block tile's first row and
/// column) and the batch indices are in scope.
///
/// A peeling loader (an operand whose contiguous rows are not whole 16-byte
/// vectors) copies each line of the tile from the 16-byte boundary at or
/// before its first element, so the line's elements start `shift` floats
/// into it: `shift` is the C int expression (of `g`, `tig`, `m0`, `n0` and
/// the batch indices) of that offset for the lines this thread's fragments
/// read; empty when the lines start at their first element.
///
/// A loader whose lines each start at an offset of their own (`lineShifts`:
/// an NCHW input's rows at each tap's shift, copied from the 16-byte
/// boundary before them) stores each line's offset, an int's bits, in the
/// line's last float of padding (stride - 1); the fragment reads look it up
/// per line. Only for a tile that is not kMajor (its lines are k lines,
/// shared by all of a thread's fragments).
struct Tf32TileLoader {
  bool kMajor = true;
  std::function<std::string(StringRef tile, StringRef k0)> writeLoad;
  std::string shift;
  bool lineShifts = false;
};

/// The reduction length the tensor cores sum into one fragment of a 3xTF32
/// product before it is added to the accumulators in f32. They round each
/// accumulation toward zero, so one accumulator over the whole reduction
/// loses precision with its length (measured on the H200, docs/perf.md:
/// 3.7-4x the f32 loop's error at K = 256-576, 5-6x at 1024); 128 at a
/// time (48 mma sums) is as precise as the f32 loop.
inline constexpr int64_t kTf32SumK = 128;

/// The reduction length past which the 3xTF32 mma.sync kernels add their
/// sums in f32 (kTf32SumK at a time). Up to it one accumulator stays within
/// the verifier's precision rule (at most 6x the default lowering's error)
/// and is faster: a second set of accumulators takes 64 more registers a
/// thread, which costs the conv's two-blocks-an-SM tiles 14% (KernelBench's
/// 3x3 at K = 576: 1076 against 942 us, docs/perf.md).
inline constexpr int64_t kTf32PromoteAfterK = 1024;

/// The most accumulators a thread of a promoting tiling holds (as many
/// again for the partial sums).
inline constexpr int kTf32MaxSummedAccumulators = 64;

/// `t` summing kTf32SumK of the reduction at a time when `split` is 3xTF32,
/// the `k` reduced indices are more than kTf32PromoteAfterK and its threads
/// have room
/// for the partial sums (kTf32MaxSummedAccumulators); `t` otherwise (a
/// plain TF32 product is as precise as its operands anyway; a tiling
/// without room keeps one accumulator, which the verifier's precision rule
/// judges).
Tf32Tiling withF32Sums(Tf32Tiling t, int64_t k, Tf32Split split);

/// The floats per row of an operand's shared tile (see Tf32TileLoader).
int tf32TileStride(const Tf32Tiling &t, bool isA, bool kMajor);

/// The dynamic shared memory the mainloop of `t` uses, in bytes.
int64_t tf32SharedBytes(const Tf32Tiling &t, bool aKMajor, bool bKMajor);

/// The device functions the mainloop calls (cp.async, cvt.rna.tf32,
/// mma.sync m16n8k8 on TF32), for a kernel's source before the kernel.
StringRef getTf32Helpers();

/// The loop of a loader over `chunks` copies, `threads` at a time: each
/// thread's copy `e` (the loop's body and its closing brace follow).
std::string tf32ChunkLoop(int chunks, int threads);

/// The kernel body from its shared tiles to the end of the reduction over
/// `k` reduced indices, or over the `splits` parts of them (split-K: part
/// blockIdx.z, whole BK steps each, the last one shorter): declares `tid`, `lane`, `warp`, `g` (lane / 4),
/// `tig` (lane % 4), the warp's first row `wm` and column `wn` in the block
/// tile, and `acc[mTiles][nTiles][4]`, started at `init` (a C float
/// expression), with every `t.promoteSteps` steps' sums added to it in f32. Afterwards acc[i][j][q] is the product at block-tile row
/// `wm + i * 16 + g + (q / 2) * 8` and column `wn + j * 8 + 2 * tig + q % 2`.
std::string writeTf32Mainloop(const Tf32Tiling &t, const Tf32TileLoader &a,
                              const Tf32TileLoader &b, int64_t k,
                              StringRef init, Tf32Split split,
                              int splits = 1);

/// The BK steps of each of the `splits` parts of a split-K reduction over
/// `k` reduced indices; the parts that have any are ceil(steps / that).
int64_t tf32StepsPerSplit(const Tf32Tiling &t, int64_t k, int splits);

/// Appends the 3xTF32 variants of the contraction `c` when both operands
/// are f32 and `target` is sm_80 or later, after the 1xTF32 ones when
/// `allowTf32` (precision=tf32).
void addTf32Variants(const LinalgRegion &region, const Contraction &c,
                     const GpuTarget &target, bool allowTf32,
                     VariantList &list);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_MATMULTF32_H
