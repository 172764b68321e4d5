//===- SerialReduction.cpp - A thread per reduced output element ----------===//
//
// Any single reduction into a filled output: one thread per output element
// looping over the reduced dimensions in the reference's order (coalesced
// for reductions over outer dimensions). The fallback for reductions the row
// strategies do not take, and another candidate for those they do.
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

FailureOr<Variant> writeSerialReduction(const LinalgRegion &region, int threads,
                                        std::string &why) {
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
  for (auto [d, type] : llvm::enumerate(g.getIteratorTypesArray())) {
    if (type != utils::IteratorType::reduction)
      continue;
    std::string var = "r" + std::to_string(d);
    dims[d] = var;
    loops +=
        llvm::formatv("    for (long long {0} = 0; {0} < {1}LL; ++{0}) {{\n",
                      var, ranges[d])
            .str();
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
    list.add(writeSerialReduction(region, 256, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getSerialReductionStrategy() {
  static const SerialReductionStrategy strategy;
  return strategy;
}
