//===- BuiltinAgent.cpp - Kernels written from the region's structure -----===//
//
// The embedded default agent. It parses the task's region, reads its linalg
// ops (named ops generalized first) and runs its strategies in order, each
// writing CUDA kernels from the ops' indexing maps, iterator types and
// bodies for the class of regions it recognizes; nothing here knows a
// particular test case. Part 1 covers memory-bound regions:
//
//  - elementwise and broadcast chains of any rank (Elementwise.cpp), with
//    one rank-2 transposed input through shared-memory tiles first
//    (Transpose.cpp);
//  - row programs: reductions over trailing dimensions with the elementwise
//    ops over the same rows (Rows.cpp), few long rows split over several
//    blocks first (RowsSplit.cpp);
//  - any single reduction, a thread per output element (SerialReduction.cpp);
//  - a blocked scan's step as a warp scan (BlockScan.cpp), and the outlined
//    chain of a blocked scan as one pass over each row (ScanChain.cpp).
//
// Part 2 covers contractions (Matmul.cpp): register-tiled products with
// their epilogues, f16/bf16 ones on tensor cores (Hopper's wgmma in
// MatmulWgmma.cpp, mma.sync in MatmulMma.cpp) and f32
// ones as 3xTF32 on tensor cores (MatmulTf32.cpp, plain TF32 too under
// precision=tf32); part 3 convolutions as implicit GEMMs on the same tiles
// (Conv.cpp). Only these two see regions with a product. Each region gets several variants
// (threads, elements per thread, threads per row, tiles); the closed loop's
// timing picks.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Strategy.h"

#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/Task/RegionModule.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

ArrayRef<const Strategy *> cuda_agent::builtin::getStrategies() {
  // The order is the candidates' order: the specialized form of a class
  // before its general one.
  static const Strategy *const strategies[] = {
      &getConvStrategy(),            &getMatmulStrategy(),          &getFlashAttentionStrategy(),          &getTransposeStrategy(),       &getElementwiseStrategy(),
      &getScanChainStrategy(),       &getBlockScanStrategy(),       &getRowsClusterStrategy(),     &getRowsExchangeStrategy(),    &getRowsSplitStrategy(),       &getRowsStrategy(),
      &getRowsClusterStagedStrategy(), &getSerialReductionStrategy(),
  };
  return strategies;
}

bool cuda_agent::builtin::takesProducts(const Strategy &strategy) {
  return &strategy == &getFlashAttentionStrategy() ||
         &strategy == &getConvStrategy() || &strategy == &getMatmulStrategy();
}

bool cuda_agent::builtin::readsRegionOps(const Strategy &strategy,
                                         const LinalgRegion &region,
                                         std::string &why) {
  if (!region.views.empty() && !strategy.readsViews()) {
    why = "a reshape, slice or pad of a computed tensor inside the region "
          "(a blocked scan's chain): the " +
          strategy.getName().str() + " strategy does not read them";
    return false;
  }
  if (!region.assemblies.empty() && !strategy.readsAssemblies()) {
    why = "a tensor.concat or tensor.insert_slice output: the " +
          strategy.getName().str() + " strategy does not write them";
    return false;
  }
  if (region.pads.empty() || strategy.readsPads())
    return true;
  why = "a tensor.pad inside the region: the " + strategy.getName().str() +
        " strategy does not read pads (the conv strategy reads those of a "
        "convolution's input or filter)";
  return false;
}

const Strategy *cuda_agent::builtin::findStrategy(StringRef name) {
  for (const Strategy *strategy : getStrategies())
    if (strategy->getName() == name)
      return strategy;
  return nullptr;
}

std::vector<Variant>
cuda_agent::builtin::writeVariants(const LinalgRegion &region,
                                   const GpuTarget &target, Precision precision,
                                   std::string &why) {
  VariantList list;
  bool product = hasProduct(region);
  for (const Strategy *strategy : getStrategies()) {
    // Regions with a product are the product strategies' alone.
    if (product != takesProducts(*strategy))
      continue;
    std::string reason;
    if (!readsRegionOps(*strategy, region, reason) ||
        !strategy->match(region, reason)) {
      if (list.why.empty())
        list.why = reason;
      continue;
    }
    strategy->addVariants(region, target, precision, list);
  }
  why = list.variants.empty() ? list.why : "";
  return std::move(list.variants);
}

namespace {
class BuiltinAgent final : public KernelAgent {
public:
  llvm::StringRef getName() const override { return "builtin"; }

  llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) override {
    // Parse errors go into the reason, not to the compiler's stderr.
    llvm::Expected<RegionModule> parsed = parseRegionModule(task.regionMlir);
    if (!parsed)
      return parsed.takeError();
    LinalgRegion region;
    std::string why;
    if (failed(readLinalgRegion(parsed->func, region, why,
                                /*allowContractions=*/true,
                                /*allowPads=*/true, /*allowViews=*/true)))
      return llvm::createStringError("%s", why.c_str());
    std::vector<Variant> variants =
        writeVariants(region, getGpuTargetFor(task.arch.c_str()),
                      task.precision == wire::kPrecisionTf32 ? Precision::Tf32
                                               : Precision::F32,
                      why);
    if (variants.empty())
      return llvm::createStringError("%s", why.c_str());
    std::vector<Candidate> candidates;
    for (Variant &variant : variants) {
      if (candidates.size() == count)
        break;
      if (llvm::any_of(history, [&](const Attempt &a) {
            return a.candidate.name == variant.name;
          }))
        continue;
      candidates.push_back({variant.name, variant.source, launchJson(variant),
                            "builtin", "structure-v2"});
    }
    return candidates;
  }
};
} // namespace

std::unique_ptr<KernelAgent> cuda_agent::createBuiltinAgent() {
  return std::make_unique<BuiltinAgent>();
}
