//===- IreeExport.cpp - Verified kernels as IREE dispatches ---------------===//
//
// Writes an outlined module for IREE: a region whose kernel agent-generate
// chose becomes one `hal.dispatch.extern` per launch of its plan, chained
// through tensors (each launch takes the current value of every buffer it
// names and yields new values of those it may write; a view is its buffer's
// value reshaped), with the cubin embedded for sm_90 devices and the PTX for
// others; every other function is printed as it is. The hal ops are written
// as text in the syntax IREE 3.13 parses (inherent attributes in the
// `<{...}>` property form).
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/IreeExport.h"
#include "cuda-agent/Export/KernelAlignment.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Splice/KernelSplicer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The preprocessing spec's file in DIR.
constexpr llvm::StringLiteral kIreeSpecFile = "spec.mlir";

/// IreeRegionExport::Dispatch::offsetTrial's values.
constexpr llvm::StringLiteral kOffsetTrialPassed = "pass";
constexpr llvm::StringLiteral kOffsetTrialNotRun = "not run";

/// The CUDA GPUs the export describes to IREE, by compute capability, with
/// the shared memory one workgroup can opt in to (Ampere's 163 KB, the
/// consumer Ampere and Ada parts' 99 KB, Hopper's 227 KB).
struct IreeChip {
  llvm::StringLiteral chip;
  int64_t workgroupMemoryBytes;
};
constexpr IreeChip kIreeChips[] = {
    {"sm_80", 166912}, {"sm_86", 101376}, {"sm_87", 166912},
    {"sm_89", 101376}, {"sm_90", 232448},
};

/// The compute capability `chip` (`sm_90`, `sm_90a`) names.
std::pair<int, int> computeCapability(StringRef chip) {
  unsigned number = 0;
  chip.consume_front("sm_");
  chip.take_while(llvm::isDigit).getAsInteger(10, number);
  return {static_cast<int>(number / 10), static_cast<int>(number % 10)};
}

/// kIreeChips' entry for `chip`'s compute capability (`sm_90a` is an
/// sm_90), or null.
const IreeChip *findIreeChip(StringRef chip) {
  for (const IreeChip &known : kIreeChips)
    if (computeCapability(known.chip) == computeCapability(chip) &&
        chip.starts_with(known.chip))
      return &known;
  return nullptr;
}

} // namespace

std::optional<std::string> cuda_agent::checkIreeChip(StringRef chip) {
  if (findIreeChip(chip))
    return std::nullopt;
  std::string known;
  llvm::raw_string_ostream os(known);
  llvm::interleave(
      kIreeChips, os, [&](const IreeChip &c) { os << c.chip; }, ", ");
  return ("the IREE export knows the targets of " + known + " GPUs, not '" +
          chip + "'")
      .str();
}

/// IREE's description of a CUDA GPU (its codegen needs one; 3.13 has no
/// `sm_90` by name): the Ampere feature set it knows and the chip's shared
/// memory per workgroup.
std::string cuda_agent::ireeExecutableTarget(StringRef chip) {
  const IreeChip *known = findIreeChip(chip);
  assert(known && "checkIreeChip first");
  return llvm::formatv(
      "#hal.executable.target<\"cuda\", \"cuda-nvptx-fb\", "
      "{iree_codegen.target_info = #iree_gpu.target<arch = \"{0}\", "
      "features = \"+ptx80\", wgp = <compute = "
      "fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, "
      "subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = "
      "[<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, "
      "<NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, "
      "<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], "
      "max_workgroup_sizes = [1024, 1024, 1024], "
      "max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = "
      "{1}, max_workgroup_counts = [2147483647, 65535, 65535]>>}>",
      chip, known->workgroupMemoryBytes);
}

std::string cuda_agent::ireeFlagsFileName(StringRef chip) {
  std::string name = chip.take_front(5).str();
  llvm::erase(name, '_');
  return name + ".flags";
}

int64_t cuda_agent::ireeWorkgroupMemoryBytes(StringRef chip) {
  const IreeChip *known = findIreeChip(chip);
  return known ? known->workgroupMemoryBytes : 0;
}

namespace {

std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// `dense<"0x...">` of `bytes` as an i8 vector, for an executable object.
std::string denseBytes(StringRef bytes) {
  return llvm::formatv("dense<\"0x{0}\"> : vector<{1}xi8>",
                       llvm::toHex(bytes), bytes.size());
}

/// Writes the IREE form of one region function whose kernel is `plan`, or
/// says in `record.reason` why it stays as it is.
class RegionWriter {
public:
  RegionWriter(func::FuncOp func, const LaunchPlan &plan, StringRef chip,
               IreeRegionExport &record, IreeModuleExport &result)
      : func(func), plan(plan), chip(chip), record(record), result(result) {}

  /// The function's text, or std::nullopt with record.reason set.
  std::optional<std::string> write() {
    if (std::optional<std::string> why = unsupported()) {
      record.reason = *why;
      return std::nullopt;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "func.func " << (func.isPrivate() ? "private " : "") << "@"
       << func.getSymName();
    size_t signatureStart = text.size();
    writeSignature(os);
    record.signature = text.substr(signatureStart);
    os << " {\n";
    size_t bodyStart = text.size();
    writeProvenance(os);
    writeBuffers(os);
    for (auto [i, launch] : llvm::enumerate(plan.launches)) {
      if (launch.isCopy()) {
        writeCopy(os, i, launch);
        continue;
      }
      if (!writeDispatch(os, i, launch)) {
        record.dispatches.clear();
        return std::nullopt;
      }
    }
    record.body = text.substr(bodyStart);
    llvm::raw_string_ostream returned(record.returned);
    if (!outputs.empty()) {
      llvm::interleaveComma(outputs, returned, [&](const PlanBuffer *buffer) {
        returned << values.lookup(buffer->name);
      });
      returned << " : ";
      llvm::interleaveComma(func.getResultTypes(), returned,
                            [&](Type type) { returned << type; });
    }
    os << "  return " << record.returned << "\n}\n";
    llvm::append_range(result.cubins, cubins);
    record.exported = true;
    return text;
  }

private:
  /// Why the plan cannot be written as dispatches, if it cannot.
  std::optional<std::string> unsupported() {
    for (const PlanBuffer &buffer : plan.buffers) {
      if (buffer.isView()) {
        const PlanBuffer *base = find(buffer.viewOf);
        if (!base || base->isView() || base->dtype != buffer.dtype ||
            elements(base->shape) != elements(buffer.shape))
          return "its view '" + buffer.name + "' is not '" + buffer.viewOf +
                 "' under another shape";
        continue;
      }
      if (buffer.role == "input")
        inputs.push_back(&buffer);
      else if (buffer.role == "output")
        outputs.push_back(&buffer);
    }
    auto matches = [&](TypeRange types,
                       ArrayRef<const PlanBuffer *> buffers) {
      if (types.size() != buffers.size())
        return false;
      for (auto [type, buffer] : llvm::zip(types, buffers)) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || !tensor.hasStaticShape() ||
            tensor.getShape() != ArrayRef<int64_t>(buffer->shape) ||
            tensor.getElementType() !=
                parseDtypeName(func.getContext(), buffer->dtype))
          return false;
      }
      return true;
    };
    if (!matches(func.getArgumentTypes(), inputs) ||
        !matches(func.getResultTypes(), outputs))
      return std::string("its plan's inputs and outputs are not the "
                         "function's tensor arguments and results");
    for (const PlanLaunch &launch : plan.launches) {
      if (launch.isCopy()) {
        const PlanBuffer *from = find(launch.copyFrom), *to = find(launch.copyTo);
        if (!from || !to || from->shape != to->shape || from->dtype != to->dtype)
          return "its copy from '" + launch.copyFrom + "' to '" +
                 launch.copyTo + "' changes the shape";
        continue;
      }
      llvm::StringSet<> seen;
      bool writes = false;
      for (const std::string &arg : launch.args) {
        const PlanBuffer *buffer = find(arg);
        if (!buffer && arg != "workspace")
          return "kernel '" + launch.kernel + "' names unknown buffer '" +
                 arg + "'";
        if (!seen.insert(storage(arg)).second)
          return "kernel '" + launch.kernel + "' takes buffer '" +
                 storage(arg) + "' twice" +
                 (storage(arg) != arg ? " (as its view '" + arg + "')" : "");
        writes |= !isInput(arg);
      }
      if (!writes)
        return "kernel '" + launch.kernel + "' is given no buffer to write";
      if (!plan.objects.count(launch.object))
        return "its plan has no object '" + launch.object + "'";
      if (launch.sharedBytes > ireeWorkgroupMemoryBytes(chip))
        return llvm::formatv("kernel '{0}' takes {1} bytes of shared memory; "
                             "an {2} workgroup has {3}",
                             launch.kernel, launch.sharedBytes, chip,
                             ireeWorkgroupMemoryBytes(chip))
            .str();
    }
    // The cubin runs on its own chip, its PTX on that chip and newer ones,
    // except an arch-specific kernel's (sm_90a), which runs on its chip only.
    if (computeCapability(cubinChip()) > computeCapability(chip) ||
        (isArchSpecific() &&
         computeCapability(cubinChip()) != computeCapability(chip)))
      return "its kernel is built for " + cubinChip().str() +
             ", which does not run on the export's " + chip.str();
    // The kernel's widest global access must fit IREE's binding alignment.
    alignment = 1;
    for (const PlanBuffer &buffer : plan.buffers)
      if (Type type = parseDtypeName(func.getContext(), buffer.dtype))
        alignment = std::max<int64_t>(alignment,
                                      (type.getIntOrFloatBitWidth() + 7) / 8);
    if (const llvm::json::Value *ptx = plan.extra.get("ptx"))
      if (std::optional<StringRef> text = ptx->getAsString()) {
        ptxText = *text;
        alignment = std::max(alignment, ptxGlobalAccessAlignment(*text));
      }
    if (alignment > kIreeBindingAlignment)
      return llvm::formatv("its kernels need {0}-byte aligned buffers; IREE "
                           "guarantees {1}",
                           alignment, kIreeBindingAlignment)
          .str();
    // What the verifier saw with the buffers where IREE may put them.
    offsetTrial = kOffsetTrialNotRun;
    if (const llvm::json::Object *trial = plan.extra.getObject(wire::kOffsetTrial))
      if (std::optional<bool> ok = trial->getBoolean(wire::kOk)) {
        if (!*ok)
          return llvm::formatv("its kernel failed the verifier's run with "
                               "every buffer at a {0}-byte (not {1}-byte) "
                               "aligned address: {2}",
                               kIreeBindingAlignment, 2 * kIreeBindingAlignment,
                               trial->getString(wire::kReason).value_or("?"))
              .str();
        offsetTrial = kOffsetTrialPassed;
      }
    return std::nullopt;
  }

  const PlanBuffer *find(StringRef name) const {
    for (const PlanBuffer &buffer : plan.buffers)
      if (buffer.name == name)
        return &buffer;
    return nullptr;
  }

  static int64_t elements(ArrayRef<int64_t> shape) {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }

  /// The buffer whose storage `name` is: a view's base, else itself.
  std::string storage(StringRef name) const {
    const PlanBuffer *buffer = find(name);
    return buffer && buffer->isView() ? buffer->viewOf : name.str();
  }

  /// Whether `name` (a buffer or a view of one) is an input of the region.
  bool isInput(StringRef name) const {
    const PlanBuffer *buffer = find(storage(name));
    return buffer && buffer->role == "input";
  }

  /// The tensor type of `name` (a buffer or a view: its own shape).
  std::string typeOf(StringRef name) {
    const PlanBuffer *buffer = find(name);
    if (!buffer || !buffer->isView())
      return types.lookup(name);
    return str(tensorTypeOf(*buffer));
  }

  /// The tensor of `buffer`'s shape and element type.
  RankedTensorType tensorTypeOf(const PlanBuffer &buffer) {
    return RankedTensorType::get(
        buffer.shape, parseDtypeName(func.getContext(), buffer.dtype));
  }

  /// Writes `value` of type `from` reshaped to `to` as `%name` (IREE's
  /// reshape: the same buffer under another shape, no copy) and returns the
  /// new value, or `value` when the types are the same.
  std::string reshape(raw_ostream &os, StringRef name, StringRef value,
                      StringRef from, StringRef to) {
    if (from == to)
      return value.str();
    os << "  %" << name << " = flow.tensor.reshape " << value << " : " << from
       << " -> " << to << "\n";
    return "%" + name.str();
  }

  /// A copy step: its target's storage holds the source's value from now on,
  /// reshaped when either is a view.
  void writeCopy(raw_ostream &os, size_t index, const PlanLaunch &launch) {
    std::string from = storage(launch.copyFrom), to = storage(launch.copyTo);
    std::string name =
        llvm::formatv("{0}_c{1}", func.getSymName(), index).str();
    values[to] = reshape(os, name, values.lookup(from), types.lookup(from),
                         types.lookup(to));
  }

  void writeSignature(raw_ostream &os) {
    os << "(";
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      std::string name = llvm::formatv("%arg{0}", i);
      os << (i ? ", " : "") << name << ": " << type;
      values[inputs[i]->name] = name;
      types[inputs[i]->name] = str(type);
    }
    os << ") -> (";
    llvm::interleaveComma(func.getResultTypes(), os,
                          [&](Type type) { os << type; });
    os << ")";
  }

  /// The line that says where the kernel came from.
  void writeProvenance(raw_ostream &os) {
    auto describe = [&](StringRef key) -> std::string {
      if (const llvm::json::Value *value = plan.extra.get(key)) {
        if (std::optional<StringRef> s = value->getAsString())
          return s->str();
        if (std::optional<double> d = value->getAsNumber())
          return llvm::formatv("{0:F2}", *d).str();
      }
      return "?";
    };
    os << "  // cuda-agent: " << describe("agent") << "/" << describe("model")
       << " kernel, " << describe("speedup")
       << "x faster than MLIR's default lowering, verified on "
       << describe("verified_on") << "; needs " << alignment
       << "-byte aligned buffers.\n";
  }

  /// Outputs start undefined (the kernel writes every element); temporaries
  /// and the workspace start zeroed, as the verifier gave them. Each is its
  /// own `flow.tensor.alloca`, which IREE never folds with another: it
  /// folds equal `tensor.empty`s (even behind barriers) into one value, and
  /// a dispatch's tied results of two outputs of one shape into one buffer.
  /// IREE also turns a fill of a known zero into a splat and folds equal
  /// splats and constants into one: a zeroed buffer that shares its type
  /// with another zeroed buffer or an input of the region (which may be a
  /// constant of zeros) gets its own zero behind a barrier, or the dispatch
  /// would write two temporaries, and an input of zeros, in one buffer. The
  /// others fill with the constant, which keeps the program's command buffer
  /// recorded once (a zero IREE cannot see is a fill recorded per call).
  void writeBuffers(raw_ostream &os) {
    auto allocate = [&](StringRef name, Type type) {
      os << "  %" << name << "_init = flow.tensor.alloca : " << type << "\n";
      return "%" + name.str() + "_init";
    };
    for (const PlanBuffer *buffer : outputs) {
      Type type = tensorTypeOf(*buffer);
      values[buffer->name] = allocate(buffer->name, type);
      types[buffer->name] = str(type);
    }
    SmallVector<std::pair<std::string, RankedTensorType>> zeroedBuffers;
    for (const PlanBuffer &buffer : plan.buffers)
      if (buffer.role == "temp")
        zeroedBuffers.push_back({buffer.name, tensorTypeOf(buffer)});
    if (plan.workspaceBytes > 0)
      zeroedBuffers.push_back(
          {"workspace",
           RankedTensorType::get({plan.workspaceBytes},
                                 IntegerType::get(func.getContext(), 8))});
    for (auto &[name, type] : zeroedBuffers) {
      bool sharesType =
          llvm::is_contained(func.getArgumentTypes(), Type(type)) ||
          llvm::count_if(zeroedBuffers, [&](const auto &other) {
            return other.second == type;
          }) > 1;
      Type element = type.getElementType();
      std::string zero = "%" + name + "_zero";
      std::string constant = sharesType ? zero + "_value" : zero;
      os << "  " << constant << " = arith.constant "
         << (isa<FloatType>(element) ? "0.0" : "0") << " : " << element
         << "\n";
      if (sharesType)
        os << "  " << zero << " = util.optimization_barrier " << constant
           << " : " << element << "\n";
      std::string init = allocate(name, type);
      os << "  %" << name << " = linalg.fill ins(" << zero << " : " << element
         << ") outs(" << init << " : " << type << ") -> " << type << "\n";
      values[name] = "%" + name;
      types[name] = str(type);
    }
  }

  /// Writes the dispatch of `launch`; fails (with record.reason) when two
  /// of its buffers hold the same tensor (a copy made them one value).
  bool writeDispatch(raw_ostream &os, size_t index, const PlanLaunch &launch) {
    std::string id = llvm::formatv("{0}_d{1}", func.getSymName(), index);
    SmallVector<std::string> written;
    llvm::StringSet<> operands;
    for (const std::string &arg : launch.args) {
      if (!isInput(arg))
        written.push_back(arg);
      if (!operands.insert(values[storage(arg)]).second) {
        record.reason = "kernel '" + launch.kernel + "' is given buffer '" +
                        arg + "' and the buffer it was copied from or to";
        return false;
      }
    }
    // A view is its buffer's value reshaped.
    llvm::StringMap<std::string> operand;
    for (const std::string &arg : launch.args)
      operand[arg] = reshape(os, id + "_" + arg, values[storage(arg)],
                             types[storage(arg)], typeOf(arg));
    std::string dispatch = "%" + id;
    os << "  " << dispatch;
    if (written.size() > 1)
      os << ":" << written.size();
    os << " = hal.dispatch.extern \"" << launch.kernel << "\"(";
    llvm::interleaveComma(launch.args, os,
                          [&](const std::string &arg) { os << operand[arg]; });
    os << ") : (";
    llvm::interleaveComma(launch.args, os,
                          [&](const std::string &arg) { os << typeOf(arg); });
    os << ") -> ";
    if (written.size() > 1)
      os << "(";
    llvm::interleaveComma(written, os,
                          [&](const std::string &arg) { os << operand[arg]; });
    if (written.size() > 1)
      os << ")";
    // The grid is the plan's, whatever the device.
    os << "\n      count(%" << id << "_device: !hal.device) -> (index, index, "
       << "index) {\n";
    for (auto [axis, size] : llvm::zip(StringRef("xyz"), launch.grid))
      os << "        %" << id << "_" << axis << " = arith.constant " << size
         << " : index\n";
    os << "        hal.return %" << id << "_x, %" << id << "_y, %" << id
       << "_z : index, index, index\n      }\n";
    // Kernel arguments are the bindings in layout order. Indirect, as in
    // IREE's own dispatches: the bindings may come from a binding table, so
    // IREE records the command buffer once and replays it (memoized) instead
    // of recording it on every call; the kernel's arguments are the same
    // pointers either way.
    os << "      layout(#hal.pipeline.layout<bindings = [";
    llvm::interleaveComma(launch.args, os, [&](const std::string &arg) {
      os << "#hal.pipeline.binding<storage_buffer, "
         << (isInput(arg) ? "\"ReadOnly|Indirect\"" : "Indirect") << ">";
    });
    os << "], flags = Indirect>)\n";
    std::string cubinFile =
        llvm::formatv("{0}.{1}.{2}.cubin", func.getSymName(), index,
                      launch.kernel);
    writeObjects(os, id, launch, cubinFile);
    os << "      <{workgroup_size = [" << launch.block[0] << " : index, "
       << launch.block[1] << " : index, " << launch.block[2] << " : index]";
    if (launch.sharedBytes)
      os << ", workgroup_local_memory = " << launch.sharedBytes << " : index";
    os << "}>\n";
    // A view written is its buffer's new value, reshaped back.
    for (auto [i, arg] : llvm::enumerate(written)) {
      std::string result = written.size() > 1
                               ? llvm::formatv("{0}#{1}", dispatch, i).str()
                               : dispatch;
      values[storage(arg)] =
          reshape(os, id + "_" + arg + "_back", result, typeOf(arg),
                  types[storage(arg)]);
    }

    cubins.push_back({cubinFile, plan.objects.lookup(launch.object)});
    record.dispatches.push_back({launch.kernel, launch.grid, launch.block,
                                 launch.sharedBytes, alignment, cubinFile,
                                 offsetTrial.str()});
    return true;
  }

  /// The cubin for devices of `chip`'s compute capability; the PTX, which
  /// the driver compiles for newer ones, after it, unless the kernel was
  /// built for the arch-specific `chip`a (`sm_90a`), whose PTX runs on no
  /// other chip. The cubin's object also names its file under objects/
  /// (IREE embeds the data, the path is only a name): IREE 3.13 merges
  /// extern executables that differ only in their export's name, so two
  /// kernels of one cubin with the same layout, grid and block (a plan's
  /// pack_a and pack_b) would both launch the first without it.
  void writeObjects(raw_ostream &os, StringRef id, const PlanLaunch &launch,
                    StringRef cubinFile) {
    auto [major, minor] = computeCapability(cubinChip());
    std::string dev = "%" + id.str() + "_cubin_device";
    os << "      objects({\n        " << kIreeTargetAlias << " if(" << dev
       << ": !hal.device) -> i1 {\n";
    auto capability = [&](StringRef name, StringRef key, int expected) {
      std::string value = "%" + id.str() + "_" + name.str();
      os << "          " << value << "_ok, " << value
         << " = hal.device.query<" << dev
         << " : !hal.device> key(\"cuda.device\" :: \"" << key
         << "\") : i1, i32\n";
      os << "          " << value << "_want = arith.constant " << expected
         << " : i32\n";
      os << "          " << value << "_eq = arith.cmpi eq, " << value << ", "
         << value << "_want : i32\n";
      os << "          " << value << "_is = arith.andi " << value << "_ok, "
         << value << "_eq : i1\n";
      return value + "_is";
    };
    std::string isMajor = capability("major", "compute_capability_major", major);
    std::string isMinor = capability("minor", "compute_capability_minor", minor);
    os << "          %" << id << "_is_chip = arith.andi " << isMajor << ", "
       << isMinor << " : i1\n";
    os << "          hal.return %" << id << "_is_chip : i1\n";
    os << "        } ordinal(0) = [#hal.executable.object<{path = \"objects/"
       << cubinFile << "\", data = "
       << denseBytes(plan.objects.lookup(launch.object)) << "}>]";
    // An arch-specific kernel (plan chip sm_90a: wgmma) has no PTX a newer
    // chip could JIT: its cubin is the only object.
    if (!ptxText.empty() && !isArchSpecific()) {
      // cuModuleLoadData takes PTX as a C string.
      std::string ptx = ptxText.str();
      ptx.push_back('\0');
      os << ",\n        " << kIreeTargetAlias
         << " ordinal(0) = [#hal.executable.object<{data = "
         << denseBytes(ptx) << "}>]";
    }
    os << "\n      })\n";
  }

  /// The chip the plan's cubins are built for (the export's when the plan
  /// does not say).
  StringRef cubinChip() const {
    return plan.chip.empty() ? chip : StringRef(plan.chip);
  }
  /// Whether the cubins use an arch-specific feature set (`sm_90a`).
  bool isArchSpecific() const { return cubinChip().ends_with("a"); }

  func::FuncOp func;
  const LaunchPlan &plan;
  StringRef chip;
  IreeRegionExport &record;
  IreeModuleExport &result;
  SmallVector<const PlanBuffer *> inputs, outputs;
  /// The cubins of the dispatches written, by file name.
  std::vector<std::pair<std::string, std::string>> cubins;
  /// The SSA value holding each buffer now, and its tensor type.
  llvm::StringMap<std::string> values, types;
  int64_t alignment = 1;
  StringRef offsetTrial;
  StringRef ptxText;
};

/// The module's name: its symbol, else its file's stem, else "module".
std::string moduleName(ModuleOp module) {
  if (std::optional<StringRef> name = module.getSymName())
    return name->str();
  if (auto file = dyn_cast<FileLineColLoc>(module.getLoc()))
    if (!file.getFilename().getValue().empty() &&
        file.getFilename().getValue() != "-")
      return llvm::sys::path::stem(file.getFilename().getValue()).str();
  return "module";
}

/// Removes the flow's own discardable attributes (`cuda_agent.*`).
void dropOwnAttributes(Operation *op) {
  for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
    if (attr.getName().getValue().starts_with("cuda_agent."))
      op->removeDiscardableAttr(attr.getName());
}

/// Writes the `dense_resource` constants in `op` (torch-mlir's weights) as
/// `dense` ones: the module is printed one function at a time, and a
/// function's text does not carry the module's resource section, without
/// which IREE finds no data ("resource does not exist"). Resources of a type
/// whose elements are not whole bytes stay as they are.
void inlineResourceConstants(Operation *op) {
  op->walk([](Operation *inner) {
    for (NamedAttribute attr : llvm::to_vector(inner->getAttrs())) {
      auto resource = dyn_cast<DenseResourceElementsAttr>(attr.getValue());
      if (!resource)
        continue;
      ShapedType type = resource.getType();
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob || !type.getElementType().isIntOrFloat() ||
          type.getElementType().getIntOrFloatBitWidth() % 8 != 0)
        continue;
      inner->setAttr(attr.getName(),
                     DenseElementsAttr::getFromRawBuffer(type, blob->getData()));
    }
  });
}

} // namespace

void cuda_agent::generalizeElementwiseOps(Operation *op) {
  SmallVector<linalg::LinalgOp> named;
  op->walk([&](linalg::LinalgOp linalgOp) {
    if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp,
             linalg::TransposeOp, linalg::BroadcastOp>(linalgOp) &&
        linalg::isElementwise(linalgOp))
      named.push_back(linalgOp);
  });
  IRRewriter rewriter(op->getContext());
  for (linalg::LinalgOp linalgOp : named) {
    rewriter.setInsertionPoint(linalgOp);
    (void)linalg::generalizeNamedOp(rewriter, linalgOp);
  }
}

std::string cuda_agent::ireeTargetFlags(StringRef chip) {
  return "'--iree-hal-target-device=#hal.device.target<\"cuda\", [" +
         ireeExecutableTarget(chip) + "]> : !hal.device'\n";
}

FailureOr<IreeModuleExport> cuda_agent::buildIreeModule(ModuleOp module,
                                                        StringRef chip) {
  if (std::optional<std::string> why = checkIreeChip(chip))
    return emitError(module.getLoc()) << *why;
  IreeModuleExport result;
  result.name = moduleName(module);
  std::string &text = result.text;
  llvm::raw_string_ostream os(text);
  os << "// " << result.name
     << " for IREE: the regions with verified kernels dispatch them "
        "(hal.dispatch.extern,\n// cubins embedded), the others are "
        "compiled by IREE. Written by cuda-agent-opt.\n";
  os << kIreeTargetAlias << " = " << ireeExecutableTarget(chip) << "\n\n";

  // Work on a copy so that the caller's module keeps its attributes.
  OwningOpRef<ModuleOp> copy(module.clone());
  for (Operation &op : copy->getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(op);
    std::optional<std::string> replaced;
    if (func && func->hasAttr(kRegionAttrName)) {
      IreeRegionExport record;
      record.function = func.getSymName().str();
      if (auto region = func->getAttrOfType<DictionaryAttr>(kRegionAttrName))
        if (auto hash = region.getAs<StringAttr>("hash"))
          record.hash = hash.getValue().str();
      if (!func->hasAttr(kKernelAttrName)) {
        record.reason = "no verified kernel: IREE compiles the region";
      } else {
        FailureOr<LaunchPlan> plan = readAttachedKernel(func);
        if (failed(plan))
          return failure();
        replaced = RegionWriter(func, *plan, chip, record, result).write();
      }
      result.regions.push_back(std::move(record));
    }
    if (replaced) {
      os << *replaced << "\n";
      continue;
    }
    dropOwnAttributes(&op);
    generalizeElementwiseOps(&op);
    inlineResourceConstants(&op);
    op.print(os, OpPrintingFlags());
    os << "\n\n";
  }
  return result;
}

LogicalResult cuda_agent::exportForIree(ModuleOp module, StringRef dir,
                                        StringRef chip, ModuleOp input) {
  FailureOr<IreeModuleExport> exported = buildIreeModule(module, chip);
  if (failed(exported))
    return failure();
  Location loc = module.getLoc();
  SmallString<256> objects(dir);
  llvm::sys::path::append(objects, "objects");
  if (std::error_code ec = llvm::sys::fs::create_directories(objects))
    return emitError(loc) << "cannot create '" << objects
                          << "': " << ec.message();
  auto write = [&](const Twine &file, StringRef contents) -> LogicalResult {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, file);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return emitError(loc) << "cannot write '" << path
                            << "': " << ec.message();
    os << contents;
    return success();
  };
  std::string flagsFile = ireeFlagsFileName(chip);
  std::string mlirFile = exported->name + ".iree.mlir";
  FailureOr<std::string> spec = buildIreeSpec(module, *exported, chip, input);
  if (failed(spec) || failed(write(mlirFile, exported->text)) ||
      failed(write(flagsFile, ireeTargetFlags(chip))) ||
      failed(write(kIreeSpecFile, *spec)))
    return failure();
  for (const auto &[file, bytes] : exported->cubins)
    if (failed(write("objects/" + file, bytes)))
      return failure();

  // What was exported, for people and scripts.
  llvm::json::Array regions;
  std::string summary, specSummary;
  llvm::raw_string_ostream lines(summary), specLines(specSummary);
  for (const IreeRegionExport &region : exported->regions) {
    llvm::json::Array dispatches;
    for (const IreeRegionExport::Dispatch &dispatch : region.dispatches)
      dispatches.push_back(llvm::json::Object{
          {"kernel", dispatch.kernel},
          {"grid", llvm::json::Array(dispatch.grid)},
          {"block", llvm::json::Array(dispatch.block)},
          {"shared_bytes", dispatch.sharedBytes},
          {"alignment", dispatch.alignment},
          {"offset_trial", dispatch.offsetTrial},
          {"cubin", "objects/" + dispatch.cubinFile}});
    llvm::json::Object entry{{"function", region.function},
                             {"hash", region.hash},
                             {"exported", region.exported},
                             {"dispatches", std::move(dispatches)}};
    if (!region.exported)
      entry["reason"] = region.reason;
    entry["spec"] = region.specReason.empty() ? "matched" : region.specReason;
    regions.push_back(std::move(entry));
    lines << "- @" << region.function << ": ";
    if (region.exported) {
      lines << region.dispatches.size() << " dispatch(es) of its verified "
            << "kernel (";
      llvm::interleaveComma(region.dispatches, lines, [&](const auto &d) {
        lines << d.kernel << ", " << d.alignment << "-byte alignment, "
              << (d.offsetTrial == kOffsetTrialPassed ? "verified" : "not verified")
              << " at " << kIreeBindingAlignment << "-byte offsets";
      });
      lines << ")\n";
    } else {
      lines << "linalg, compiled by IREE (" << region.reason << ")\n";
    }
    if (region.exported)
      specLines << "- @" << region.function << ": "
                << (region.specReason.empty() ? "matched"
                                              : "not matched: " + region.specReason)
                << "\n";
  }
  std::string manifest;
  llvm::raw_string_ostream json(manifest);
  json << llvm::formatv(
              "{0:2}",
              llvm::json::Value(llvm::json::Object{
                  {"module", exported->name},
                  {"chip", chip},
                  {"iree_binding_alignment", kIreeBindingAlignment},
                  {"regions", std::move(regions)}}))
       << "\n";
  if (failed(write(exported->name + ".iree.json", manifest)))
    return failure();

  std::string readme = llvm::formatv(
      "{0} for IREE (written by cuda-agent-opt's IREE export)\n\n"
      "Compile for CUDA (IREE 3.13: pip install iree-base-compiler==3.13.0):\n\n"
      "  iree-compile {1} @{2} -o {0}.vmfb\n\n"
      "Run on a GPU (pip install iree-base-runtime==3.13.0):\n\n"
      "  iree-run-module --device=cuda --module={0}.vmfb "
      "--function=<public function> --input=@<input>.npy ...\n\n"
      "Add --cuda_async_allocations=false --device_allocator=caching to reuse "
      "the outputs'\nbuffers across calls: with IREE 3.13's default "
      "allocations a fresh output costs\nmore than a memory-bound kernel.\n\n"
      "Regions:\n{3}\n"
      "The kernels' buffers must be aligned as listed; IREE aligns every "
      "binding to {4} bytes.\nobjects/ holds the embedded cubins; {0}.iree.json "
      "lists the dispatches.\n\n"
      "Or compile your own module (the one given to cuda-agent-opt, in IREE's "
      "dialects) with\nthe preprocessing spec, which replaces the matched "
      "regions with the same dispatches:\n\n"
      "  iree-compile YOUR_MODULE.mlir @{2} "
      "--iree-preprocessing-transform-spec-filename={5} -o {0}.vmfb\n\n"
      "Exported regions in the spec:\n{6}",
      exported->name, mlirFile, flagsFile, summary, kIreeBindingAlignment,
      kIreeSpecFile, specSummary);
  return write("README", readme);
}
