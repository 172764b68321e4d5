//===- LaunchPlan.cpp - Launch plans and kernel bundles
//---------------------===//
//
// Reads the launch plan out of a function lowered by the default pipeline
// (host code still in the func/arith/gpu dialects) and writes it, with its
// kernel objects, as a bundle directory for cuda-agent-run.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/LaunchPlan.h"
#include "cuda-agent/Outline/ElementTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// Adds a buffer for `value` (a static memref) to `plan`.
LogicalResult addBuffer(LaunchPlan &plan, Value value, StringRef name,
                        StringRef role, Operation *where) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return where->emitError()
           << "cannot express this value in a launch plan: " << name
           << " must be a static memref with an identity layout, not "
           << value.getType();
  std::string dtype = getDtypeName(type.getElementType());
  if (dtype.empty())
    return where->emitError()
           << "cannot express element type " << type.getElementType() << " of "
           << name << " in a launch plan";
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
    launch.emitError()
        << "cannot find gpu.binary @" << name
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

/// Returns the copy that fills `alloc` from a constant global (the upload
/// agent-device-buffers writes right after the allocation), or null.
gpu::MemcpyOp findConstantUpload(gpu::AllocOp alloc) {
  auto copy = dyn_cast_or_null<gpu::MemcpyOp>(alloc->getNextNode());
  if (!copy || copy.getDst() != alloc.getMemref())
    return {};
  auto global = copy.getSrc().getDefiningOp<memref::GetGlobalOp>();
  return global ? copy : gpu::MemcpyOp();
}

/// Returns the bytes of the constant global that `get` reads, as the device
/// holds them (dense row-major, little-endian).
FailureOr<std::string> getGlobalBytes(memref::GetGlobalOp get,
                                      ModuleOp module) {
  auto global = module.lookupSymbol<memref::GlobalOp>(get.getNameAttr());
  auto fail = [&](const Twine &why) {
    return get.emitError() << "cannot express constant @" << get.getName()
                           << " in a launch plan: " << why;
  };
  if (!global || !global.getConstant() || !global.getInitialValue())
    return fail("it is not a constant global with an initial value");
  auto type = cast<MemRefType>(get.getType());
  Type element = type.getElementType();
  // An i1 takes a byte in memory, 0 or 1, as LLVM stores it (a causal
  // attention mask); MLIR packs its dense data by bits.
  bool booleans = element.isInteger(1);
  if (!element.isIntOrFloat() ||
      (!booleans && element.getIntOrFloatBitWidth() % 8))
    return fail("its element type is not a whole number of bytes");
  size_t bytes = type.getNumElements() *
                 (booleans ? 1 : element.getIntOrFloatBitWidth() / 8);
  Attribute value = *global.getInitialValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (booleans) {
      std::string data;
      data.reserve(bytes);
      for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
        data.push_back(dense.getValues<bool>()[dense.isSplat() ? 0 : i]);
      return data;
    }
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      std::string data;
      data.reserve(bytes);
      while (data.size() < bytes)
        data.append(raw.begin(), raw.end());
      return data;
    }
    if (raw.size() != bytes)
      return fail("its data has the wrong size");
    return std::string(raw.begin(), raw.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return fail("its dense_resource blob is missing");
    ArrayRef<char> raw = blob->getData();
    if (raw.size() != bytes)
      return fail("its dense_resource blob has the wrong size");
    return std::string(raw.begin(), raw.end());
  }
  return fail("its initial value is neither dense nor dense_resource");
}

} // namespace

/// Reads the three integers of a grid or block array (missing ones are 1).
static llvm::Error readDims(const llvm::json::Object &launch, StringRef key,
                            std::array<int64_t, 3> &dims, size_t index) {
  dims = {1, 1, 1};
  const llvm::json::Array *array = launch.getArray(key);
  if (!array || array->empty() || array->size() > 3)
    return llvm::createStringError(
        "launch %zu: '%s' must be an array of 1 to 3 "
        "integers",
        index, key.str().c_str());
  for (auto [i, value] : llvm::enumerate(*array)) {
    std::optional<int64_t> dim = value.getAsInteger();
    if (!dim || *dim < 1)
      return llvm::createStringError("launch %zu: '%s' has a dimension that is "
                                     "not a positive integer",
                                     index, key.str().c_str());
    dims[i] = *dim;
  }
  return llvm::Error::success();
}

llvm::Expected<LaunchPlan> cuda_agent::parseLaunchPlan(
    const llvm::json::Value &json,
    llvm::function_ref<llvm::Expected<std::string>(StringRef)> readObject,
    StringRef where) {
  std::string planName = where.str();
  const char *name = planName.c_str();
  const llvm::json::Object *root = json.getAsObject();
  if (!root)
    return llvm::createStringError("%s is not a JSON object", name);
  LaunchPlan plan;
  for (const auto &[key, value] : *root)
    if (!llvm::is_contained(
            {"version", "chip", "buffers", "launches", "workspace_bytes"},
            key.str()))
      plan.extra[key] = value;
  if (std::optional<int64_t> version = root->getInteger("version");
      version && *version != kLaunchPlanVersion)
    return llvm::createStringError("%s has version %lld; this tool "
                                   "reads version %lld",
                                   name, (long long)*version,
                                   (long long)kLaunchPlanVersion);
  if (std::optional<StringRef> chip = root->getString("chip"))
    plan.chip = chip->str();
  plan.workspaceBytes = root->getInteger("workspace_bytes").value_or(0);

  if (const llvm::json::Array *buffers = root->getArray("buffers")) {
    for (const llvm::json::Value &value : *buffers) {
      const llvm::json::Object *buffer = value.getAsObject();
      PlanBuffer entry;
      if (buffer) {
        entry.name = buffer->getString("name").value_or("").str();
        entry.dtype = buffer->getString("dtype").value_or("").str();
        entry.role = buffer->getString("role").value_or("").str();
        entry.viewOf = buffer->getString(kViewOfKey).value_or("").str();
        if (entry.isConstant()) {
          std::optional<StringRef> file = buffer->getString(kDataKey);
          if (!file)
            return llvm::createStringError(
                "%s: buffer %zu: a constant names its data file in '%s'", name,
                plan.buffers.size(), kDataKey.data());
          llvm::Expected<std::string> data = readObject(*file);
          if (!data)
            return data.takeError();
          entry.data = std::move(*data);
        }
        if (const llvm::json::Array *shape = buffer->getArray("shape"))
          for (const llvm::json::Value &dim : *shape)
            entry.shape.push_back(dim.getAsInteger().value_or(-1));
      }
      if (entry.name.empty() || entry.dtype.empty() || entry.role.empty() ||
          llvm::is_contained(entry.shape, -1))
        return llvm::createStringError("%s: buffer %zu needs a name, "
                                       "an integer shape, a dtype and a role",
                                       name, plan.buffers.size());
      if ((entry.role == kViewRole) != entry.isView())
        return llvm::createStringError("%s: buffer %zu: a view has role '%s' "
                                       "and names its buffer in '%s'",
                                       name, plan.buffers.size(),
                                       kViewRole.data(), kViewOfKey.data());
      plan.buffers.push_back(std::move(entry));
    }
  }
  const llvm::json::Array *launches = root->getArray("launches");
  if (!launches || launches->empty())
    return llvm::createStringError("%s has no launches", name);
  for (auto [index, value] : llvm::enumerate(*launches)) {
    const llvm::json::Object *launch = value.getAsObject();
    if (!launch)
      return llvm::createStringError("launch %zu is not an object", index);
    PlanLaunch entry;
    if (const llvm::json::Object *copy = launch->getObject("copy")) {
      entry.copyFrom = copy->getString("from").value_or("").str();
      entry.copyTo = copy->getString("to").value_or("").str();
      if (entry.copyFrom.empty() || entry.copyTo.empty())
        return llvm::createStringError("launch %zu: a copy needs 'from' and "
                                       "'to' buffers",
                                       index);
      plan.launches.push_back(std::move(entry));
      continue;
    }
    entry.kernel = launch->getString("kernel").value_or("").str();
    entry.object = launch->getString("object").value_or("").str();
    if (entry.kernel.empty() || entry.object.empty())
      return llvm::createStringError("launch %zu needs a kernel and an object",
                                     index);
    if (llvm::Error error = readDims(*launch, "grid", entry.grid, index))
      return std::move(error);
    for (auto [i, size] : llvm::enumerate(entry.grid))
      if (size > kMaxGridSize[i])
        return llvm::createStringError(
            "launch %zu: grid[%zu] = %lld is above CUDA's limit %lld", index,
            i, static_cast<long long>(size),
            static_cast<long long>(kMaxGridSize[i]));
    if (llvm::Error error = readDims(*launch, "block", entry.block, index))
      return std::move(error);
    entry.sharedBytes = launch->getInteger("shared_bytes").value_or(0);
    if (const llvm::json::Array *args = launch->getArray("args"))
      for (const llvm::json::Value &arg : *args)
        entry.args.push_back(arg.getAsString().value_or("").str());
    if (!plan.objects.count(entry.object)) {
      llvm::Expected<std::string> object = readObject(entry.object);
      if (!object)
        return object.takeError();
      plan.objects[entry.object] = std::move(*object);
    }
    plan.launches.push_back(std::move(entry));
  }
  return plan;
}

llvm::Expected<LaunchPlan> cuda_agent::readBundle(StringRef dir) {
  auto readFile = [&](StringRef name) -> llvm::Expected<std::string> {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(), "cannot read '%s'",
                                     path.c_str());
    return (*buffer)->getBuffer().str();
  };
  llvm::Expected<std::string> text = readFile("plan.json");
  if (!text)
    return text.takeError();
  std::string where = (dir + "/plan.json").str();
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(*text);
  if (!json)
    return llvm::createStringError("%s: %s", where.c_str(),
                                   llvm::toString(json.takeError()).c_str());
  llvm::Expected<LaunchPlan> plan = parseLaunchPlan(*json, readFile, where);
  if (!plan)
    return plan.takeError();
  if (llvm::Expected<std::string> source = readFile(kBundleSourceName))
    plan->source = std::move(*source);
  else
    llvm::consumeError(source.takeError());
  return plan;
}

llvm::json::Value cuda_agent::toJSON(const LaunchPlan &plan) {
  llvm::json::Array buffers;
  for (const PlanBuffer &buffer : plan.buffers) {
    llvm::json::Object entry{
        {"name", buffer.name},
        {"shape", llvm::json::Array(buffer.shape)},
        {"dtype", buffer.dtype},
        {"role", buffer.role},
    };
    if (buffer.isView())
      entry[kViewOfKey] = buffer.viewOf;
    if (buffer.isConstant())
      entry[kDataKey] = buffer.getDataFileName();
    buffers.push_back(std::move(entry));
  }
  llvm::json::Array launches;
  for (const PlanLaunch &launch : plan.launches) {
    if (launch.isCopy()) {
      launches.push_back(llvm::json::Object{
          {"copy", llvm::json::Object{{"from", launch.copyFrom},
                                      {"to", launch.copyTo}}}});
      continue;
    }
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
  llvm::json::Object json = plan.extra;
  json["version"] = kLaunchPlanVersion;
  json["chip"] = plan.chip;
  json["buffers"] = std::move(buffers);
  json["launches"] = std::move(launches);
  if (plan.workspaceBytes)
    json["workspace_bytes"] = plan.workspaceBytes;
  return json;
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
    std::string name = (input ? "in" : "out") +
                       std::to_string(input ? arg.getArgNumber()
                                            : arg.getArgNumber() - numInputs);
    if (failed(addBuffer(plan, arg, name, input ? "input" : "output", func)))
      return failure();
    names[arg] = name;
  }

  unsigned temps = 0, views = 0, constants = 0;
  // The uploads of constants (agent-device-buffers): their allocation is the
  // constant buffer, so the copy is no step of the plan.
  llvm::SmallPtrSet<Operation *, 4> uploads;
  // The buffer each name stands for: itself, or the buffer a view views.
  llvm::StringMap<std::string> viewed;
  // Appends the steps of `block`, whose values `names` maps to buffers;
  // calls to functions of the module append the callee's steps.
  std::function<LogicalResult(Block &, DenseMap<Value, std::string> &)>
      appendSteps = [&](Block &block,
                        DenseMap<Value, std::string> &names) -> LogicalResult {
    for (Operation &op : block) {
      if (isa<arith::ConstantOp, gpu::DeallocOp, func::ReturnOp,
              memref::GetGlobalOp>(op) ||
          uploads.contains(&op))
        continue;
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        if (gpu::MemcpyOp upload = findConstantUpload(alloc)) {
          std::string name = "const" + std::to_string(constants++);
          if (failed(addBuffer(plan, alloc.getMemref(), name, kConstantRole,
                               alloc)))
            return failure();
          FailureOr<std::string> data = getGlobalBytes(
              upload.getSrc().getDefiningOp<memref::GetGlobalOp>(), module);
          if (failed(data))
            return failure();
          plan.buffers.back().data = std::move(*data);
          uploads.insert(upload);
          names[alloc.getMemref()] = name;
          continue;
        }
        std::string name = "tmp" + std::to_string(temps++);
        if (failed(addBuffer(plan, alloc.getMemref(), name, "temp", alloc)))
          return failure();
        names[alloc.getMemref()] = name;
        continue;
      }
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op)) {
        // A reshape: the same buffer under another shape.
        auto source = names.find(op.getOperand(0));
        if (source == names.end())
          return op.emitError("cannot express this reshape in a launch plan: "
                              "it reshapes a value that is not a buffer");
        std::string name = "view" + std::to_string(views++);
        if (failed(addBuffer(plan, op.getResult(0), name, kViewRole, &op)))
          return failure();
        auto base = viewed.find(source->second);
        plan.buffers.back().viewOf =
            base == viewed.end() ? source->second : base->second;
        viewed[name] = plan.buffers.back().viewOf;
        names[op.getResult(0)] = name;
        continue;
      }
      if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
        auto from = names.find(copy.getSrc()), to = names.find(copy.getDst());
        if (from == names.end() || to == names.end())
          return copy.emitError("cannot express this copy in a launch plan: it "
                                "copies from or to a value that is not a "
                                "buffer");
        PlanLaunch step;
        step.copyFrom = from->second;
        step.copyTo = to->second;
        plan.launches.push_back(std::move(step));
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() || call.getNumResults())
          return call.emitError("cannot express this call in a launch plan: "
                                "the callee must be a function of the module "
                                "with a body and out-parameters only");
        DenseMap<Value, std::string> calleeNames;
        for (auto [arg, operand] :
             llvm::zip_equal(callee.getArguments(), call.getOperands())) {
          auto it = names.find(operand);
          if (it == names.end())
            return call.emitError("cannot express this call in a launch plan: "
                                  "an operand is not a buffer");
          calleeNames[arg] = it->second;
        }
        if (failed(appendSteps(callee.getBody().front(), calleeNames)))
          return failure();
        continue;
      }
      auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
      if (!launch)
        return op.emitError() << "cannot express '" << op.getName()
                              << "' in a launch plan: the host code must be "
                                 "straight-line allocations, reshapes, "
                                 "copies, launches and calls";
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
        if (*g > kMaxGridSize[i])
          return launch.emitError()
                 << "cannot express this launch in a launch plan: grid["
                 << i << "] = " << *g << " is above CUDA's limit "
                 << kMaxGridSize[i];
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
    return success();
  };
  if (failed(appendSteps(func.getBody().front(), names)))
    return failure();
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
      return emitError(loc)
             << "cannot write '" << path << "': " << ec.message();
    os << contents;
    return success();
  };
  for (const auto &object : plan.objects)
    if (failed(write(object.getKey(), object.getValue())))
      return failure();
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.isConstant() &&
        failed(write(buffer.getDataFileName(), buffer.data)))
      return failure();
  if (!plan.source.empty() && failed(write(kBundleSourceName, plan.source)))
    return failure();
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", toJSON(plan)) << "\n";
  return write("plan.json", json);
}
