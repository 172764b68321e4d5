//===- LaunchPlan.cpp - Launch plans and kernel bundles ---------------------===//
//
// Reads the launch plan out of a function lowered by the default pipeline
// (host code still in the func/arith/gpu dialects) and writes it, with its
// kernel objects, as a bundle directory for cuda-agent-run.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/LaunchPlan.h"
#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The plan spelling of an element type, or "" when the runner has none.
std::string dtypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isSignlessInteger(1))
    return "i1";
  for (unsigned width : {8u, 16u, 32u, 64u})
    if (type.isSignlessInteger(width))
      return "i" + std::to_string(width);
  return "";
}

/// Adds a buffer for `value` (a static memref) to `plan`.
LogicalResult addBuffer(LaunchPlan &plan, Value value, StringRef name,
                        StringRef role, Operation *where) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return where->emitError()
           << "cannot express this value in a launch plan: " << name
           << " must be a static memref with an identity layout, not "
           << value.getType();
  std::string dtype = dtypeName(type.getElementType());
  if (dtype.empty())
    return where->emitError() << "cannot express element type "
                              << type.getElementType() << " of " << name
                              << " in a launch plan";
  plan.buffers.push_back(
      {name.str(), SmallVector<int64_t>(type.getShape()), dtype, role.str()});
  return success();
}

/// Returns the constant value of an index operand of `launch`.
FailureOr<int64_t> constantOperand(gpu::LaunchFuncOp launch, Value value,
                                   StringRef what) {
  std::optional<int64_t> constant = getConstantIntValue(value);
  if (!constant) {
    launch.emitError() << "cannot express this launch in a launch plan: its "
                       << what << " is not a constant";
    return failure();
  }
  return *constant;
}

/// Adds the object of the NVVM binary `name` to `plan` (once) and returns
/// its file name.
FailureOr<std::string> addObject(LaunchPlan &plan, ModuleOp module,
                                 gpu::LaunchFuncOp launch, StringRef name) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>(name);
  if (!binary) {
    launch.emitError() << "cannot find gpu.binary @" << name
                       << "; run the default lowering up to gpu-module-to-binary first";
    return failure();
  }
  for (Attribute attr : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(attr);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!target)
      continue;
    StringRef extension;
    switch (object.getFormat()) {
    case gpu::CompilationTarget::Binary:
      extension = ".cubin";
      break;
    case gpu::CompilationTarget::Fatbin:
      extension = ".fatbin";
      break;
    case gpu::CompilationTarget::Assembly:
      extension = ".ptx";
      break;
    case gpu::CompilationTarget::Offload:
      continue;
    }
    std::string file = (name + extension).str();
    plan.objects.insert({file, object.getObject().getValue().str()});
    if (plan.chip.empty())
      plan.chip = target.getChip().str();
    return file;
  }
  launch.emitError() << "gpu.binary @" << name
                     << " has no NVVM cubin, fatbin or PTX object";
  return failure();
}

} // namespace

llvm::json::Value cuda_agent::toJSON(const LaunchPlan &plan) {
  llvm::json::Array buffers;
  for (const PlanBuffer &buffer : plan.buffers)
    buffers.push_back(llvm::json::Object{
        {"name", buffer.name},
        {"shape", llvm::json::Array(buffer.shape)},
        {"dtype", buffer.dtype},
        {"role", buffer.role},
    });
  llvm::json::Array launches;
  for (const PlanLaunch &launch : plan.launches) {
    llvm::json::Array args;
    for (const std::string &arg : launch.args)
      args.push_back(arg);
    launches.push_back(llvm::json::Object{
        {"kernel", launch.kernel},
        {"object", launch.object},
        {"grid", llvm::json::Array(launch.grid)},
        {"block", llvm::json::Array(launch.block)},
        {"shared_bytes", launch.sharedBytes},
        {"args", std::move(args)},
    });
  }
  return llvm::json::Object{{"version", kLaunchPlanVersion},
                            {"chip", plan.chip},
                            {"buffers", std::move(buffers)},
                            {"launches", std::move(launches)}};
}

FailureOr<LaunchPlan> cuda_agent::extractLaunchPlan(func::FuncOp func,
                                                    unsigned numInputs) {
  LaunchPlan plan;
  auto module = func->getParentOfType<ModuleOp>();
  if (!func.getBody().hasOneBlock())
    return func.emitError("cannot express a function with control flow in a "
                          "launch plan");
  if (func.getNumResults() != 0)
    return func.emitError("cannot express a function with results in a "
                          "launch plan; outputs must be out-parameters");

  DenseMap<Value, std::string> names;
  for (BlockArgument arg : func.getArguments()) {
    bool input = arg.getArgNumber() < numInputs;
    std::string name =
        (input ? "in" : "out") +
        std::to_string(input ? arg.getArgNumber() : arg.getArgNumber() - numInputs);
    if (failed(addBuffer(plan, arg, name, input ? "input" : "output", func)))
      return failure();
    names[arg] = name;
  }

  unsigned temps = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<arith::ConstantOp, gpu::DeallocOp, func::ReturnOp>(op))
      continue;
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      std::string name = "tmp" + std::to_string(temps++);
      if (failed(addBuffer(plan, alloc.getMemref(), name, "temp", alloc)))
        return failure();
      names[alloc.getMemref()] = name;
      continue;
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return op.emitError() << "cannot express '" << op.getName()
                            << "' in a launch plan: the host code must be "
                               "straight-line allocations and launches";
    PlanLaunch entry;
    entry.kernel = launch.getKernelName().str();
    FailureOr<std::string> object =
        addObject(plan, module, launch, launch.getKernelModuleName());
    if (failed(object))
      return failure();
    entry.object = *object;
    Value grid[] = {launch.getGridSizeX(), launch.getGridSizeY(),
                    launch.getGridSizeZ()};
    Value block[] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()};
    for (int i = 0; i < 3; ++i) {
      FailureOr<int64_t> g = constantOperand(launch, grid[i], "grid size");
      FailureOr<int64_t> b = constantOperand(launch, block[i], "block size");
      if (failed(g) || failed(b))
        return failure();
      entry.grid[i] = *g;
      entry.block[i] = *b;
    }
    if (Value shared = launch.getDynamicSharedMemorySize()) {
      FailureOr<int64_t> bytes =
          constantOperand(launch, shared, "dynamic shared memory size");
      if (failed(bytes))
        return failure();
      entry.sharedBytes = *bytes;
    }
    for (Value operand : launch.getKernelOperands()) {
      auto it = names.find(operand);
      if (it == names.end())
        return launch.emitError()
               << "cannot express this launch in a launch plan: kernel "
                  "operand of type "
               << operand.getType() << " is not a buffer";
      entry.args.push_back(it->second);
    }
    plan.launches.push_back(std::move(entry));
  }
  if (plan.launches.empty())
    return func.emitError("the default lowering of this function launches no "
                          "kernel");
  return plan;
}

LogicalResult cuda_agent::writeBundle(const LaunchPlan &plan, StringRef dir,
                                      Location loc) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return emitError(loc) << "cannot create bundle directory '" << dir
                          << "': " << ec.message();
  auto write = [&](StringRef file, StringRef contents) -> LogicalResult {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return emitError(loc) << "cannot write '" << path << "': " << ec.message();
    os << contents;
    return success();
  };
  for (const auto &object : plan.objects)
    if (failed(write(object.getKey(), object.getValue())))
      return failure();
  if (!plan.source.empty() && failed(write(kBundleSourceName, plan.source)))
    return failure();
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", toJSON(plan)) << "\n";
  return write("plan.json", json);
}

LogicalResult cuda_agent::emitBundles(ModuleOp module, StringRef dir,
                                      const DefaultLoweringOptions &options,
                                      bool regionsOnly) {
  SmallVector<func::FuncOp> regions, publics;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (func->hasAttr(kRegionAttrName))
      regions.push_back(func);
    else if (func.isPublic())
      publics.push_back(func);
  }
  bool byRegion = !regions.empty() || regionsOnly;
  ArrayRef<func::FuncOp> targets = byRegion ? regions : publics;

  DefaultLoweringOptions gpuStage = options;
  gpuStage.hostStage = HostStage::GPU;
  for (func::FuncOp func : targets) {
    // Lower a copy in a module of its own: the region is self-contained.
    OwningOpRef<ModuleOp> copy = ModuleOp::create(func.getLoc());
    auto clone = cast<func::FuncOp>(func->clone());
    clone.setPublic();
    copy->push_back(clone);
    // The bundle carries its source too, as a public @region, from which
    // agent-cpu-reference builds a CPU reference and agents read the task.
    std::string source;
    {
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
    FailureOr<LaunchPlan> plan =
        extractLaunchPlan(lowered, func.getNumArguments());
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
    plan->source = std::move(source);
    if (failed(writeBundle(*plan, path, func.getLoc())))
      return failure();
  }
  return success();
}
