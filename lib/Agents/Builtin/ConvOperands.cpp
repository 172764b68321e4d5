//===- ConvOperands.cpp - The implicit GEMM's operand tiles --------------===//
//
// How the conv strategy's kernels (Conv.cpp) fill the shared tiles of the
// implicit GEMM's operands: the im2col matrix (the input, each element at
// out * stride + tap * dilation) and the filter. The SIMT and mma.sync
// tiles are filled element by element through the region's producers; the
// TF32 mainloop's loaders (MatmulTf32.h) copy a region input, or a zero pad
// of one, by cp.async: 16 bytes a copy where the operand's innermost
// indices allow (NHWC channels, an FCHW filter's row), an NCHW input at
// stride 1 along W as runs of its rows (the shift of each tap kept in the
// tile line's padding), an NCHW input with separable offsets, or a zero
// pad of one, through a shared table of each reduced index's offset (and,
// for the pad, a mask per row of the taps inside the source), anything
// else element by element.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "ElementEvaluator.h"
#include "KernelText.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

FailureOr<SmallVector<std::string>>
cuda_agent::builtin::tileElementIndex(const ConvProduct &c, bool isA,
                                      std::string &body, std::string &why) {
  SmallVector<std::string> loop;
  body += isA ? splitLoops(c, "r", "", "k", loop)
              : splitLoops(c, "", "r", "k", loop);
  return renderMap(isA ? c.mapIn : c.mapFilter, loop, why);
}

bool cuda_agent::builtin::fillsAlongK(const ConvProduct &c, bool isA) {
  AffineExpr innermost = (isA ? c.mapIn : c.mapFilter).getResults().back();
  return llvm::none_of(isA ? c.mDims : c.nDims,
                       [&](unsigned d) { return usesDim(innermost, d); });
}

FailureOr<std::string>
cuda_agent::builtin::writeConvTileLoad(const LinalgRegion &region,
                                       const ConvProduct &c, int rows, int bk,
                                       int threads, bool isA, StringRef store,
                                       unsigned &counter, std::string &why) {
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

const RegionPad *
cuda_agent::builtin::zeroPadOfInput(const LinalgRegion &region,
                                    Value operand) {
  auto it = region.pads.find(operand);
  if (it == region.pads.end() || !isa<BlockArgument>(it->second.source))
    return nullptr;
  auto pad = operand.getDefiningOp<tensor::PadOp>();
  Value padding = pad ? pad.getConstantPaddingValue() : Value();
  return padding && matchPattern(padding, m_PosZeroFloat()) ? &it->second
                                                             : nullptr;
}

namespace {

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
                     [&](AffineExpr e) { return usesDim(e, d); }))
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
                   [&](AffineExpr e) { return usesDim(e, ow); }))
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
/// statements splitting it appended to `body` and the expression; the loop
/// indices' names in `loop`.
FailureOr<std::string> im2colPart(const ConvProduct &c, BlockArgument arg,
                                  StringRef m, StringRef k, std::string &body,
                                  SmallVector<std::string> &loop,
                                  std::string &why) {
  body += splitLoops(c, m, "", k, loop);
  FailureOr<SmallVector<std::string>> idx = renderMap(c.mapIn, loop, why);
  if (failed(idx))
    return failure();
  return linearize(*idx, shapeOf(arg));
}


/// The most taps a row's mask holds (tapMaskLoops): the bits of an
/// unsigned long long (a 7x7 kernel's 49); past the 32 bits of an unsigned
/// the masks and the table's tap bits are 64-bit, each entry 16 bytes.
constexpr int64_t kMaxMaskTaps = 64;
constexpr int64_t kNarrowMaskTaps = 32;

/// Whether index `e` of the input map holds a row loop.
bool holdsRow(const ConvProduct &c, AffineExpr e) {
  return llvm::any_of(c.mDims, [&](unsigned m) { return usesDim(e, m); });
}

/// The reduced loops whose indices decide, with the row, whether a zero
/// pad's source holds an im2col element: those in a padded index that holds
/// a row loop too (kh and kw of a padded NCHW input's H and W), slowest
/// first. A padded index without a row loop (a padded channel) is inside or
/// outside for every row at a reduced index; one without a reduced loop,
/// for every reduced index at a row.
SmallVector<unsigned> tapMaskLoops(const ConvProduct &c, const RegionPad &pad) {
  SmallVector<unsigned> loops;
  for (unsigned d : c.kDims)
    for (auto [p, e] : llvm::enumerate(c.mapIn.getResults()))
      if ((pad.low[p] != 0 || pad.high[p] != 0) && usesDim(e, d) &&
          holdsRow(c, e)) {
        loops.push_back(d);
        break;
      }
  return loops;
}

/// The combinations of the indices of `loops`: a row mask's taps.
int64_t maskTaps(const ConvProduct &c, ArrayRef<unsigned> loops) {
  int64_t taps = 1;
  for (unsigned d : loops)
    taps *= c.ranges[d];
  return taps;
}

/// padBoundsConds at the source index `at`, of the padded indices that
/// hold a row loop (`withRow`) or of the others.
SmallVector<std::string> boundsWhere(const ConvProduct &c, const RegionPad &pad,
                                     ArrayRef<std::string> at, bool withRow) {
  SmallVector<std::string> all = padBoundsConds(pad, at), kept;
  size_t i = 0;
  for (auto [p, e] : llvm::enumerate(c.mapIn.getResults())) {
    if (pad.low[p] == 0 && pad.high[p] == 0)
      continue;
    if (holdsRow(c, e) == withRow)
      kept.push_back(all[i]);
    ++i;
  }
  return kept;
}

/// The copies of a taps loader (convTapsLoader): for each element of the
/// tile, the table's entry `tap` (of C type `entry`) of its reduced index,
/// then one 4-byte cp.async from this thread's row offset `aRow` plus the
/// entry's offset `offset`, zero-filled unless `full`.
Tf32TileLoader tableCopyLoader(const Tf32Tiling &t, BlockArgument arg,
                               StringRef entry, StringRef full,
                               StringRef offset) {
  Tf32TileLoader loader;
  loader.kMajor = false;
  int ld = tf32TileStride(t, /*isA=*/true, /*kMajor=*/false);
  int threads = t.threads();
  std::string base = "in" + std::to_string(arg.getArgNumber());
  loader.writeLoad = [=, entry = entry.str(), full = full.str(),
                      offset = offset.str()](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(t.bm * t.bk, threads);
    text += llvm::formatv(
        "          const int kk = e / {0};\n"
        "          const {1} tap = ca_taps[(int)({2}) + kk];\n"
        "          const bool full = {3};\n"
        "          ca_cp_async4({4} + kk * {5} + threadIdx.x % {0}, full ? "
        "{6} + aRow + {7} : {6}, full);\n"
        "        }\n",
        t.bm, entry, k0, full, tile, ld, base, offset);
    return text;
  };
  return loader;
}

/// The taps loader's table, row offset and copies for a zero pad of the
/// input (convTapsLoader): each entry holds the source's offset of the
/// reduced index and the bit of its tap (the indices of tapMaskLoops) in a
/// row's mask, 0 past K and where a padded index without a row loop is
/// outside the source; each thread's row holds its source offset (the pad's
/// low part taken off) and the mask of the taps whose element is inside
/// the source, 0 past M. A copy is one table read, an AND and one 4-byte
/// cp.async, zero-filled where the bit is not in the mask.
FailureOr<Tf32TileLoader>
paddedTapsLoader(const ConvProduct &c, const Tf32Tiling &t, BlockArgument arg,
                 const RegionPad &pad, std::string &prologue,
                 int64_t &sharedBytes, std::string &why) {
  int threads = t.threads();
  int64_t kPad = (c.K + t.bk - 1) / t.bk * t.bk;
  SmallVector<unsigned> maskLoops = tapMaskLoops(c, pad);
  bool wide = maskTaps(c, maskLoops) > kNarrowMaskTaps;
  if (wide)
    sharedBytes = (sharedBytes + 15) / 16 * 16;
  int64_t tableAt = sharedBytes / 4;
  sharedBytes += kPad * (wide ? 16 : 8);
  // The entry (offset, tap bit), the mask's type and its one.
  StringRef entry = wide ? "longlong2" : "int2";
  StringRef mask = wide ? "unsigned long long" : "unsigned";
  StringRef one = wide ? "1ull" : "1u";
  ArrayRef<int64_t> shape = shapeOf(arg);
  SmallVector<std::string> rowLoop, tapLoop;
  std::string rowBody, tapBody;
  FailureOr<std::string> row =
      im2colPart(c, arg, "r", "", rowBody, rowLoop, why);
  FailureOr<std::string> tap =
      im2colPart(c, arg, "", "k", tapBody, tapLoop, why);
  if (failed(row) || failed(tap))
    return failure();
  int64_t low = 0, stride = 1;
  for (int p = int(shape.size()) - 1; p >= 0; --p) {
    low += pad.low[p] * stride;
    stride *= shape[p];
  }
  // The row's mask: every tap combination at the row's indices.
  SmallVector<std::string> maskLoop = rowLoop;
  std::string maskBody = splitIndex("j", c, maskLoops, "tj", maskLoop);
  FailureOr<SmallVector<std::string>> maskIdx =
      renderMap(c.mapIn, maskLoop, why);
  if (failed(maskIdx))
    return failure();
  SmallVector<std::string> inRow =
      boundsWhere(c, pad, padSourceIndex(pad, *maskIdx), /*withRow=*/true);
  // The entry's tap: the indices of the mask's loops at the reduced index.
  std::string bit;
  for (unsigned d : maskLoops)
    bit = bit.empty() ? tapLoop[d]
                      : "(" + bit + ") * " + std::to_string(c.ranges[d]) +
                            " + " + tapLoop[d];
  FailureOr<SmallVector<std::string>> tapIdx = renderMap(c.mapIn, tapLoop, why);
  if (failed(tapIdx))
    return failure();
  SmallVector<std::string> inTap =
      boundsWhere(c, pad, padSourceIndex(pad, *tapIdx), /*withRow=*/false);
  inTap.insert(inTap.begin(), "k < " + std::to_string(c.K));
  if (c.M % t.bm != 0)
    inRow.insert(inRow.begin(), "r < " + std::to_string(c.M) + "LL");
  prologue += llvm::formatv(
      "  // The source's offset of each reduced index and its tap's bit in a\n"
      "  // row's mask (0 past K or outside the source at every row), after\n"
      "  // the mainloop's stages; this thread's tile row's offset (less the\n"
      "  // pad's low part) and the mask of its taps inside the source.\n"
      "  extern __shared__ __align__(16) float ca_smem_taps[];\n"
      "  {2} *const ca_taps = reinterpret_cast<{2} *>(ca_smem_taps + {0});\n"
      "  long long aRow;\n"
      "  {3} aTaps = 0{4};\n"
      "  {{\n"
      "    const long long r = m0 + threadIdx.x % {1};\n",
      tableAt, t.bm, entry, mask, wide ? "ull" : "u");
  prologue += rowBody + "    aRow = " + *row + " - " + std::to_string(low) +
              "LL;\n";
  std::string setBit =
      (inRow.empty() ? "" : "        if (" + join(inRow, " && ") + ")\n  ") +
      "        aTaps |= " + one.str() + " << j;\n";
  prologue += llvm::formatv("    for (int j = 0; j < {0}; ++j) {{\n",
                            maskTaps(c, maskLoops));
  prologue += maskBody + setBit + "    }\n  }\n";
  prologue += llvm::formatv("  for (int k = threadIdx.x; k < {0}; k += {1}) "
                            "{{\n",
                            kPad, threads);
  std::string field = wide ? "(long long)" : "(int)";
  prologue += tapBody + "    const bool in = " + join(inTap, " && ") + ";\n" +
              "    ca_taps[k] = make_" + entry.str() + "(in ? " + field + "(" +
              *tap + ") : 0, in ? " + field + "(" + one.str() + " << (" +
              (bit.empty() ? "0" : bit) + ")) : 0);\n  }\n  __syncthreads();\n";
  return tableCopyLoader(
      t, arg, entry,
      ("(aTaps & (" + mask + ")tap.y) != 0" + (wide ? "ull" : "u")).str(),
      "tap.x");
}

} // namespace

FailureOr<Tf32TileLoader> cuda_agent::builtin::convTapsLoader(
    const LinalgRegion &region, const ConvProduct &c, const Tf32Tiling &t,
    BlockArgument arg, std::string &prologue, int64_t &sharedBytes,
    std::string &why) {
  if (const RegionPad *pad = zeroPadOfInput(region, c.input))
    return paddedTapsLoader(c, t, arg, *pad, prologue, sharedBytes, why);
  int threads = t.threads();
  int64_t kPad = (c.K + t.bk - 1) / t.bk * t.bk;
  int64_t tableAt = sharedBytes / 4;
  sharedBytes += kPad * 4;
  std::string rowBody, tapBody;
  SmallVector<std::string> rowLoop, tapLoop;
  FailureOr<std::string> row =
      im2colPart(c, arg, "r", "", rowBody, rowLoop, why);
  FailureOr<std::string> tap =
      im2colPart(c, arg, "", "k", tapBody, tapLoop, why);
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
  return tableCopyLoader(t, arg, "int",
                         rowsWhole ? "tap >= 0" : "tap >= 0 && aRowIn", "tap");
}

FailureOr<Tf32TileLoader> cuda_agent::builtin::convTf32Loader(
    const LinalgRegion &region, const ConvProduct &c, const Tf32Tiling &t,
    bool isA, unsigned &counter, std::string &why) {
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

bool cuda_agent::builtin::needsGather(const LinalgRegion &region,
                                      const ConvProduct &c,
                                      const Tf32Tiling &t) {
  const RegionPad *pad = zeroPadOfInput(region, c.input);
  auto arg = dyn_cast<BlockArgument>(pad ? pad->source : c.input);
  if (!arg)
    return true;
  if (rowRunDim(c, t.bm, arg))
    return false;
  return copyWidth(c, true, fillsAlongK(c, true), pad) == 1;
}

BlockArgument cuda_agent::builtin::tapsInput(const LinalgRegion &region,
                                             const ConvProduct &c,
                                             const Tf32Tiling &t) {
  // A pad with another value, or of a computed value, keeps the gather.
  const RegionPad *pad = zeroPadOfInput(region, c.input);
  if (region.pads.count(c.input) && !pad)
    return {};
  auto arg = dyn_cast<BlockArgument>(pad ? pad->source : c.input);
  // A padded input is offered the table beside the row copies (which need
  // no table nor mask, but copy a vector more per line).
  if (!arg || fillsAlongK(c, /*isA=*/true) || t.threads() % t.bm != 0 ||
      (!pad && rowRunDim(c, t.bm, arg)) || !hasSeparableIm2col(c, arg) ||
      (pad && maskTaps(c, tapMaskLoops(c, *pad)) > kMaxMaskTaps))
    return {};
  return arg;
}
