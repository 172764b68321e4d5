//===- KernelText.cpp - Pieces of the builtin agent's kernels -------------===//
//
// Signatures, launch plans, vector accesses and index arithmetic, written
// once for every strategy.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"

#include "cuda-agent/Runner/Protocol.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

std::string cuda_agent::builtin::kernelSignature(const LinalgRegion &region,
                                                 StringRef name, int maxThreads,
                                                 bool workspace,
                                                 int minBlocks) {
  std::string bounds =
      maxThreads ? "__launch_bounds__(" + std::to_string(maxThreads) +
                       (minBlocks ? ", " + std::to_string(minBlocks) : "") +
                       ") "
                 : "";
  return ("extern \"C\" __global__ void " + bounds + name + "(" +
          renderParameters(region, workspace) + ")")
      .str();
}

llvm::json::Value cuda_agent::builtin::launchPlan(const Variant &v) {
  llvm::json::Array launches;
  for (const Launch &l : v.launches)
    launches.push_back(llvm::json::Object{
        {"kernel", l.kernel},
        {"grid", llvm::json::Array{l.grid[0], l.grid[1], l.grid[2]}},
        {"block", llvm::json::Array{l.block[0], l.block[1], l.block[2]}},
        {"shared_bytes", l.sharedBytes}});
  llvm::json::Object plan{{"launches", std::move(launches)}};
  if (v.workspaceBytes)
    plan["workspace_bytes"] = v.workspaceBytes;
  if (!v.arch.empty())
    plan[wire::kArch] = v.arch;
  return plan;
}

std::string cuda_agent::builtin::launchJson(const Variant &v) {
  return llvm::formatv("{0}", launchPlan(v)).str();
}

OffsetType cuda_agent::builtin::getOffsetType(const LinalgRegion &region) {
  // Offsets up to twice a tensor's size: a pad's source is addressed at
  // indices outside it before the bounds select.
  constexpr int64_t limit = int64_t(1) << 30;
  auto fits = [&](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.hasStaticShape() && type.getNumElements() < limit;
  };
  bool narrow = llvm::all_of(region.inputs, fits) &&
                llvm::all_of(region.outputs, fits);
  for (linalg::GenericOp g : region.generics)
    narrow = narrow && llvm::all_of(g->getOperands(), fits) &&
             llvm::all_of(g->getResults(), fits);
  for (auto &[padded, pad] : region.pads)
    narrow = narrow && fits(padded);
  return OffsetType{narrow};
}

SmallVector<std::string>
cuda_agent::builtin::delinearize(StringRef linear, ArrayRef<int64_t> shape,
                                 OffsetType offsets) {
  SmallVector<std::string> idx(shape.size());
  int64_t stride = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    std::string q = stride == 1 ? ("(" + linear + ")").str()
                                : ("((" + linear + ") / " +
                                   std::to_string(stride) + offsets.suffix() + ")")
                                      .str();
    idx[i] = i == 0 ? q
                    : "(" + q + " % " + std::to_string(shape[i]) +
                          offsets.suffix().str() + ")";
    stride *= shape[i];
  }
  return idx;
}

std::string cuda_agent::builtin::loadVector(StatementWriter &writer, Type type,
                                            int count, StringRef ptr,
                                            bool stream) {
  std::string vec =
      llvm::formatv("ca_vec<{0}, {1}>", getCType(type)->storage, count).str();
  std::string at = "reinterpret_cast<const " + vec + " *>(" + ptr.str() + ")";
  std::string name = writer.fresh();
  bool sixteen = count * type.getIntOrFloatBitWidth() == 128;
  writer.append("    const " + vec + " " + name + " = " +
                (stream && sixteen ? "ca_load_stream(" + at + ")" : "*" + at) +
                ";\n");
  return name;
}

std::string cuda_agent::builtin::laneOf(Type type, StringRef vector, int lane) {
  return loadAs(type, (vector + ".v[" + Twine(lane) + "]").str());
}

std::string cuda_agent::builtin::storeVector(Type type, StringRef ptr,
                                             ArrayRef<std::string> values) {
  if (values.size() == 1)
    return ("    *(" + ptr + ") = " + storeAs(type, values[0]) + ";\n").str();
  std::string vec =
      llvm::formatv("ca_vec<{0}, {1}>", getCType(type)->storage, values.size())
          .str();
  std::string text = "    {\n      " + vec + " s;\n";
  for (auto [l, value] : llvm::enumerate(values))
    text += "      s.v[" + std::to_string(l) + "] = " + storeAs(type, value) +
            ";\n";
  return text + "      *reinterpret_cast<" + vec + " *>(" + ptr.str() +
         ") = s;\n    }\n";
}

unsigned cuda_agent::builtin::narrowestBytes(const LinalgRegion &region) {
  unsigned narrowest = 4;
  for (Value v : llvm::concat<const Value>(region.inputs, region.outputs))
    if (Type type = elementOf(v);
        type.isIntOrFloat() && type.getIntOrFloatBitWidth() >= 8)
      narrowest = std::min(narrowest, type.getIntOrFloatBitWidth() / 8);
  return narrowest;
}

int cuda_agent::builtin::widestVector(const LinalgRegion &region,
                                      int64_t length) {
  for (int vector = 16 / narrowestBytes(region); vector > 1; vector /= 2)
    if (vector <= 8 && length % vector == 0)
      return vector;
  return 1;
}

std::string cuda_agent::builtin::indent(StringRef text) {
  std::string out;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines)
    if (!line.empty())
      out += "  " + line.str() + "\n";
  return out;
}
