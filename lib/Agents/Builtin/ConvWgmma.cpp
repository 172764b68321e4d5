//===- ConvWgmma.cpp - f16/bf16 convolutions on Hopper's wgmma ------------===//
//
// The conv strategy's warp-specialized wgmma kernels (MatmulWgmma.h) for f16
// or bf16 convolutions with f32 accumulation on sm_90: the implicit GEMM of
// the im2col matrix and the filter on the matmul's consumer warpgroups, fed
// by a producer warpgroup that copies the im2col rows itself. The input's
// channels must be its innermost index and the filter's fastest reduced loop
// (NHWC with an HWCF or FHWC filter), a multiple of 64: then each 64-deep
// step of the reduction is one tap and 64 consecutive channels of every
// row, 128 contiguous bytes of the input, copied as 16-byte cp.async chunks
// into the 128-byte-swizzled K-major tile wgmma reads. The input offset of
// an im2col element is separable: a part of its row (batch and output
// pixel: n, oh * stride - low, ow * stride - low) and a part of its reduced
// index (tap * dilation, channel). The producer writes the row parts of the
// block's rows into a shared table once (their linear offset, and the
// indices the taps move), and each step adds the step's tap and channel to
// them: one shared read, two compares and one copy per 16 bytes, the
// compares zero-filling what lies in a zero pad of the input (a tensor.pad
// the outliner fused, read from its source) or past the last row. The
// filter is a plain K x N matrix, copied as the matmul's producer copies
// it. The epilogue is the conv strategy's (bias, activations, residuals,
// casts), at each element of the staged tile. Where the tiles fill the SMs
// several times, persistent kernels come first (a grid of one or two blocks
// an SM looping over the tiles, the producer filling the next tile's stages
// while the consumers store the last one from their fragments: 134 against
// 168 us on KernelBench's f16 3x3, docs/perf.md); variants copying the
// im2col rows through L1 follow.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "KernelText.h"
#include "MatmulWgmma.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// Index dimensions of the input whose element a tap moves, checked against
/// the source's extent at every copy: at most two (a 2-D convolution's H
/// and W), held in the table's entry beside the row's offset.
constexpr int kMaxBoundedDims = 2;

/// Bytes of one row's entry in the producer's table: its offset, the
/// bounded indices, whether the row is in the product (an int4).
constexpr int kRowEntryBytes = 16;

/// The shared memory of the producer's table of tiling `t`'s rows.
int64_t rowTableBytes(const SpecializedTiling &t) {
  return int64_t(t.bm()) * kRowEntryBytes;
}

/// The producer warpgroup's named barrier (the consumers' is 1).
constexpr int kProducerBarrier = 2;

/// The 16-byte async copy through L1 (cp.async.ca): a step's im2col rows
/// are the step before's shifted by one pixel where the taps move along the
/// input's rows, so L1 may hold most of them.
constexpr const char *kL1CopyHelper = R"cuda(// 16 bytes global -> shared through L1, asynchronously; zeros when !full.
__device__ __forceinline__ void ca_cp_async16_l1(unsigned dst, const void *src, bool full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n"
               :: "r"(dst), "l"(src), "r"(full ? 16 : 0) : "memory");
}
)cuda";

/// How the producer reads the input's im2col rows.
struct Im2colSource {
  /// The region input read (the input, or the source of its zero pad).
  BlockArgument arg;
  ArrayRef<int64_t> shape;
  /// The pad's low padding per index (zeros without a pad).
  SmallVector<int64_t> low;
  /// The element stride of each index in `arg`.
  SmallVector<int64_t> strides;
  /// The indices a tap moves or a pad bounds, innermost (channel) excluded.
  SmallVector<unsigned> bounded;
  /// The channels: the innermost index's extent.
  int64_t channels = 0;
};

/// Whether the input of `c` is read as Im2colSource needs, and how.
FailureOr<Im2colSource> im2colSource(const LinalgRegion &region,
                                     const ConvProduct &c, std::string &why) {
  Im2colSource s;
  AffineMap map = c.mapIn;
  SmallVector<int64_t> low(map.getNumResults(), 0);
  if (const RegionPad *pad = zeroPadOfInput(region, c.input)) {
    s.arg = cast<BlockArgument>(pad->source);
    low.assign(pad->low.begin(), pad->low.end());
  } else if (auto arg = dyn_cast<BlockArgument>(c.input)) {
    s.arg = arg;
  } else {
    why = "the wgmma convolution copies a region input or a zero pad of one";
    return failure();
  }
  s.low = low;
  s.shape = shapeOf(s.arg);
  if (product(s.shape) >= (int64_t(1) << 31)) {
    why = "the wgmma convolution's input offsets are 32-bit";
    return failure();
  }
  // The channel: the input's innermost index, the filter's fastest reduced
  // loop, 64-element steps of it.
  unsigned last = map.getNumResults() - 1;
  auto channel = dyn_cast<AffineDimExpr>(map.getResult(last));
  if (c.kDims.empty() || !channel ||
      channel.getPosition() != c.kDims.back()) {
    why = "the wgmma convolution reads channels innermost in the input and "
          "fastest in the reduction (NHWC)";
    return failure();
  }
  s.channels = c.ranges[c.kDims.back()];
  if (s.channels % kStepK != 0 || low[last] != 0) {
    why = "the wgmma convolution takes channels in whole 64-element steps, "
          "unpadded";
    return failure();
  }
  s.strides.assign(s.shape.size(), 1);
  for (int i = int(s.shape.size()) - 2; i >= 0; --i)
    s.strides[i] = s.strides[i + 1] * s.shape[i + 1];
  for (unsigned i = 0; i < last; ++i) {
    AffineExpr e = map.getResult(i);
    if (usesDim(e, channel.getPosition())) {
      why = "the wgmma convolution reads the channel in one index";
      return failure();
    }
    bool moved = llvm::any_of(c.kDims, [&](unsigned d) { return usesDim(e, d); });
    if (moved || low[i] != 0 || shapeOf(c.input)[i] != s.shape[i])
      s.bounded.push_back(i);
  }
  if (s.bounded.size() > kMaxBoundedDims) {
    why = "the wgmma convolution bounds at most two input indices";
    return failure();
  }
  return s;
}

/// The filter as the K x N matrix B of the product, or the reason: its
/// reduced loops consecutive in memory in the reduction's order.
FailureOr<ProducerSource> filterSource(const ConvProduct &c,
                                       std::string &why) {
  auto arg = dyn_cast<BlockArgument>(c.filter);
  if (!arg || c.nDims.size() != 1) {
    why = "the wgmma convolution copies a filter that is a region input, "
          "one output-channel loop";
    return failure();
  }
  ArrayRef<int64_t> shape = shapeOf(c.filter);
  DenseMap<unsigned, int64_t> strideOf;
  int64_t stride = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    strideOf[c.mapFilter.getDimPosition(i)] = stride;
    stride *= shape[i];
  }
  for (size_t i = 0; i + 1 < c.kDims.size(); ++i)
    if (strideOf[c.kDims[i]] !=
        strideOf[c.kDims[i + 1]] * c.ranges[c.kDims[i + 1]]) {
      why = "the wgmma convolution reads a filter whose reduced loops are "
            "not one matrix dimension";
      return failure();
    }
  ProducerSource b{false, false, "", "", 0, 0, c.N, c.K};
  b.strideK = strideOf[c.kDims.back()];
  b.strideRow = strideOf[c.nDims.front()];
  b.kMajor = b.strideK == 1;
  if (b.kMajor ? c.K % 8 != 0 : b.strideRow != 1 || c.N % 8 != 0) {
    why = "the wgmma convolution copies a filter in whole 16-byte chunks of "
          "its contiguous dimension";
    return failure();
  }
  b.any = b.pointer = "in" + std::to_string(arg.getArgNumber());
  return b;
}

/// The product's row index of the input at row `m` (int C expressions)
/// and at reduced index `k`, each with the other's loops at 0.
FailureOr<SmallVector<std::string>> inputPart(const ConvProduct &c,
                                              StringRef m, StringRef k,
                                              std::string &text,
                                              std::string &why) {
  SmallVector<std::string> loop;
  text += splitLoops(c, m, "", k, loop);
  return renderMap(c.mapIn, loop, why);
}

/// The producer's copies of the im2col tile (`rows` x 64 elements a step,
/// K-major, at stage offset `oa`): the table of the block's rows, then per
/// step the tap's offset and bounds, and each thread's copies of chunk
/// tid % 8 of rows tid / 8 + 16 p.
FailureOr<ProducerLoad> writeIm2colLoad(const ConvProduct &c,
                                        const Im2colSource &s, int rows,
                                        int stages, bool throughL1,
                                        std::string &why) {
  std::string in = "in" + std::to_string(s.arg.getArgNumber());
  // The row part: the loops of row m, the taps at 0, less the low padding.
  std::string rowText;
  FailureOr<SmallVector<std::string>> rowIdx =
      inputPart(c, "m", "", rowText, why);
  if (failed(rowIdx))
    return failure();
  std::string offset = "0";
  for (auto [i, idx] : llvm::enumerate(*rowIdx))
    offset += llvm::formatv(" + ({0} - {1}) * {2}", idx, s.low[i], s.strides[i])
                  .str();
  std::string fields[kMaxBoundedDims] = {"0", "0"};
  for (auto [j, i] : llvm::enumerate(s.bounded))
    fields[j] = llvm::formatv("{0} - {1}", (*rowIdx)[i], s.low[i]).str();
  ProducerLoad load;
  load.setup = llvm::formatv(
      "    // The im2col rows of the block's tile: each row's input offset and\n"
      "    // the indices its taps move, once, in the table after the "
      "mbarriers\n"
      "    // (once every producer thread read the table of its last tile).\n"
      "    asm volatile(\"bar.sync {7}, 128;\\n\" ::: \"memory\");\n"
      "    int4 *const rowTable = reinterpret_cast<int4 *>(ca_smem + (full - "
      "smem0) + {0});\n"
      "    for (int r = tid; r < {1}; r += 128) {{\n"
      "      const long long m = m0 + r;\n"
      "      int4 e = make_int4(0, 0, 0, 0);\n"
      "      if (m < {2}LL) {{\n"
      "{3}"
      "        e = make_int4({4}, {5}, {6}, 1);\n"
      "      }\n"
      "      rowTable[r] = e;\n"
      "    }\n"
      "    asm volatile(\"bar.sync {7}, 128;\\n\" ::: \"memory\");\n"
      "    const int rrA = tid >> 3, kcA = tid & 7;\n"
      "    const auto *srcA = {8} + kcA * 8;\n"
      "    const unsigned dstA = rrA * 128 + ((kcA ^ (rrA & 7)) << 4);\n",
      16 * stages, rows, c.M, rowText, offset, fields[0], fields[1],
      kProducerBarrier, in);
  // The reduced part of step k0: its tap's offset and index moves.
  std::string kText;
  FailureOr<SmallVector<std::string>> kIdx = inputPart(c, "", "k0", kText, why);
  if (failed(kIdx))
    return failure();
  std::string kOffset = "0";
  for (auto [i, idx] : llvm::enumerate(*kIdx))
    kOffset += llvm::formatv(" + {0} * {1}", idx, s.strides[i]).str();
  std::string ok = "e.w";
  const char *field[] = {"e.y", "e.z"};
  std::string moves;
  for (auto [j, i] : llvm::enumerate(s.bounded)) {
    moves += llvm::formatv("        const int tap{0} = {1};\n", j, (*kIdx)[i]);
    ok += llvm::formatv(" && (unsigned)({0} + tap{1}) < {2}u", field[j], j,
                        s.shape[i])
              .str();
  }
  load.step = llvm::formatv(
      "      {{\n"
      "{0}"
      "        const int kOffset = {1};\n"
      "{2}"
      "#pragma unroll\n"
      "        for (int p = 0; p < {3}; ++p) {{\n"
      "          const int4 e = rowTable[rrA + p * 16];\n"
      "          const bool ok = {4};\n"
      "          {6}(sbase + oa + dstA + p * 2048, ok ? srcA + "
      "(e.x + kOffset) : {5}, ok);\n"
      "        }\n"
      "      }\n",
      kText, kOffset, moves, rows / 16, ok, in,
      throughL1 ? "ca_cp_async16_l1" : "ca_cp_async16");
  return load;
}

} // namespace

FailureOr<Variant> cuda_agent::builtin::writeConvSpecialized(
    const LinalgRegion &region, const ConvProduct &c,
    const SpecializedProduct &product, const SpecializedTiling &t,
    bool throughL1, std::string &why) {
  Type in = elementOf(c.input);
  if (in != elementOf(c.filter) || !(in.isF16() || in.isBF16())) {
    why = "the wgmma convolution takes f16 or bf16 inputs and filters";
    return failure();
  }
  if (c.channelReduction) {
    why = "a reduction over the output channels is not written for the wgmma "
          "convolution";
    return failure();
  }
  FailureOr<Im2colSource> a = im2colSource(region, c, why);
  if (failed(a))
    return failure();
  FailureOr<ProducerSource> b = filterSource(c, why);
  if (failed(b))
    return failure();
  WgmmaElement element = halfElement(in);
  FailureOr<ProducerLoad> loadA =
      writeIm2colLoad(c, *a, t.bm(), t.stages, throughL1, why);
  if (failed(loadA))
    return failure();
  FailureOr<ProducerLoad> loadB =
      writeProducerLoad(*b, element, t.bn, "ob", why);
  if (failed(loadB))
    return failure();
  SpecializedProducer producer =
      writeCopyProducer(t, element, product.shape, c.K, true, b->kMajor,
                        {*loadA, *loadB});
  producer.sharedBytes = rowTableBytes(t);
  if (throughL1)
    producer.helpers = kL1CopyHelper;
  return writeSpecialized(region, product, t, element, producer,
                          throughL1 ? "-conv-l1" : "-conv", why);
}

void cuda_agent::builtin::addConvWgmmaVariants(
    const LinalgRegion &region, const ConvProduct &c,
    const SpecializedProduct &product, const GpuTarget &target,
    VariantList &list) {
  if (!hasWgmma(target))
    return;
  // Tiles as wide as the output channels: 128 x 64 (four 24 KiB stages,
  // two blocks an SM so that one block's epilogue overlaps the other's
  // steps, or eight), 64 x 128 on one consumer warpgroup (four 24 KiB
  // stages, two blocks an SM: two warpgroups of m64n128 accumulators do not
  // fit the 80 registers a thread two blocks leave) or 128 x 128 (six 32
  // KiB stages), 128 x 256 (four 48 KiB).
  SmallVector<SpecializedTiling> tilings;
  // The im2col rows through L1 too (writeIm2colLoad), with two blocks an SM
  // (L1 keeps what their stages leave of the SM's 256 KiB) or one block of
  // three stages.
  SmallVector<SpecializedTiling> throughL1;
  if (c.N <= 64) {
    tilings = {{2, 64, 4, true, 0, 2}, {2, 64, 8}};
    throughL1 = {{2, 64, 4, true, 0, 2}, {2, 64, 3}};
  } else if (c.N <= 128) {
    tilings = {{1, 128, 4, true, 0, 2}, {2, 128, 6}};
  } else {
    tilings = {{2, 256, 4}, {2, 128, 6}};
  }
  // Persistent ones first where the tiles fill the SMs several times (a
  // short reduction: KernelBench's 3x3 over 64 channels is 9 steps a tile):
  // each block's producer fills its next tile's stages while its consumers
  // store the last one from their fragments.
  SmallVector<SpecializedTiling> persistent;
  int64_t tiles = (c.M + 127) / 128 * ((c.N + 127) / 128);
  if (tiles >= 4 * target.smCount)
    for (SpecializedTiling t : tilings) {
      t.stagedStores = false;
      t.grid = int64_t(target.smCount) * t.blocks;
      persistent.push_back(t);
    }
  std::string reason;
  auto add = [&](const SpecializedTiling &t, bool l1) {
    // Each block's shared memory and the 1 KiB the SM keeps for it.
    int64_t bytes = t.sharedBytes() + rowTableBytes(t);
    if (t.blocks * (bytes + 1024) > target.maxSharedBytesPerBlock + 1024 ||
        !t.tileFits())
      return;
    list.add(writeConvSpecialized(region, c, product, t, l1, reason), reason);
  };
  for (const SpecializedTiling &t : persistent)
    add(t, false);
  for (const SpecializedTiling &t : tilings)
    add(t, false);
  for (const SpecializedTiling &t : throughL1)
    add(t, true);
}
