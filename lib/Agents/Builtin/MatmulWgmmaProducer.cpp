//===- MatmulWgmmaProducer.cpp - The cp.async producer warpgroup ----------===//
//
// The cp.async producer of the warp-specialized wgmma kernel (MatmulWgmma.h):
// its 128 threads copy each step's tiles of both operands into the stage,
// and let the stage's full barrier complete when their copies land. Here
// the copies of an operand read as a matrix (a region input as it is, the
// conv's filter), each thread's source pointer and shared offset set once
// before the k loop; the conv's im2col rows are ConvWgmma.cpp's.
//
//===----------------------------------------------------------------------===//

#include "MatmulWgmma.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

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

} // namespace

FailureOr<ProducerLoad>
cuda_agent::builtin::writeProducerLoad(const ProducerSource &source,
                                       const WgmmaElement &element, int rows,
                                       StringRef tile, std::string &why) {
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

SpecializedProducer cuda_agent::builtin::writeCopyProducer(
    const SpecializedTiling &t, const WgmmaElement &element,
    const ProductShape &shape, int64_t K, bool kMajorA, bool kMajorB,
    const ProducerLoad (&loads)[2]) {
  SpecializedProducer producer;
  producer.kMajorA = kMajorA;
  producer.kMajorB = kMajorB;
  producer.steps = (K + element.stepK() - 1) / element.stepK();
  producer.fullArrivals = 128;
  // A block a tile counts its steps lt; a persistent block its steps over
  // all its tiles too (`step`), which the stages and phases follow.
  bool persistent = t.grid > 0;
  StringRef counter = persistent ? "step" : "lt";
  producer.text =
      (persistent ? persistentTileLoop(t, shape, 4) : std::string()) +
      loads[0].setup + loads[1].setup +
      llvm::formatv(
          "    for (int lt = 0; lt < {0}; ++lt{5}) {{\n"
          "      const int s = {6} % {1};\n"
          "      if ({6} >= {1})\n"
          "        ca_mbar_wait(empty + s * 8, (({6} / {1}) - 1) & 1);\n"
          "      const long long k0 = (long long)lt * {2};\n"
          "      const unsigned oa = s * {3}, ob = oa + {4};\n",
          producer.steps, t.stages, element.stepK(), t.stageBytes(),
          t.bm() * kRowBytes, persistent ? ", ++step" : "", counter)
          .str() +
      loads[0].step + loads[1].step +
      "      ca_mbar_arrive_copies(full + s * 8);\n"
      "    }\n" +
      (persistent ? "    }\n" : "") +
      "    asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n";
  return producer;
}

FailureOr<Variant> cuda_agent::builtin::writeRegionSpecialized(
    const LinalgRegion &region, const Contraction &c, const SpecializedTiling &t,
    std::string &why) {
  FailureOr<ProducerSource> a = regionSource(c, layoutOf(c, true), why);
  if (failed(a))
    return failure();
  FailureOr<ProducerSource> b = regionSource(c, layoutOf(c, false), why);
  if (failed(b))
    return failure();
  WgmmaElement element = halfElement(c);
  FailureOr<ProducerLoad> loadA =
      writeProducerLoad(*a, element, t.bm(), "oa", why);
  if (failed(loadA))
    return failure();
  FailureOr<ProducerLoad> loadB = writeProducerLoad(*b, element, t.bn, "ob", why);
  if (failed(loadB))
    return failure();
  SpecializedProduct product = specializedProduct(region, c);
  return writeSpecialized(region, product, t, element,
                          writeCopyProducer(t, element, product.shape, c.K,
                                            a->kMajor, b->kMajor,
                                            {*loadA, *loadB}),
                          "", why);
}
