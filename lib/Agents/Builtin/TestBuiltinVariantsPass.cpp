//===- TestBuiltinVariantsPass.cpp - One builtin strategy's kernels -------===//
//
// The agent-test-builtin-variants pass: feeds each outlined region to one
// strategy of the builtin agent and prints its variants (name, launch plan,
// source), so that lit tests check kernel text for a region of their own
// without the closed loop, region hashes or bundle directories.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Strategy.h"

#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Task/KernelTask.h"
#include "cuda-agent/Task/RegionModule.h"
#include "cuda-agent/Transforms/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTTESTBUILTINVARIANTSPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {
/// The variants `strategy` writes for `regionMlir`, or why there are none.
llvm::Expected<VariantList> writeStrategyVariants(const Strategy &strategy,
                                                  const KernelTask &task,
                                                  const GpuTarget &target) {
  StringRef regionMlir = task.regionMlir;
  llvm::Expected<RegionModule> parsed = parseRegionModule(regionMlir);
  if (!parsed)
    return parsed.takeError();
  LinalgRegion region;
  std::string why;
  if (failed(readLinalgRegion(parsed->func, region, why,
                               /*allowContractions=*/true,
                               /*allowPads=*/true, /*allowViews=*/true)))
    return llvm::createStringError("%s", why.c_str());
  if (hasProduct(region) && !takesProducts(strategy))
    return llvm::createStringError("a region with a product is the product "
                                   "strategies'");
  if (!readsRegionOps(strategy, region, why) ||
      !strategy.match(region, why))
    return llvm::createStringError("%s",
                                   why.empty() ? "no match" : why.c_str());
  VariantList list;
  strategy.addVariants(region, target,
                       task.precision == wire::kPrecisionTf32 ? Precision::Tf32
                                                              : Precision::F32,
                       list);
  return list;
}

struct AgentTestBuiltinVariantsPass
    : public cuda_agent::impl::AgentTestBuiltinVariantsPassBase<
          AgentTestBuiltinVariantsPass> {
  using AgentTestBuiltinVariantsPassBase::AgentTestBuiltinVariantsPassBase;

  void runOnOperation() override {
    const Strategy *chosen = findStrategy(strategy);
    if (!chosen) {
      std::string names;
      for (const Strategy *s : getStrategies())
        names += (names.empty() ? "" : ", ") + s->getName().str();
      getOperation().emitError() << "unknown builtin strategy '" << strategy
                                 << "' (one of " << names << ")";
      return signalPassFailure();
    }
    if (precision != wire::kPrecisionF32 && precision != wire::kPrecisionTf32) {
      getOperation().emitError() << "precision=" << precision
                                 << " is not one of " << wire::kPrecisionF32
                                 << " or " << wire::kPrecisionTf32;
      return signalPassFailure();
    }
    const GpuTarget target = getGpuTargetFor(chip.c_str());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kRegionAttrName) || func.isExternal())
        continue;
      FailureOr<KernelTask> task = buildKernelTask(func, chip, precision);
      if (failed(task))
        return signalPassFailure();
      llvm::outs() << "// ===== " << strategy << " variants of @"
                   << func.getSymName() << " =====\n";
      // Under precision=tf32, the key the region's kernels are kept under.
      if (precision != wire::kPrecisionF32)
        llvm::outs() << "// precision '" << task->precision << "', key "
                     << task->regionHash << "\n";
      llvm::Expected<VariantList> list =
          writeStrategyVariants(*chosen, *task, target);
      if (!list) {
        llvm::outs() << "// no variants: " << llvm::toString(list.takeError())
                     << "\n";
        continue;
      }
      for (const Variant &variant : list->variants)
        if (variants.empty() || llvm::is_contained(variants, variant.name))
          llvm::outs() << "// ----- variant " << variant.name << " -----\n"
                       << variant.source << "// ----- plan of " << variant.name
                       << " -----\n"
                       << llvm::formatv("{0:2}", launchPlan(variant)) << "\n";
      if (!list->why.empty())
        llvm::outs() << "// not written: " << list->why << "\n";
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
