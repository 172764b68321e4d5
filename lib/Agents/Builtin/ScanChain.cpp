//===- ScanChain.cpp - A blocked scan's chain in one pass ------------------===//
//
// The region the outliner makes of a blocked scan's chain (ScanChains.h):
// its first step's term reads the region's input X, of shape
// [rows..., blocks, B], and the region's one output has X's shape. The
// chain's levels and combines compute, for each row of X (its last two
// dimensions, blocks * B consecutive elements), the inclusive scan of the
// row combined with the first step's fill; the default lowering reads and
// writes the row once per level and per combine.
//
// Here a block of threads scans one row in one pass: each thread loads V
// consecutive elements (a 16-byte vector for f32 where the row allows) of U
// chunks of the row at a time, every load issued before the first is used;
// per chunk it scans its V elements, a warp scans its threads' totals by
// shuffles, and the warps' totals of all U chunks go through shared memory,
// where every warp scans them in order (the same shuffles in every thread)
// and keeps the totals before its own chunks. Each element is then the block's
// carry (the fill, then the totals of the chunks before) combined with the
// totals before it and its own prefix. The row is read once and written
// once.
//
// Which ops the region holds is not checked beyond the first step, the
// combiners and the shapes: the verifier compares the kernel with the
// region's own lowering.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Strategy.h"
#include "cuda-agent/Outline/ScanChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// What the kernel needs of a matched chain.
struct ChainShape {
  BlockArgument input;
  Combiner combiner;
  std::string fill;
  int64_t rows = 0;   ///< product of X's dimensions before the last two
  int64_t length = 0; ///< blocks * B: the elements of a row
};

/// The combiner of a scan step's reduction.
FailureOr<Combiner> combinerOf(linalg::GenericOp step, std::string &why) {
  Block &body = step.getRegion().front();
  return findCombiner(body, body.getArgument(1), why);
}

FailureOr<ChainShape> matchChain(const LinalgRegion &region, std::string &why) {
  why = "not a blocked scan's chain (ScanChains.h)";
  if (region.outputs.size() != 1)
    return failure();
  SmallVector<linalg::GenericOp> steps, firsts;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    linalg::GenericOp term = scanStepTerm(g);
    if (!term)
      return failure();
    steps.push_back(g);
    if (llvm::all_of(term.getDpsInputs(),
                     [](Value v) { return isa<BlockArgument>(v); }))
      firsts.push_back(g);
  }
  if (steps.size() < 2 || firsts.size() != 1)
    return failure();
  linalg::GenericOp first = firsts.front();
  linalg::GenericOp term = scanStepTerm(first);
  // The term reads X at every loop but i: (rows..., k).
  if (term.getNumDpsInputs() != 1)
    return failure();
  auto input = cast<BlockArgument>(term.getDpsInputs()[0]);
  unsigned loops = term.getNumLoops();
  AffineMap read = term.getMatchingIndexingMap(term.getDpsInputOperand(0));
  SmallVector<unsigned> expected;
  for (unsigned d = 0; d < loops; ++d)
    if (d != loops - 2)
      expected.push_back(d);
  if (read != AffineMap::getMultiDimMapWithTargets(loops, expected,
                                                   read.getContext()))
    return failure();
  // Its body selects X's element or the identity.
  Block &body = term.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || select.getTrueValue() != body.getArgument(0))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(input);
  Value out = region.outputs[0];
  if (shape.size() < 2 || shapeOf(out) != shape ||
      elementOf(out) != elementOf(input) ||
      !region.splats.count(first.getDpsInitOperand(0)->get()))
    return failure();
  std::optional<CType> ctype = getCType(elementOf(input));
  if (!ctype || ctype->storage != ctype->compute ||
      (ctype->compute != "float" && ctype->compute != "double")) {
    why = "a blocked scan's chain over other than f32 or f64";
    return failure();
  }
  FailureOr<Combiner> combiner = combinerOf(first, why);
  if (failed(combiner))
    return failure();
  for (linalg::GenericOp step : steps) {
    FailureOr<Combiner> other = combinerOf(step, why);
    if (failed(other) ||
        other->op->getName() != combiner->op->getName()) {
      why = "a blocked scan's chain whose steps combine differently";
      return failure();
    }
  }
  why.clear();
  return ChainShape{input, *combiner,
                    region.splats.lookup(first.getDpsInitOperand(0)->get()),
                    product(shape.drop_back(2)),
                    shape[shape.size() - 2] * shape.back()};
}

/// A block of `threads` per row, `unroll` chunks of `threads` * V elements
/// per step.
FailureOr<Variant> writeChain(const LinalgRegion &region,
                              const ChainShape &chain, int threads,
                              int unroll, std::string &why) {
  Type type = elementOf(chain.input);
  std::string t = getCType(type)->compute;
  const Combiner &c = chain.combiner;
  // 16-byte vectors of f32 where every row starts aligned.
  int vector = t == "float" && chain.length % 4 == 0 ? 4 : 1;
  int warps = threads / 32;
  int64_t step = int64_t(threads) * vector * unroll;
  if (chain.rows > (int64_t(1) << 31) - 1) {
    why = "more rows than a one-dimensional grid holds";
    return failure();
  }
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "scan_chain", threads) + " {\n";
  src += llvm::formatv(
             "  __shared__ {0} totals[{1}];\n"
             "  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;\n"
             "  const {0} *__restrict__ x = in{2} + blockIdx.x * {3}LL;\n"
             "  {0} *__restrict__ y = out0 + blockIdx.x * {3}LL;\n"
             "  {0} carry = {4};\n"
             "  for (long long base = 0; base < {3}LL; base += {5}LL) {{\n",
             t, unroll * warps, chain.input.getArgNumber(), chain.length,
             chain.fill, step)
             .str();
  // The loads of every chunk first.
  for (int u = 0; u < unroll; ++u) {
    src += llvm::formatv("    const long long i{0} = base + {1}LL + "
                         "threadIdx.x * {2}LL;\n",
                         u, int64_t(u) * threads * vector, vector)
               .str();
    if (vector == 4) {
      src += llvm::formatv(
                 "    float4 q{0} = make_float4({1}, {1}, {1}, {1});\n"
                 "    if (i{0} < {2}LL)\n"
                 "      q{0} = *reinterpret_cast<const float4 *>(x + i{0});\n"
                 "    {3} v{0}_0 = q{0}.x, v{0}_1 = q{0}.y, v{0}_2 = q{0}.z, "
                 "v{0}_3 = q{0}.w;\n",
                 u, c.identity, chain.length, t)
                 .str();
    } else {
      src += llvm::formatv("    {0} v{1}_0 = i{1} < {2}LL ? x[i{1}] : {3};\n",
                           t, u, chain.length, c.identity)
                 .str();
    }
  }
  // Per chunk: the thread's prefix, the warp's, the warp's total shared.
  for (int u = 0; u < unroll; ++u) {
    for (int j = 1; j < vector; ++j)
      src += llvm::formatv("    v{0}_{1} = {2};\n", u, j,
                           c.combine(llvm::formatv("v{0}_{1}", u, j - 1).str(),
                                     llvm::formatv("v{0}_{1}", u, j).str()))
                 .str();
    std::string s = "s" + std::to_string(u);
    src += llvm::formatv("    {0} {1} = v{2}_{3};\n", t, s, u, vector - 1).str();
    for (int d = 1; d < 32; d *= 2)
      src += llvm::formatv("    {{ const {0} o = __shfl_up_sync(0xffffffffu, "
                           "{1}, {2}); if (lane >= {2}) {1} = {3}; }\n",
                           t, s, d, c.combine("o", s))
                 .str();
    src += llvm::formatv(
               "    {0} e{1} = __shfl_up_sync(0xffffffffu, {2}, 1);\n"
               "    if (lane == 0) e{1} = {3};\n"
               "    if (lane == 31) totals[{4} + warp] = {2};\n",
               t, u, s, c.identity, u * warps)
               .str();
  }
  // Every warp scans the totals in order (chunk, then warp), 32 at a time,
  // and keeps those before its own: the same shuffles in every thread, no
  // second barrier before the stores.
  for (int u = 0; u < unroll; ++u)
    src += llvm::formatv("    {0} before{1} = {2};\n", t, u, c.identity).str();
  src += llvm::formatv(
             "    __syncthreads();\n"
             "    {0} run = {1};\n"
             "    for (int k = 0; k < {2}; k += 32) {{\n"
             "      {0} w = k + lane < {2} ? totals[k + lane] : {1};\n",
             t, c.identity, unroll * warps)
             .str();
  for (int d = 1; d < 32; d *= 2)
    src += llvm::formatv("      {{ const {0} o = __shfl_up_sync(0xffffffffu, "
                         "w, {1}); if (lane >= {1}) w = {2}; }\n",
                         t, d, c.combine("o", "w"))
               .str();
  src += llvm::formatv("      {0} x0 = __shfl_up_sync(0xffffffffu, w, 1);\n"
                       "      x0 = lane == 0 ? run : {1};\n",
                       t, c.combine("run", "x0"))
             .str();
  for (int u = 0; u < unroll; ++u)
    src += llvm::formatv(
               "      {{ const int at = {0} + warp;\n"
               "        const {1} b = __shfl_sync(0xffffffffu, x0, at % 32);\n"
               "        if (at >= k && at < k + 32) before{2} = b; }\n",
               u * warps, t, u)
               .str();
  src += llvm::formatv("      run = {0};\n"
                       "    }\n",
                       c.combine("run", "__shfl_sync(0xffffffffu, w, 31)"))
             .str();
  // Each element: the carry, the totals before its warp's chunk, its
  // thread's prefix in the warp, its own prefix.
  for (int u = 0; u < unroll; ++u) {
    src += llvm::formatv("    {{\n"
                         "      const {0} prefix = {1};\n",
                         t,
                         c.combine("carry",
                                   c.combine("before" + std::to_string(u),
                                             "e" + std::to_string(u))))
               .str();
    SmallVector<std::string> values;
    for (int j = 0; j < vector; ++j)
      values.push_back(
          c.combine("prefix", llvm::formatv("v{0}_{1}", u, j).str()));
    if (vector == 4)
      src += llvm::formatv("      if (i{0} < {1}LL)\n"
                           "        *reinterpret_cast<float4 *>(y + i{0}) = "
                           "make_float4({2}, {3}, {4}, {5});\n",
                           u, chain.length, values[0], values[1], values[2],
                           values[3])
                 .str();
    else
      src += llvm::formatv("      if (i{0} < {1}LL)\n        y[i{0}] = {2};\n",
                           u, chain.length, values[0])
                 .str();
    src += "    }\n";
  }
  // The barrier keeps the next step's totals from overwriting these
  // before every warp has read them.
  src += llvm::formatv("    carry = {0};\n"
                       "    __syncthreads();\n"
                       "  }\n"
                       "}\n",
                       c.combine("carry", "run"))
             .str();
  std::string name =
      llvm::formatv("scan-chain-t{0}-x{1}", threads, unroll).str();
  return Variant{name, src, {{"scan_chain", {chain.rows, 1, 1}, {threads, 1, 1}}}};
}

class ScanChainStrategy final : public Strategy {
public:
  StringRef getName() const override { return "scan-chain"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    std::string reason;
    return succeeded(matchChain(region, reason));
  }

  // The chain's pads and views are the ops its kernel stands for.
  bool readsPads() const override { return true; }
  bool readsViews() const override { return true; }

  void addVariants(const LinalgRegion &region, const GpuTarget &, Precision,
                   VariantList &list) const override {
    std::string reason;
    FailureOr<ChainShape> chain = matchChain(region, reason);
    if (failed(chain)) {
      list.add(failure(), reason);
      return;
    }
    // Whole rows in registers first (a row of 32768 f32 is 1024 threads of
    // 8 vectors), then fewer chunks in flight and smaller blocks; blocks
    // that would be mostly idle on a short row are left out.
    const std::pair<int, int> shapes[] = {
        {1024, 8}, {1024, 2}, {512, 4}, {256, 4}, {128, 1}};
    for (auto [threads, unroll] : shapes) {
      int64_t perStep = int64_t(threads) * 4 * unroll;
      if (perStep > 2 * chain->length && threads != 128)
        continue;
      list.add(writeChain(region, *chain, threads, unroll, reason), reason);
    }
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getScanChainStrategy() {
  static const ScanChainStrategy strategy;
  return strategy;
}
