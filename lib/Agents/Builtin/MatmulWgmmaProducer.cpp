//===- MatmulWgmmaProducer.cpp - The cp.async producer warpgroup ----------===//
//
// The producer of the warp-specialized wgmma kernel (MatmulWgmma.h) on two
// region inputs copied as they are: its 128 threads copy each step's tiles
// of both operands into the stage with cp.async, each thread's source
// pointers and shared offsets set once before the k loop, and let the
// stage's full barrier complete when their copies land.
//
//===----------------------------------------------------------------------===//

#include "MatmulWgmma.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// Where the cp.async producer copies one region input from: the operand's
/// row 0, k 0 of the block's batch (`pointer`, a typed C pointer), its
/// element strides, and the rows and reduced indices in bounds (copies past
/// them are zero-filled, naming the valid address `any`).
struct ProducerSource {
  bool isA, kMajor;
  std::string pointer, any;
  int64_t strideRow, strideK;
  int64_t extent, K;
};

/// The source of a region input copied as it is (`layout.async`).
FailureOr<ProducerSource> regionSource(const Contraction &c,
                                       const OperandLayout &layout,
                                       std::string &why) {
  bool isA = layout.isA;
  Value operand = isA ? c.a : c.b;
  AffineMap map = isA ? c.mapA : c.mapB;
  unsigned rowDim = isA ? c.m : c.n;
  ArrayRef<int64_t> shape = shapeOf(operand);
  ProducerSource source{isA, layout.kMajor, "", "", 0, 0, isA ? c.M : c.N,
                        c.K};
  // Element strides of the row (or column) and reduced dimensions.
  int64_t stride = 1;
  for (int i = int(map.getNumResults()) - 1; i >= 0; --i) {
    unsigned dim = map.getDimPosition(i);
    if (dim == rowDim)
      source.strideRow = stride;
    else if (dim == c.k)
      source.strideK = stride;
    stride *= shape[i];
  }
  if (layout.kMajor ? source.strideK != 1 : source.strideRow != 1) {
    why = "an operand whose contiguous dimension is not the one copied";
    return failure();
  }
  // The batch's offset: the operand at row 0, k 0.
  FailureOr<SmallVector<std::string>> idx =
      applyIndexingMap(map, c.loopDims("0", "0", "0"), why);
  if (failed(idx))
    return failure();
  source.any =
      "in" + std::to_string(cast<BlockArgument>(operand).getArgNumber());
  source.pointer = source.any + " + " + linearize(*idx, shape);
  return source;
}

/// The producer warpgroup's copies of one operand's tile, `rows` x one
/// 128-byte step at byte offset `tile`, for step lt (C variables `lt`,
/// `k0`, `sbase`): each of the 128 threads copies the same chunks of every
/// step, so its source pointer and shared offset are set once (`setup`,
/// before the k loop) and a step only adds constants to them, sparing the
/// one producer warp per SM sub-partition the 64-bit index arithmetic of
/// every copy.
struct ProducerLoad {
  std::string setup, step;
};

FailureOr<ProducerLoad> writeProducerLoad(const ProducerSource &source,
                                          const WgmmaElement &element,
                                          int rows, StringRef tile,
                                          std::string &why) {
  int chunk = element.chunk();
  std::string n = source.isA ? "A" : "B";
  std::string r0 = source.isA ? "m0" : "n0";
  int copies = rows / 16;
  int64_t steps = (source.K + element.stepK() - 1) / element.stepK();
  // Which copies are in bounds: a copy's row (or column) is the same every
  // step, so the rows are checked once, before the k loop (`rowOk`, a mask
  // of the copies p or one flag); its k is past K only in the last step,
  // which alone checks it (`kOk`).
  bool rowEdge = source.extent % rows != 0;
  bool kEdge = source.K % element.stepK() != 0;
  std::string extent = std::to_string(source.extent) + "LL";
  std::string rowOk, kOk, dst, offset;
  ProducerLoad load;
  if (source.kMajor) {
    // Thread tid copies chunk tid % 8 of rows tid / 8 + 16 p.
    load.setup = llvm::formatv(
        "    const int rr{0} = tid >> 3, kc{0} = tid & 7;\n"
        "    const auto *src{0} = {1} + ({2} + rr{0}) * {3}LL + kc{0} * {4};\n"
        "    const unsigned dst{0} = rr{0} * 128 + ((kc{0} ^ (rr{0} & 7)) << "
        "4);\n",
        n, source.pointer, r0, source.strideRow, chunk);
    if (rowEdge) {
      load.setup += llvm::formatv(
          "    unsigned rows{0} = 0;\n"
          "    for (int p = 0; p < {1}; ++p)\n"
          "      rows{0} |= (unsigned)({2} + rr{0} + p * 16 < {3}) << p;\n",
          n, copies, r0, extent);
      rowOk = "((rows" + n + " >> p) & 1u)";
    }
    kOk = llvm::formatv("k0 + kc{0} * {1} < {2}LL", n, chunk, source.K);
    dst = "sbase + " + tile.str() + " + dst" + n + " + p * 2048";
    offset = "p * " + std::to_string(16 * source.strideRow) + "LL + k0";
  } else {
    // Thread tid copies chunk tid % (rows / 8) of k rows
    // tid / (rows / 8) + (1024 / rows) p: the swizzle (k row % 8) is one
    // of two values, as p is even or odd, for 256 rows, and one for 128.
    int across = rows / 8, down = 128 / across;
    if (down % 4 != 0 || element.isTf32()) {
      why = "an MN-major tile of more than 256 rows or of TF32";
      return failure();
    }
    load.setup = llvm::formatv(
        "    const int rc{0} = tid % {1}, kk{0} = tid / {1};\n"
        "    const auto *src{0} = {2} + ({3} + rc{0} * 8) + kk{0} * {4}LL;\n"
        "    const unsigned dst{0} = (rc{0} >> 3) * {5} + kk{0} * 128;\n"
        "    const unsigned even{0} = ((rc{0} & 7) ^ (kk{0} & 7)) << 4;\n"
        "    const unsigned odd{0} = ((rc{0} & 7) ^ ((kk{0} + 4) & 7)) << 4;\n",
        n, across, source.pointer, r0, source.strideK, kMnAtomBytes);
    if (rowEdge) {
      load.setup += llvm::formatv(
          "    const bool rows{0} = {1} + rc{0} * 8 < {2};\n", n, r0, extent);
      rowOk = "rows" + n;
    }
    kOk = llvm::formatv("k0 + kk{0} + p * {1} < {2}LL", n, down, source.K);
    dst = "sbase + " + tile.str() + " + dst" + n + " + p * " +
          std::to_string(down * 128) + " + ((p * " + std::to_string(down) +
          ") & 4 ? odd" + n + " : even" + n + ")";
    offset = "(k0 + p * " + std::to_string(down) + ") * " +
             std::to_string(source.strideK) + "LL";
  }
  // The copies of one step, each zero-filled where `ok` (a C condition, or
  // always in bounds when empty) fails.
  auto loop = [&](StringRef ok) {
    std::string text = "#pragma unroll\n      for (int p = 0; p < " +
                       std::to_string(copies) + "; ++p) {\n";
    std::string src = "src" + n + " + (" + offset + ")";
    if (ok.empty())
      return text + "        ca_cp_async16(" + dst + ", " + src +
             ", true);\n      }\n";
    return text + "        const bool ok = " + ok.str() +
           ";\n        ca_cp_async16(" + dst + ", ok ? " + src + " : " +
           source.any + ", ok);\n      }\n";
  };
  if (!kEdge) {
    load.step = loop(rowOk);
    return load;
  }
  load.step = "      if (lt + 1 < " + std::to_string(steps) + ") {\n" +
              loop(rowOk) + "      } else {\n" +
              loop(rowOk.empty() ? kOk : rowOk + " && " + kOk) + "      }\n";
  return load;
}

/// The producer of two region inputs copied as they are (regionSource):
/// its 128 threads copy each step's tiles into the stage with cp.async
/// (writeProducerLoad) and let the stage's full barrier complete when their
/// copies land (cp.async.mbarrier.arrive.noinc, one arrival a thread). Both
/// operands must be region inputs whose contiguous rows are whole 16-byte
/// chunks.
FailureOr<SpecializedProducer>
writeCopyProducer(const SpecializedTiling &t, const WgmmaElement &element,
                  const ProducerSource (&sources)[2], std::string &why) {
  SpecializedProducer producer;
  producer.kMajorA = sources[0].kMajor;
  producer.kMajorB = sources[1].kMajor;
  producer.steps = (sources[0].K + element.stepK() - 1) / element.stepK();
  producer.fullArrivals = 128;
  std::string setup, copies;
  for (const ProducerSource &source : sources) {
    FailureOr<ProducerLoad> load =
        writeProducerLoad(source, element, source.isA ? t.bm() : t.bn,
                          source.isA ? "oa" : "ob", why);
    if (failed(load))
      return failure();
    setup += load->setup;
    copies += load->step;
  }
  producer.text =
      setup +
      llvm::formatv(
          "    for (int lt = 0; lt < {0}; ++lt) {{\n"
          "      const int s = lt % {1};\n"
          "      if (lt >= {1})\n"
          "        ca_mbar_wait(empty + s * 8, ((lt / {1}) - 1) & 1);\n"
          "      const long long k0 = (long long)lt * {2};\n"
          "      const unsigned oa = s * {3}, ob = oa + {4};\n",
          producer.steps, t.stages, element.stepK(), t.stageBytes(),
          t.bm() * kRowBytes)
          .str() +
      copies +
      "      ca_mbar_arrive_copies(full + s * 8);\n"
      "    }\n"
      "    asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n";
  return producer;
}

} // namespace

FailureOr<Variant> cuda_agent::builtin::writeRegionSpecialized(
    const LinalgRegion &region, const Contraction &c, const SpecializedTiling &t,
    std::string &why) {
  FailureOr<ProducerSource> a = regionSource(c, layoutOf(c, true), why);
  if (failed(a))
    return failure();
  FailureOr<ProducerSource> b = regionSource(c, layoutOf(c, false), why);
  if (failed(b))
    return failure();
  FailureOr<SpecializedProducer> producer =
      writeCopyProducer(t, halfElement(c), {*a, *b}, why);
  if (failed(producer))
    return failure();
  return writeSpecialized(region, c, t, halfElement(c), *producer, "", why);
}
