//===- Transpose.cpp - Elementwise regions with one transposed input ------===//
//
// An elementwise region that reads one rank-2 input transposed: 32x32 (or
// 64x64) tiles of the output through shared memory, the input read along its
// rows and the output written along its rows, both coalesced; the tile rows
// are padded by one element so that neither phase has bank conflicts.
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

/// The one rank-2 input read transposed ((d0, d1) -> (d1, d0)) by a generic
/// over the outputs' shape, if there is exactly one.
std::optional<unsigned> findTransposedInput(const LinalgRegion &region) {
  if (shapeOf(region.outputs.front()).size() != 2)
    return std::nullopt;
  std::optional<unsigned> found;
  for (linalg::GenericOp generic : region.generics)
    for (OpOperand *operand : generic.getDpsInputOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand->get());
      AffineMap map = generic.getMatchingIndexingMap(operand);
      if (!arg || map.getNumDims() != 2 || !map.isPermutation() ||
          map.isIdentity())
        continue;
      if (found && *found != arg.getArgNumber())
        return std::nullopt;
      found = arg.getArgNumber();
    }
  return found;
}

/// A tile x tile block of the output through shared memory: the transposed
/// input read along its rows, the output written along its rows, `vector`
/// consecutive elements per access (the block is 32/vector x rowsPerPass
/// threads; each covers tile/32 vectors per tile row).
FailureOr<Variant> writeTransposeTile(const LinalgRegion &region,
                                      unsigned transposed, int tile,
                                      int rowsPerPass, int vector,
                                      std::string &why) {
  ArrayRef<int64_t> shape = shapeOf(region.outputs.front()); // [D0, D1]
  // 32-bit coordinates and offsets when every offset fits (fewer
  // instructions per access).
  bool narrow = product(shape) < (int64_t(1) << 31);
  std::string wide = narrow ? "" : "LL";
  Value tin = region.inputs[transposed];
  Type ttype = elementOf(tin);
  std::string body;
  unsigned counter = 0;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  SmallVector<std::string> d1s;
  for (int v = 0; v < vector; ++v)
    d1s.push_back(v ? "(d1 + " + std::to_string(v) + ")" : "(d1)");
  int lane = 0;
  eval.setInputReader([&](unsigned i, ArrayRef<std::string> idx) -> std::string {
    if (i == transposed && idx.size() == 2 && idx[0] == d1s[lane] &&
        idx[1] == "(d0)")
      return "tile[l + " + std::to_string(lane) + "][k]";
    return eval.loadAt(i, idx);
  });
  SmallVector<SmallVector<std::string>> values(region.outputs.size());
  for (lane = 0; lane < vector; ++lane) {
    eval.forget();
    for (auto [o, out] : llvm::enumerate(region.outputs)) {
      FailureOr<std::string> v = eval.valueAt(out, {"(d0)", d1s[lane]}, why);
      if (failed(v))
        return failure();
      values[o].push_back(*v);
    }
  }
  std::string kernel = "transpose_tile";
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, kernel) + " {\n";
  // The block reads a tile of the input along its rows (d0 of the output,
  // coalesced), then writes the output along its rows (d1, coalesced). With
  // the tile row padded by one element, a warp's accesses to the tile fall
  // in distinct banks in both phases (lanes x vector elements cover 32
  // consecutive columns, rows add one bank each).
  std::string loadBody;
  {
    StatementWriter loads(loadBody, counter);
    std::string vec =
        loadVector(loads, ttype, vector,
                   "in" + std::to_string(transposed) + " + j * " +
                       std::to_string(shape[0]) + wide + " + r0 + l");
    for (int v = 0; v < vector; ++v)
      loads.append(llvm::formatv("    tile[k][l + {0}] = {1};\n", v,
                                 laneOf(ttype, vec, v))
                       .str());
  }
  int threadsX = 32 / vector;
  src += llvm::formatv(
             "  __shared__ {0} tile[{1}][{1} + 1];\n"
             "  const {7} r0 = blockIdx.y * {1}, c0 = blockIdx.x * {1};\n"
             "#pragma unroll\n"
             "  for (int k = threadIdx.y; k < {1}; k += {2})\n"
             "#pragma unroll\n"
             "    for (int l = threadIdx.x * {3}; l < {1}; l += 32) {{\n"
             "    const {7} j = c0 + k;\n"
             "    if (j >= {5} || r0 + l >= {4})\n"
             "      continue;\n{6}"
             "  }\n"
             "  __syncthreads();\n"
             "#pragma unroll\n"
             "  for (int k = threadIdx.y; k < {1}; k += {2})\n"
             "#pragma unroll\n"
             "    for (int l = threadIdx.x * {3}; l < {1}; l += 32) {{\n"
             "    const {7} d0 = r0 + k, d1 = c0 + l;\n"
             "    if (d0 >= {4} || d1 >= {5})\n"
             "      continue;\n",
             getCType(ttype)->compute, tile, rowsPerPass, vector, shape[0],
             shape[1], loadBody, narrow ? "int" : "long long")
             .str();
  src += body;
  for (auto [o, out] : llvm::enumerate(region.outputs))
    src += storeVector(elementOf(out),
                       "out" + std::to_string(o) + " + d0 * " +
                           std::to_string(shape[1]) + wide + " + d1",
                       values[o]);
  src += "  }\n}\n";
  return Variant{
      llvm::formatv("tile{0}-r{1}-v{2}", tile, rowsPerPass, vector).str(),
      src,
      {{kernel,
        {(shape[1] + tile - 1) / tile, (shape[0] + tile - 1) / tile, 1},
        {threadsX, rowsPerPass, 1}}}};
}

/// Elementwise regions with one transposed input: shared-memory tiles.
class TransposeStrategy final : public Strategy {
public:
  StringRef getName() const override { return "transpose"; }

  bool match(const LinalgRegion &region, std::string &) const override {
    return isElementwise(region) && findTransposedInput(region);
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &,
                   Precision, VariantList &list) const override {
    std::string reason;
    unsigned t = *findTransposedInput(region);
    auto add = [&](int tile, int rowsPerPass, int vector) {
      list.add(writeTransposeTile(region, t, tile, rowsPerPass, vector, reason),
               reason);
    };
    ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
    // Vector accesses need whole vectors along both dimensions.
    if (shape[0] % 4 == 0 && shape[1] % 4 == 0) {
      add(32, 8, 4);
      add(32, 4, 4);
      add(64, 8, 4);
      add(32, 16, 4);
      add(64, 16, 4);
    }
    add(64, 8, 1);
    add(32, 8, 1);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getTransposeStrategy() {
  static const TransposeStrategy strategy;
  return strategy;
}
