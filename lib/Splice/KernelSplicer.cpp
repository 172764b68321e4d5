//===- KernelSplicer.cpp - Splice verified kernels into regions ------------===//
//
// Builds the spliced form of a region: gpu.binary ops holding the candidate's
// cubins and a body of gpu.alloc / gpu.launch_func / gpu.dealloc over the
// region's buffers, which agent-default-lowering then lowers with the rest.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Splice/KernelSplicer.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// Checks that `func` is a bufferized region whose arguments are the plan's
/// inputs and outputs, in order, and that every step names plan buffers.
LogicalResult checkSignature(func::FuncOp func, const LaunchPlan &plan) {
  if (func.isExternal() || func.getNumResults() != 0 ||
      !func.getBody().hasOneBlock())
    return func.emitError("cannot splice a kernel into this function: it must "
                          "be a bufferized region with out-parameters and no "
                          "results (run one-shot-bufferize and "
                          "buffer-results-to-out-params first)");
  SmallVector<const PlanBuffer *> boundary;
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.role == "input")
      boundary.push_back(&buffer);
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.role == "output")
      boundary.push_back(&buffer);
  if (boundary.size() != func.getNumArguments())
    return func.emitError() << "cannot splice a kernel into this function: "
                               "its plan has "
                            << boundary.size()
                            << " input and output buffers, the function "
                            << func.getNumArguments() << " arguments";
  // Every step must name buffers of the plan, checked before the body goes.
  llvm::StringSet<> names;
  for (const PlanBuffer &buffer : plan.buffers)
    names.insert(buffer.name);
  if (plan.workspaceBytes > 0)
    names.insert("workspace");
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.isView() &&
        (!names.contains(buffer.viewOf) ||
         llvm::any_of(plan.buffers, [&](const PlanBuffer &base) {
           return base.name == buffer.viewOf && base.isView();
         })))
      return func.emitError() << "cannot splice a kernel into this function: "
                                 "view '"
                              << buffer.name << "' names '" << buffer.viewOf
                              << "', which is not a buffer of the plan";
  for (auto [i, launch] : llvm::enumerate(plan.launches)) {
    SmallVector<StringRef> used(launch.args.begin(), launch.args.end());
    if (launch.isCopy())
      used = {launch.copyFrom, launch.copyTo};
    for (StringRef name : used)
      if (!names.contains(name))
        return func.emitError() << "cannot splice a kernel into this "
                                   "function: step "
                                << i << " names unknown buffer '" << name
                                << "'";
  }
  for (auto [arg, buffer] : llvm::zip(func.getArguments(), boundary)) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getShape() != ArrayRef<int64_t>(buffer->shape) ||
        type.getElementType() !=
            parseDtypeName(func.getContext(), buffer->dtype))
      return func.emitError()
             << "cannot splice a kernel into this function: argument "
             << arg.getArgNumber() << " of type " << arg.getType()
             << " does not match plan buffer '" << buffer->name << "'";
  }
  return success();
}

} // namespace

LogicalResult cuda_agent::spliceKernel(func::FuncOp func,
                                       const LaunchPlan &plan) {
  if (failed(checkSignature(func, plan)))
    return failure();
  MLIRContext *ctx = func.getContext();
  auto module = func->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  OpBuilder builder(ctx);
  Location loc = func.getLoc();

  // gpu.launch_func must live in a module marked as holding GPU code.
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));

  // One gpu.binary per kernel object, named after the region.
  auto target = NVVM::NVVMTargetAttr::get(
      ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
      plan.chip.empty() ? "sm_90" : plan.chip);
  llvm::StringMap<StringAttr> binaries;
  builder.setInsertionPoint(func);
  for (const PlanLaunch &launch : plan.launches) {
    if (launch.isCopy() || binaries.count(launch.object))
      continue;
    auto object = gpu::ObjectAttr::get(
        ctx, target, gpu::CompilationTarget::Binary,
        builder.getStringAttr(plan.objects.lookup(launch.object)),
        DictionaryAttr(), gpu::KernelTableAttr());
    std::string name = (func.getSymName() + "_" +
                        llvm::sys::path::stem(launch.object))
                           .str();
    auto binary = gpu::BinaryOp::create(builder, loc, name, Attribute(),
                                        ArrayRef<Attribute>{object});
    binaries[launch.object] = symbols.insert(binary);
  }

  // The new body: temporaries, launches in order, frees.
  Block &body = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    op.erase();
  builder.setInsertionPointToStart(&body);
  llvm::StringMap<Value> buffers;
  unsigned argument = 0;
  for (StringRef role : {"input", "output"})
    for (const PlanBuffer &buffer : plan.buffers)
      if (buffer.role == role)
        buffers[buffer.name] = body.getArgument(argument++);
  SmallVector<Value> temps;
  auto allocate = [&](StringRef name, MemRefType type) {
    Value value = gpu::AllocOp::create(builder, loc, type, Type(), ValueRange{},
                                       ValueRange{}, ValueRange{},
                                       /*hostShared=*/false)
                      .getMemref();
    buffers[name] = value;
    temps.push_back(value);
  };
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.role == "temp")
      allocate(buffer.name,
               MemRefType::get(buffer.shape, parseDtypeName(ctx, buffer.dtype)));
  // A view is its buffer's pointer (kernels take bare pointers).
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.isView())
      buffers[buffer.name] = buffers.lookup(buffer.viewOf);
  if (plan.workspaceBytes > 0)
    allocate("workspace",
             MemRefType::get({plan.workspaceBytes}, builder.getI8Type()));
  llvm::SmallDenseMap<int64_t, Value> constants;
  auto index = [&](int64_t value) -> Value {
    Value &constant = constants[value];
    if (!constant)
      constant = arith::ConstantIndexOp::create(builder, loc, value);
    return constant;
  };
  for (auto [i, launch] : llvm::enumerate(plan.launches)) {
    if (launch.isCopy()) {
      gpu::MemcpyOp::create(builder, loc, Type(), ValueRange{},
                            buffers.lookup(launch.copyTo),
                            buffers.lookup(launch.copyFrom));
      continue;
    }
    SmallVector<Value> args = llvm::map_to_vector(
        launch.args, [&](const std::string &arg) { return buffers.lookup(arg); });
    auto kernel = SymbolRefAttr::get(
        binaries.lookup(launch.object),
        {FlatSymbolRefAttr::get(ctx, launch.kernel)});
    gpu::KernelDim3 grid{index(launch.grid[0]), index(launch.grid[1]),
                         index(launch.grid[2])};
    gpu::KernelDim3 block{index(launch.block[0]), index(launch.block[1]),
                          index(launch.block[2])};
    Value shared;
    if (launch.sharedBytes)
      shared = arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                            launch.sharedBytes);
    gpu::LaunchFuncOp::create(builder, loc, kernel, grid, block, shared, args);
  }
  for (Value temp : temps)
    gpu::DeallocOp::create(builder, loc, Type(), ValueRange{}, temp);
  func::ReturnOp::create(builder, loc);

  // Provenance rides along on the function.
  SmallVector<NamedAttribute> provenance;
  for (const auto &[key, value] : plan.extra) {
    if (std::optional<StringRef> s = value.getAsString())
      provenance.push_back(builder.getNamedAttr(key, builder.getStringAttr(*s)));
    else if (std::optional<double> d = value.getAsNumber())
      provenance.push_back(builder.getNamedAttr(key, builder.getF64FloatAttr(*d)));
  }
  // Where the outputs start among the bufferized arguments.
  provenance.push_back(builder.getNamedAttr(
      "inputs", builder.getI64IntegerAttr(llvm::count_if(
                    plan.buffers, [](const PlanBuffer &buffer) {
                      return buffer.role == "input";
                    }))));
  func->setAttr(kSplicedAttrName, builder.getDictionaryAttr(provenance));
  return success();
}

FailureOr<unsigned> cuda_agent::spliceFromDirectory(ModuleOp module,
                                                    StringRef dir) {
  unsigned spliced = 0;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    auto region = func->getAttrOfType<DictionaryAttr>(kRegionAttrName);
    auto hash = region ? region.getAs<StringAttr>("hash") : StringAttr();
    if (!hash)
      continue;
    SmallString<256> path(dir);
    llvm::sys::path::append(path, hash.getValue());
    if (!llvm::sys::fs::exists(path + "/plan.json"))
      continue;
    llvm::Expected<LaunchPlan> plan = readBundle(path);
    if (!plan)
      return func.emitError() << "cannot read the kernel bundle for this "
                                 "region: "
                              << llvm::toString(plan.takeError());
    // The candidate's CUDA source rides along with the kernel when present.
    auto source = llvm::MemoryBuffer::getFile(path + "/" + kCandidateSourceName);
    if (source)
      plan->extra["source"] = (*source)->getBuffer().str();
    if (failed(spliceKernel(func, *plan)))
      return failure();
    ++spliced;
  }
  return spliced;
}

void cuda_agent::attachKernel(func::FuncOp func, const LaunchPlan &plan) {
  Builder builder(func.getContext());
  std::string json;
  llvm::raw_string_ostream os(json);
  os << toJSON(plan);
  SmallVector<NamedAttribute> objects;
  for (const auto &object : plan.objects)
    objects.push_back(builder.getNamedAttr(
        object.getKey(), builder.getStringAttr(object.getValue())));
  func->setAttr(kKernelAttrName,
                builder.getDictionaryAttr(
                    {builder.getNamedAttr("plan", builder.getStringAttr(json)),
                     builder.getNamedAttr("objects",
                                          builder.getDictionaryAttr(objects))}));
}

FailureOr<LaunchPlan> cuda_agent::readAttachedKernel(func::FuncOp func) {
  auto kernel = func->getAttrOfType<DictionaryAttr>(kKernelAttrName);
  auto text = kernel ? kernel.getAs<StringAttr>("plan") : StringAttr();
  auto objects = kernel ? kernel.getAs<DictionaryAttr>("objects")
                        : DictionaryAttr();
  if (!text || !objects)
    return func.emitError() << kKernelAttrName
                            << " needs a string 'plan' and a dictionary "
                               "'objects'";
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text.getValue());
  if (!json)
    return func.emitError() << kKernelAttrName << ": "
                            << llvm::toString(json.takeError());
  auto readObject = [&](StringRef name) -> llvm::Expected<std::string> {
    if (auto bytes = objects.getAs<StringAttr>(name))
      return bytes.getValue().str();
    return llvm::createStringError("no object '%s' in %s", name.str().c_str(),
                                   kKernelAttrName.data());
  };
  llvm::Expected<LaunchPlan> plan =
      parseLaunchPlan(*json, readObject, kKernelAttrName);
  if (!plan)
    return func.emitError() << "cannot read the kernel of this region: "
                            << llvm::toString(plan.takeError());
  return std::move(*plan);
}

FailureOr<unsigned> cuda_agent::spliceFromAttributes(ModuleOp module) {
  unsigned spliced = 0;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    if (!func->hasAttr(kKernelAttrName))
      continue;
    FailureOr<LaunchPlan> plan = readAttachedKernel(func);
    if (failed(plan) || failed(spliceKernel(func, *plan)))
      return failure();
    func->removeAttr(kKernelAttrName);
    ++spliced;
  }
  return spliced;
}
