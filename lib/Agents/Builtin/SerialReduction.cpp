//===- SerialReduction.cpp - A thread per reduced output element ----------===//
//
// Any single reduction into a filled output: one thread per output element
// looping over the reduced dimensions in the reference's order (coalesced
// for reductions over outer dimensions). The fallback for reductions the row
// strategies do not take, and another candidate for those they do. For a
// reduction whose innermost loop is parallel (a sum over a middle
// dimension), the sliced form: a block covers 32 consecutive output
// elements with `slices` warps, each warp reducing one slice of the
// outermost reduced dimension, and the slices' partials are combined in
// order through shared memory: `slices` times the loads in flight.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "Strategy.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The sliced kernel: warp s of a block reduces slice s of the outermost
/// reduced dimension (`loops` ... `close` around `step`) for the block's 32
/// output elements; warp 0 combines the fill and the slices in order.
Variant writeSlices(const LinalgRegion &region, linalg::GenericOp g,
                    const Combiner &combiner, StringRef step, StringRef loops,
                    StringRef close, int slices) {
  Value out = region.outputs[0];
  std::string ctype = getCType(elementOf(out))->compute;
  int64_t total = product(shapeOf(out));
  int threads = 32 * slices;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "reduce", threads) + " {\n";
  src += llvm::formatv("  __shared__ {0} part[{1}][32];\n"
                       "  const long long e = blockIdx.x * 32LL + threadIdx.x "
                       "% 32;\n"
                       "  const int s = threadIdx.x / 32;\n"
                       "  {0} acc = {2};\n"
                       "  if (e < {3}LL) {{\n",
                       ctype, slices, combiner.identity, total)
             .str();
  src += loops.str() + step.str() + close.str() + "  }\n";
  src += llvm::formatv(
             "  part[s][threadIdx.x % 32] = acc;\n"
             "  __syncthreads();\n"
             "  if (s == 0 && e < {0}LL) {{\n"
             "    acc = {1};\n"
             "    for (int q = 0; q < {2}; ++q)\n"
             "      acc = {3};\n"
             "    out0[e] = {4};\n"
             "  }\n}\n",
             total, region.splats.lookup(g.getDpsInitOperand(0)->get()),
             slices, combiner.combine("acc", "part[q][threadIdx.x % 32]"),
             storeAs(elementOf(out), "acc"))
             .str();
  return Variant{llvm::formatv("sliced-s{0}", slices).str(),
                 src,
                 {{"reduce", {(total + 31) / 32, 1, 1}, {threads, 1, 1}}}};
}

FailureOr<Variant> writeSerialReduction(const LinalgRegion &region, int threads,
                                        std::string &why, int slices = 0) {
  SmallVector<linalg::GenericOp> reductions;
  for (linalg::GenericOp g : region.generics)
    if (isReduction(g))
      reductions.push_back(g);
  if (reductions.size() != 1 || region.outputs.size() != 1 ||
      region.outputs[0] != reductions[0].getResult(0) ||
      reductions[0].getNumDpsInits() != 1 ||
      !region.splats.count(reductions[0].getDpsInitOperand(0)->get())) {
    why = "not a single reduction into a filled output";
    return failure();
  }
  linalg::GenericOp g = reductions[0];
  Value out = region.outputs[0];
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation()) {
    why = "a reduction output map that is not a projected permutation";
    return failure();
  }
  ArrayRef<int64_t> outShape = shapeOf(out);
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<std::string> dims(ranges.size());
  SmallVector<std::string> idx = delinearize("e", outShape);
  for (unsigned k = 0; k < outMap.getNumResults(); ++k)
    dims[outMap.getDimPosition(k)] = idx[k];
  std::string loops, close;
  SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
  if (slices && (iterators.back() != utils::IteratorType::parallel ||
                 outMap.getNumResults() == 0 ||
                 outMap.getDimPosition(outMap.getNumResults() - 1) !=
                     iterators.size() - 1)) {
    why = "a sliced reduction needs its innermost loop parallel";
    return failure();
  }
  bool sliced = false;
  for (auto [d, type] : llvm::enumerate(iterators)) {
    if (type != utils::IteratorType::reduction)
      continue;
    std::string var = "r" + std::to_string(d);
    dims[d] = var;
    if (slices && !sliced) {
      // The outermost reduced dimension, one slice per warp.
      int64_t slice = (ranges[d] + slices - 1) / slices;
      if (slice < 2) {
        why = "a reduced dimension too short to slice";
        return failure();
      }
      loops += llvm::formatv(
                   "#pragma unroll 8\n"
                   "    for (long long {0} = s * {1}LL; {0} < {2}LL && {0} < "
                   "(s + 1) * {1}LL; ++{0}) {{\n",
                   var, slice, ranges[d])
                   .str();
      sliced = true;
    } else {
      loops +=
          llvm::formatv("    for (long long {0} = 0; {0} < {1}LL; ++{0}) {{\n",
                        var, ranges[d])
              .str();
    }
    close += "    }\n";
  }
  Block &reduceBody = g.getRegion().front();
  BlockArgument accArg = reduceBody.getArgument(g.getNumDpsInputs());
  FailureOr<Combiner> combiner = findCombiner(reduceBody, accArg, why);
  if (failed(combiner))
    return failure();
  std::string body;
  unsigned counter = 0;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  eval.loadInput = [&](unsigned i, ArrayRef<std::string> at) {
    return eval.loadAt(i, at);
  };
  llvm::DenseMap<Value, std::string> names;
  if (failed(eval.bindOperands(g, dims, names, why, accArg)) ||
      failed(writer.writeBlock(reduceBody, names, dims, combiner->op, why)))
    return failure();
  std::string mapped =
      names.lookup(combiner->op->getOperand(combiner->otherOperand));
  std::string ctype = getCType(elementOf(out))->compute;
  int64_t total = product(outShape);
  if (slices)
    return writeSlices(region, g, *combiner, body + "    acc = " +
                                                combiner->combine("acc", mapped) +
                                                ";\n",
                       loops, close, slices);
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, "reduce") + " {\n";
  src += llvm::formatv(
             "  for (long long e = blockIdx.x * (long long)blockDim.x + "
             "threadIdx.x; e < {0}LL; e += (long long)gridDim.x * "
             "blockDim.x) {{\n"
             "    {1} acc = {2};\n",
             total, ctype, region.splats.lookup(g.getDpsInitOperand(0)->get()))
             .str();
  src += loops + body + "    acc = " + combiner->combine("acc", mapped) +
         ";\n" + close;
  src += "    out0[e] = " + storeAs(elementOf(out), "acc") + ";\n  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((total + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("serial-t{0}", threads).str(),
                 src,
                 {{"reduce", {blocks, 1, 1}, {threads, 1, 1}}}};
}

/// Any non-elementwise region with one reduction.
class SerialReductionStrategy final : public Strategy {
public:
  StringRef getName() const override { return "serial-reduction"; }

  bool match(const LinalgRegion &region, std::string &) const override {
    return !isElementwise(region);
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &,
                   Precision, VariantList &list) const override {
    std::string reason;
    // Over a middle dimension: the sliced form first (when it applies; on
    // the H200 at 128 x 4096 x 4095, 16 slices 2400 us, 8 slices 2472 us,
    // the serial kernel 2419 us).
    std::string sliceWhy;
    if (FailureOr<Variant> v = writeSerialReduction(region, 256, sliceWhy, 16);
        succeeded(v))
      list.variants.push_back(std::move(*v));
    list.add(writeSerialReduction(region, 256, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getSerialReductionStrategy() {
  static const SerialReductionStrategy strategy;
  return strategy;
}
