//===- Elementwise.cpp - A flat grid over elementwise outputs -------------===//
//
// Elementwise and broadcast chains of any rank (casts included): a flat grid
// over the outputs, each thread a chunk of `vector` consecutive elements,
// read and written with one aligned vector access per operand where the
// innermost dimension allows (16 bytes of the narrowest type), else one
// element at a time. A `tensor.pad` of an input is read with bounds (the
// ElementEvaluator's), one element at a time where the padded dimension is
// the innermost. A tensor assembled from parts (a concatenation, an
// insert_slice: LinalgRegion::assemblies), an output or read by the
// region's ops at the element written, is a branch each on its parts'
// boxes, each part read or computed at the index less its offset.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "cuda-agent/Outline/Assemblies.h"
#include "KernelText.h"
#include "Strategy.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

/// All generics parallel and all outputs of one shape: the elementwise class.
bool cuda_agent::builtin::isElementwise(const LinalgRegion &region) {
  if (llvm::any_of(region.generics, isReduction))
    return false;
  ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
  return llvm::all_of(region.outputs,
                      [&](Value out) { return shapeOf(out) == shape; });
}

namespace {

FailureOr<Variant> writeFlat(const LinalgRegion &region, int vector,
                             int threads, std::string &why) {
  ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
  int64_t total = product(shape);
  int rank = shape.size();
  std::string body;
  unsigned counter = 0;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  // The vector loads of this chunk, by input and index: one input read at two
  // places (x[i, k] and x[j, k]) is two loads.
  llvm::StringMap<std::string> vectors;
  // The innermost index of the element this lane reads at, and lane 0's,
  // as a part of an assembled output reads them (less the part's offset).
  std::string lastDim, firstDim;
  int lane = 0;
  eval.setInputReader([&](unsigned i, ArrayRef<std::string> idx) -> std::string {
    Value in = region.inputs[i];
    // A pad's bounded index (`inside ? i : 0`) names a value bound per lane:
    // such reads go one element at a time.
    bool bounded = llvm::any_of(
        idx, [](const std::string &index) { return index.find('?') != std::string::npos; });
    bool contiguous = vector > 1 && rank > 0 && !idx.empty() && !bounded &&
                      idx.back() == lastDim &&
                      shapeOf(in).back() % vector == 0;
    if (!contiguous)
      return eval.loadAt(i, idx);
    // Lane 0 loads every lane with one aligned access.
    SmallVector<std::string> idx0(idx);
    idx0.back() = firstDim;
    std::string at =
        "in" + std::to_string(i) + " + " + linearize(idx0, shapeOf(in));
    if (lane == 0 && !vectors.count(at))
      vectors[at] = loadVector(writer, elementOf(in), vector, at);
    return laneOf(elementOf(in), vectors.lookup(at), lane);
  });

  std::string kernel = "ew";
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, kernel) + " {\n";
  int64_t chunks = total / vector;
  src += llvm::formatv("  for (long long chunk = blockIdx.x * (long long)"
                       "blockDim.x + threadIdx.x; chunk < {0}LL; chunk += "
                       "(long long)gridDim.x * blockDim.x) {{\n"
                       "    const long long base = chunk * {1};\n",
                       chunks, vector)
             .str();
  SmallVector<std::string> idx = delinearize("base", shape);
  for (int d = 0; d < rank; ++d)
    src += "    const long long i" + std::to_string(d) + " = " + idx[d] + ";\n";
  // Tensors assembled from parts (Assemblies.h), outputs or read at the
  // element written: one section per part, the first part whose box holds
  // the element.
  std::optional<SmallVector<AssemblyPart>> parts;
  for (Operation *assembly : region.assemblies) {
    if (assembly->getResult(0).getType() != region.outputs.front().getType()) {
      why = "an assembled tensor of another shape than the outputs";
      return failure();
    }
    SmallVector<AssemblyPart> these = getAssemblyParts(assembly);
    auto sameBox = [](const AssemblyPart &a, const AssemblyPart &b) {
      return a.offsets == b.offsets && a.sizes == b.sizes;
    };
    if (parts && !llvm::equal(*parts, these, sameBox)) {
      why = "tensors assembled from parts of different boxes";
      return failure();
    }
    parts = std::move(these);
  }
  // A vector's lanes are in one part.
  if (parts && rank > 0 && llvm::any_of(*parts, [&](const AssemblyPart &p) {
        return p.offsets.back() % vector != 0 ||
               (p.offsets.back() + p.sizes.back()) % vector != 0;
      })) {
    why = "parts of an assembled output whose innermost bounds are not "
          "multiples of the vector";
    return failure();
  }
  int64_t sections = parts ? static_cast<int64_t>(parts->size()) : 1;
  for (int64_t section = 0; section < sections; ++section) {
    body.clear();
    vectors.clear();
    for (Operation *assembly : region.assemblies)
      eval.partOf[assembly->getResult(0)] = section;
    SmallVector<SmallVector<std::string>> values(region.outputs.size());
    for (lane = 0; lane < vector; ++lane) {
      SmallVector<std::string> at;
      for (int d = 0; d < rank; ++d)
        at.push_back("(i" + std::to_string(d) + ")");
      if (rank > 0 && lane > 0)
        at.back() = "(i" + std::to_string(rank - 1) + " + " +
                    std::to_string(lane) + ")";
      // The part's offset, as the evaluator subtracts it (valueAt).
      int64_t offset = parts ? (*parts)[section].offsets.back() : 0;
      lastDim = rank > 0 ? indexInPart(at.back(), offset) : "";
      firstDim = rank > 0 ? indexInPart("(i" + std::to_string(rank - 1) + ")",
                                        offset)
                          : "";
      eval.forget();
      eval.writtenAt = at;
      for (auto [o, out] : llvm::enumerate(region.outputs)) {
        FailureOr<std::string> v = eval.valueAt(out, at, why);
        if (failed(v))
          return failure();
        values[o].push_back(*v);
      }
    }
    for (auto [o, out] : llvm::enumerate(region.outputs)) {
      Type type = elementOf(out);
      body += storeVector(type, "out" + std::to_string(o) + " + base",
                          values[o]);
    }
    if (parts && section + 1 < sections) {
      // The part's box, where it is not the whole dimension.
      const AssemblyPart &part = (*parts)[section];
      SmallVector<std::string> inside;
      for (int d = 0; d < rank; ++d) {
        int64_t end = part.offsets[d] + part.sizes[d];
        if (part.offsets[d] > 0)
          inside.push_back(llvm::formatv("i{0} >= {1}", d, part.offsets[d]));
        if (end < shape[d])
          inside.push_back(llvm::formatv("i{0} < {1}", d, end));
      }
      src += llvm::formatv("    {0}if ({1}) {{\n{2}    }\n",
                           section ? "else " : "",
                           inside.empty() ? "true" : llvm::join(inside, " && "),
                           indent(body))
                 .str();
    } else if (parts)
      src += "    else {\n" + indent(body) + "    }\n";
    else
      src += body;
  }
  src += "  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((chunks + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("flat-v{0}-t{1}", vector, threads).str(),
                 src,
                 {{kernel, {blocks, 1, 1}, {threads, 1, 1}}}};
}

/// The elementwise class: flat grids, vectorized where the innermost
/// dimension allows.
class ElementwiseStrategy final : public Strategy {
public:
  StringRef getName() const override { return "elementwise"; }

  bool readsPads() const override { return true; }

  bool readsAssemblies() const override { return true; }

  bool match(const LinalgRegion &region, std::string &) const override {
    return isElementwise(region);
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &,
                   Precision, VariantList &list) const override {
    std::string reason;
    ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
    int vector = shape.empty() ? 1 : widestVector(region, shape.back());
    if (vector > 1) {
      list.add(writeFlat(region, vector, 256, reason), reason);
      list.add(writeFlat(region, vector, 512, reason), reason);
    }
    list.add(writeFlat(region, 1, 256, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getElementwiseStrategy() {
  static const ElementwiseStrategy strategy;
  return strategy;
}
