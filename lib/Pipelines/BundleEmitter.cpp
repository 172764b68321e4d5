//===- BundleEmitter.cpp - Bundles of the default lowering -----------------===//
//
// Lowers a copy of each region with the default pipeline (host=gpu), reads
// its launch plan and writes the bundle.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/BundleEmitter.h"
#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Splice/KernelSplicer.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

FailureOr<LaunchPlan>
cuda_agent::lowerToLaunchPlan(func::FuncOp func,
                              const DefaultLoweringOptions &options) {
  auto module = func->getParentOfType<ModuleOp>();
  DefaultLoweringOptions gpuStage = options;
  gpuStage.hostStage = HostStage::GPU;
  // Lower a copy in a module of its own, with the functions it calls (the
  // regions of a whole program), the globals it reads and the gpu.binary ops
  // a spliced region launches from.
  OwningOpRef<ModuleOp> copy = ModuleOp::create(func.getLoc());
  auto clone = cast<func::FuncOp>(func->clone());
  clone.setPublic();
  copy->push_back(clone);
  llvm::SmallPtrSet<Operation *, 4> copied{func};
  SmallVector<func::FuncOp> worklist{func};
  llvm::SmallPtrSet<Operation *, 4> binaries;
  while (!worklist.empty()) {
    func::FuncOp current = worklist.pop_back_val();
    current.walk([&](Operation *op) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (callee && copied.insert(callee).second) {
          copy->push_back(callee->clone());
          worklist.push_back(callee);
        }
      } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        // A global the function reads (tensor constants become globals
        // only later, in the copy's own bufferization).
        if (auto global = module.lookupSymbol<memref::GlobalOp>(get.getName()))
          if (copied.insert(global).second)
            copy->push_back(global->clone());
      } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (auto binary = module.lookupSymbol<gpu::BinaryOp>(
                launch.getKernelModuleName()))
          if (binaries.insert(binary).second)
            copy->push_back(binary->clone());
      }
    });
  }
  if (!binaries.empty())
    (*copy)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     UnitAttr::get(module.getContext()));
  // Spliced regions are already bufferized (inputs, then out-parameters);
  // the splice recorded where the outputs start.
  unsigned numInputs = func.getNumArguments();
  if (auto spliced = func->getAttrOfType<DictionaryAttr>(kSplicedAttrName))
    if (auto inputs = spliced.getAs<IntegerAttr>("inputs"))
      numInputs = inputs.getInt();
  // The bundle carries its tensor-level source too, as a public @region,
  // from which agent-cpu-reference builds a CPU reference and agents read
  // the task; a spliced region has none left.
  bool onTensors = llvm::all_of(func.getArgumentTypes(), [](Type type) {
    return isa<TensorType>(type);
  });
  std::string source;
  if (onTensors) {
    OwningOpRef<ModuleOp> named(cast<ModuleOp>((*copy)->clone()));
    named->lookupSymbol<func::FuncOp>(func.getSymName()).setSymName("region");
    llvm::raw_string_ostream os(source);
    named->print(os);
  }
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildDefaultLoweringPipeline(pm, gpuStage);
  if (failed(pm.run(*copy)))
    return func.emitError("the default lowering of this function failed");
  auto lowered = copy->lookupSymbol<func::FuncOp>(func.getSymName());
  FailureOr<LaunchPlan> plan = extractLaunchPlan(lowered, numInputs);
  if (failed(plan))
    return failure();
  plan->source = std::move(source);
  return plan;
}

LogicalResult cuda_agent::emitBundles(ModuleOp module, StringRef dir,
                                      const DefaultLoweringOptions &options,
                                      BundleScope scope) {
  bool regionsOnly = scope == BundleScope::Regions;
  SmallVector<func::FuncOp> regions, publics;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (func->hasAttr(kRegionAttrName)) {
      if (scope != BundleScope::Programs)
        regions.push_back(func);
    } else if (func.isPublic()) {
      publics.push_back(func);
    }
  }
  bool byRegion = !regions.empty() || regionsOnly;
  ArrayRef<func::FuncOp> targets = byRegion ? regions : publics;
  if (targets.empty() && !regionsOnly)
    return module.emitError("no outlined region and no public function on "
                            "tensors to write a bundle for (agent-emit-bundle "
                            "must run before agent-default-lowering)");

  for (func::FuncOp func : targets) {
    FailureOr<LaunchPlan> plan = lowerToLaunchPlan(func, options);
    if (failed(plan))
      return failure();
    SmallString<256> path(dir);
    if (byRegion) {
      auto attr = func->getAttrOfType<DictionaryAttr>(kRegionAttrName);
      auto hash = attr ? attr.getAs<StringAttr>("hash") : StringAttr();
      if (!hash)
        return func.emitError("region has no hash in its cuda_agent.region "
                              "attribute");
      llvm::sys::path::append(path, hash.getValue());
    } else if (targets.size() > 1) {
      llvm::sys::path::append(path, func.getSymName());
    }
    if (failed(writeBundle(*plan, path, func.getLoc())))
      return failure();
  }
  return success();
}
