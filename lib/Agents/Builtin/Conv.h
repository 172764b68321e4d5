//===- Conv.h - Convolutions read as implicit GEMMs -------------*- C++ -*-===//
//
// What the conv strategy's files share: a convolution generic read as the
// product of its im2col matrix and its filter (ConvProduct, matched in
// Conv.cpp, with the C index arithmetic of its rows, columns and reduced
// indices), and the readers of the product's operands that the strategy's
// kernels are assembled from: the im2col gather into the SIMT, mma.sync and
// TF32 tiles, the NCHW row runs and the tap-offset table
// (ConvOperands.cpp), and the im2col matrix packed into the workspace by a
// pack kernel and copied from there (ConvPack.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_CONV_H
#define CUDA_AGENT_AGENTS_BUILTIN_CONV_H

#include "MatmulTf32.h"
#include "MatmulWgmma.h"

namespace mlir::cuda_agent::builtin {

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
  /// A reduction after the convolution in the same region (over its output
  /// channels, the product's columns: writeChannelReduction), or null.
  linalg::GenericOp channelReduction;
};

//===----------------------------------------------------------------------===//
// Indices (Conv.cpp)
//===----------------------------------------------------------------------===//

/// Whether loop dimension `dim` occurs in `expr`.
bool usesDim(AffineExpr expr, unsigned dim);

/// Statements splitting the int `linear` into the loop indices of `dims`
/// (slowest first) named `prefix`<i>, set in `loop`.
std::string splitIndex(StringRef linear, const ConvProduct &c,
                       ArrayRef<unsigned> dims, StringRef prefix,
                       SmallVector<std::string> &loop);

/// The loop indices of the product's element (row `m`, column `n`, reduced
/// index `k`; null for none) as statements and names.
std::string splitLoops(const ConvProduct &c, StringRef m, StringRef n,
                       StringRef k, SmallVector<std::string> &loop);

/// The operand's indices of `map` at the loop indices `loop`.
FailureOr<SmallVector<std::string>>
renderMap(AffineMap map, ArrayRef<std::string> loop, std::string &why);

//===----------------------------------------------------------------------===//
// A reduction over the output channels (ConvReduction.cpp)
//===----------------------------------------------------------------------===//

/// The last lines of a tensor-core kernel (the fragment layout of `t`)
/// whose region reduces the product over its columns (the convolution's
/// output channels, `c.channelReduction`) after the epilogue: each thread
/// combines the reduction's terms at its accumulators row by row, a quad's
/// lanes by shuffles, the warps along the columns through shared memory,
/// and one thread per row stores the combination with the reduction's
/// init, then the region's outputs computed from it. The product is never
/// stored. Fails (with `why`) where a tile holds fewer columns than the
/// product, the reduction reads the product elsewhere than at the element
/// (a transpose between) or reduces other loops too.
FailureOr<std::string> writeChannelReduction(const LinalgRegion &region,
                                             const ConvProduct &c,
                                             const MmaTiling &t,
                                             unsigned &counter,
                                             std::string &why);

//===----------------------------------------------------------------------===//
// Operand tiles (ConvOperands.cpp)
//===----------------------------------------------------------------------===//

/// The index of the input (`isA`) or the filter at a tile element (row
/// `r`, reduced index `k`), the statements splitting them appended to
/// `body`.
FailureOr<SmallVector<std::string>> tileElementIndex(const ConvProduct &c,
                                                     bool isA,
                                                     std::string &body,
                                                     std::string &why);

/// Whether the tile of the input (`isA`) or the filter is filled along k:
/// when the operand's innermost index holds only reduced loops (NHWC's
/// channel, FCHW's tap), else along the rows.
bool fillsAlongK(const ConvProduct &c, bool isA);

/// The loop filling the shared tile of the input (`isA`, the implicit
/// im2col matrix) or the filter: each element read at the index the
/// operand's map gives, through the region's producers, along the operand's
/// innermost index (fillsAlongK).
FailureOr<std::string> writeConvTileLoad(const LinalgRegion &region,
                                         const ConvProduct &c, int rows,
                                         int bk, int threads, bool isA,
                                         StringRef store, unsigned &counter,
                                         std::string &why);

/// The TF32 loader of an NCHW input, or of a zero pad of one, whose im2col
/// offsets are separable (hasSeparableIm2col; tapsInput): a block first
/// writes the offset of every reduced index of the reduction (each channel
/// and tap; -1 past K) into a shared table, and each thread the offset of
/// its tile row (the loader's copies give a thread one row when the block's
/// threads are a multiple of the tile's rows); a copy then adds the two,
/// one table read and one 4-byte cp.async per element instead of splitting
/// the row and the reduced index into the loop indices at every copy. For
/// a pad, each entry holds the bit of its tap too (the reduced loops of the
/// padded indices that hold a row loop: kh and kw for NCHW's H and W) and
/// each thread the mask of the taps whose element is inside the pad's
/// source at its row; a copy outside is zero-filled. The statements before
/// the mainloop go into `prologue`. The table lies in the dynamic shared
/// memory after the mainloop's stages (static shared memory would not count
/// in the plan's shared_bytes, and the launcher would not opt into more than
/// 48 KiB of dynamic for it); `sharedBytes` grows by it.
FailureOr<Tf32TileLoader>
convTapsLoader(const LinalgRegion &region, const ConvProduct &c,
               const Tf32Tiling &t, BlockArgument arg, std::string &prologue,
               int64_t &sharedBytes, std::string &why);

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
                                         unsigned &counter, std::string &why);

/// Whether convTf32Loader reads the im2col tiles of tiling `t` element by
/// element (4-byte copies or stores): not the row copies of an NCHW input
/// nor the 16-byte copies of NHWC channels.
bool needsGather(const LinalgRegion &region, const ConvProduct &c,
                 const Tf32Tiling &t);

/// The region input whose im2col tiles convTapsLoader can copy, or null:
/// an NCHW input (its tile rows contiguous, not k) with separable offsets,
/// unpadded and outside rowRunDim's row copies at tiling `t`, or the source
/// of a zero pad whose row-dependent bounds span at most 64 taps (a 7x7
/// kernel's 49 fit a 64-bit mask, an 11x11's 121 do not); the block's
/// threads a multiple of the tile's rows.
BlockArgument tapsInput(const LinalgRegion &region, const ConvProduct &c,
                        const Tf32Tiling &t);

/// The pad of a region input with the value +0.0 that `operand` is, or
/// null: cp.async's zero fill writes its outside.
const RegionPad *zeroPadOfInput(const LinalgRegion &region, Value operand);

//===----------------------------------------------------------------------===//
// f16/bf16 convolutions on wgmma (ConvWgmma.cpp)
//===----------------------------------------------------------------------===//

/// The warp-specialized wgmma kernel (MatmulWgmma.h) of an f16 or bf16
/// convolution whose channels are the input's innermost index and the
/// reduction's fastest loop, in whole 64-element steps (NHWC): its producer
/// warpgroup copies the im2col rows by cp.async through a shared table of
/// the block's row offsets (zero-filling a zero pad of the input's
/// outside), the filter as a K x N matrix; `product` the conv strategy's
/// shape and stores. `throughL1`: the im2col copies through L1
/// (cp.async.ca), which may hold the rows the step before read.
FailureOr<Variant> writeConvSpecialized(const LinalgRegion &region,
                                        const ConvProduct &c,
                                        const SpecializedProduct &product,
                                        const SpecializedTiling &t,
                                        bool throughL1, std::string &why);

/// Appends writeConvSpecialized's variants on sm_90, tiles as wide as the
/// output channels first.
void addConvWgmmaVariants(const LinalgRegion &region, const ConvProduct &c,
                          const SpecializedProduct &product,
                          const GpuTarget &target, VariantList &list);

//===----------------------------------------------------------------------===//
// The packed im2col matrix (ConvPack.cpp)
//===----------------------------------------------------------------------===//

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
                                     unsigned &counter, std::string &why);

/// The loader of a packed operand (writePackRows): 16-byte cp.async copies
/// of the tile's rows from the workspace at float `at` plus `row` rows
/// (a C expression), no bounds.
Tf32TileLoader packedLoader(const Tf32Tiling &t, bool isA, int64_t kp,
                            int64_t at, std::string row);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_CONV_H
