//===- BuiltinAgent.cpp - Kernels written from the region's structure -----===//
//
// The embedded default agent. It parses the task's region, reads its linalg
// ops (named ops generalized first) and writes CUDA kernels from their
// indexing maps, iterator types and bodies; nothing here knows a particular
// test case. Part 1 covers memory-bound regions:
//
//  - elementwise and broadcast chains of any rank (casts included): a flat
//    grid over the outputs, four elements per thread with 16-byte loads and
//    stores where the innermost dimension allows, else one;
//  - the same with one rank-2 transposed input: 32x32 tiles through shared
//    memory (padded rows, no bank conflicts);
//  - row programs (the `rows` regions): reductions over trailing dimensions
//    with any elementwise producers and consumers over the same rows
//    (softmax, layernorm, row sums): a warp or a block per row, the row's
//    inputs kept in registers when they fit, warp shuffles and a block
//    reduction, one read of the row and one write;
//  - any single reduction: one thread per output element looping over the
//    reduced dimensions in the reference's order (coalesced for reductions
//    over outer dimensions).
//
// Each region gets several variants (threads, elements per thread, threads
// per row); the closed loop's timing picks. Contractions and convolutions
// are not in part 1: their regions get no candidate, with the reason.
//
//===----------------------------------------------------------------------===//

#include "CudaExpr.h"
#include "RegionModule.h"
#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/Agents/Prompt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The region as the builtin agent sees it.
struct LinalgRegion {
  func::FuncOp func;
  SmallVector<Value> inputs, outputs;
  SmallVector<linalg::GenericOp> generics;
  /// Tensors that hold one value everywhere (fills, splat constants): the
  /// value as a C literal of the compute type.
  llvm::DenseMap<Value, std::string> splats;
  /// Scalar constants of the function body.
  llvm::DenseMap<Value, std::string> scalars;
};

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

bool isReduction(linalg::GenericOp g) { return g.getNumReductionLoops() > 0; }

/// Reads the region's top-level ops; fails with the reason otherwise.
LogicalResult readRegion(func::FuncOp func, LinalgRegion &region,
                         std::string &why, bool allowContractions = false) {
  region.func = func;
  IRRewriter rewriter(func.getContext());
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::FillOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    if (!allowContractions &&
        (isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(
             op.getOperation()) ||
         linalg::isaContractionOpInterface(op))) {
      why = "contractions and convolutions are not in the builtin agent's "
            "part 1 (memory-bound regions)";
      return failure();
    }
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op))) {
      why = "cannot generalize '" + op->getName().getStringRef().str() + "'";
      return failure();
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !getCType(type.getElementType())) {
      why = "argument type is not a static tensor of a handled element type";
      return failure();
    }
    region.inputs.push_back(arg);
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<tensor::EmptyOp>(op))
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Attribute value = constant.getValue();
      if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
        if (!dense.isSplat()) {
          why = "non-splat tensor constants are not handled";
          return failure();
        }
        value = dense.getSplatValue<Attribute>();
      }
      std::optional<std::string> literal = spellLiteral(value);
      if (!literal) {
        why = "a constant the builtin agent cannot spell";
        return failure();
      }
      if (isa<ShapedType>(constant.getType()))
        region.splats[constant] = *literal;
      else
        region.scalars[constant] = *literal;
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      auto it = region.scalars.find(fill.getInputs()[0]);
      if (it == region.scalars.end()) {
        why = "a fill whose value is not a constant";
        return failure();
      }
      region.splats[fill.getResult(0)] = it->second;
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (!generic.hasPureTensorSemantics()) {
        why = "a linalg.generic on buffers";
        return failure();
      }
      for (Value result : generic.getResults())
        if (!getCType(elementOf(result))) {
          why = "a result element type the builtin agent does not handle";
          return failure();
        }
      region.generics.push_back(generic);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      region.outputs.assign(ret.getOperands().begin(), ret.getOperands().end());
      continue;
    }
    why = "'" + op.getName().getStringRef().str() + "' is not handled";
    return failure();
  }
  for (Value out : region.outputs)
    if (!out.getDefiningOp<linalg::GenericOp>()) {
      why = "a region output that no linalg.generic computes";
      return failure();
    }
  if (region.generics.empty()) {
    why = "no computation";
    return failure();
  }
  return success();
}

std::string join(ArrayRef<std::string> parts, StringRef sep = ", ") {
  return llvm::join(parts.begin(), parts.end(), sep);
}

/// Row-major offset of `idx` in a tensor of `shape`.
std::string linearize(ArrayRef<std::string> idx, ArrayRef<int64_t> shape) {
  if (idx.empty())
    return "0";
  std::string offset = "(long long)(" + idx[0] + ")";
  for (size_t i = 1; i < idx.size(); ++i)
    offset = "(" + offset + " * " + std::to_string(shape[i]) + " + (" + idx[i] +
             "))";
  return offset;
}

/// Index strings of the row-major position `linear` in `shape`.
SmallVector<std::string> delinearize(StringRef linear,
                                     ArrayRef<int64_t> shape) {
  SmallVector<std::string> idx(shape.size());
  int64_t stride = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    std::string q =
        stride == 1
            ? ("(" + linear + ")").str()
            : ("((" + linear + ") / " + std::to_string(stride) + "LL)").str();
    idx[i] = i == 0 ? q : "(" + q + " % " + std::to_string(shape[i]) + "LL)";
    stride *= shape[i];
  }
  return idx;
}

/// Values of the region's tensors at an element, written as statements:
/// producers are inlined through their indexing maps, inputs are read by the
/// kernel's `loadInput`, and values a row kernel already reduced come from
/// `known`.
class ElementEvaluator {
public:
  ElementEvaluator(const LinalgRegion &region, StatementWriter &writer)
      : region(region), writer(writer) {}

  std::function<std::string(unsigned input, ArrayRef<std::string> idx)>
      loadInput;
  llvm::DenseMap<Value, std::string> known;
  /// Values of whole tensors known at one element only: (indices, name).
  llvm::DenseMap<Value, std::pair<SmallVector<std::string>, std::string>>
      knownAt;

  void forget() { memo.clear(); }
  StatementWriter &getWriter() { return writer; }

  /// Reads input `i` at element `offset` into a fresh value of its compute
  /// type.
  std::string loadElement(unsigned i, StringRef offset) {
    Type type = elementOf(region.inputs[i]);
    return writer.bind(
        getCType(type)->compute,
        loadAs(type, ("in" + Twine(i) + "[" + offset + "]").str()));
  }

  /// Reads input `i` at its indices `idx`.
  std::string loadAt(unsigned i, ArrayRef<std::string> idx) {
    return loadElement(i, linearize(idx, shapeOf(region.inputs[i])));
  }

  FailureOr<std::string> valueAt(Value tensor, ArrayRef<std::string> idx,
                                 std::string &why) {
    if (auto it = known.find(tensor); it != known.end())
      return it->second;
    if (auto it = knownAt.find(tensor);
        it != knownAt.end() && ArrayRef<std::string>(it->second.first) == idx)
      return it->second.second;
    if (auto it = region.splats.find(tensor); it != region.splats.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(tensor))
      return loadInput(arg.getArgNumber(), idx);
    auto generic = tensor.getDefiningOp<linalg::GenericOp>();
    if (!generic || isReduction(generic)) {
      why = "a reduced value is read at an element outside its row";
      return failure();
    }
    unsigned resultNumber = cast<OpResult>(tensor).getResultNumber();
    AffineMap outMap =
        generic.getIndexingMapMatchingResult(cast<OpResult>(tensor));
    if (!outMap.isPermutation()) {
      why = "an output indexing map that is not a permutation";
      return failure();
    }
    SmallVector<std::string> dims(outMap.getNumDims());
    for (unsigned i = 0; i < outMap.getNumResults(); ++i)
      dims[outMap.getDimPosition(i)] = idx[i];
    FailureOr<SmallVector<std::string>> results = evaluate(generic, dims, why);
    if (failed(results))
      return failure();
    return (*results)[resultNumber];
  }

  /// The operand indices of `map` applied to loop indices `dims`.
  static FailureOr<SmallVector<std::string>>
  apply(AffineMap map, ArrayRef<std::string> dims, std::string &why) {
    SmallVector<std::string> idx;
    for (AffineExpr e : map.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        idx.push_back(dims[d.getPosition()]);
      else if (auto c = dyn_cast<AffineConstantExpr>(e))
        idx.push_back(std::to_string(c.getValue()));
      else {
        why = "an indexing map that is not a projected permutation";
        return failure();
      }
    }
    return idx;
  }

  /// Binds the block arguments of `generic` at loop indices `dims` (all but
  /// `skipArg`) into `names`.
  LogicalResult bindOperands(linalg::GenericOp generic,
                             ArrayRef<std::string> dims,
                             llvm::DenseMap<Value, std::string> &names,
                             std::string &why, Value skipArg = {}) {
    Block &body = generic.getRegion().front();
    for (OpOperand &operand : generic->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg == skipArg || arg.use_empty())
        continue;
      FailureOr<SmallVector<std::string>> idx =
          apply(generic.getMatchingIndexingMap(&operand), dims, why);
      if (failed(idx))
        return failure();
      FailureOr<std::string> value = valueAt(operand.get(), *idx, why);
      if (failed(value))
        return failure();
      names[arg] = *value;
    }
    // Constants from outside the body.
    for (auto &[value, literal] : region.scalars)
      names[value] = literal;
    return success();
  }

  FailureOr<SmallVector<std::string>> evaluate(linalg::GenericOp generic,
                                               ArrayRef<std::string> dims,
                                               std::string &why) {
    std::string key =
        std::to_string(reinterpret_cast<uintptr_t>(generic.getOperation())) +
        "@" + join(dims, "|");
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    llvm::DenseMap<Value, std::string> names;
    if (failed(bindOperands(generic, dims, names, why)))
      return failure();
    Block &body = generic.getRegion().front();
    if (failed(writer.writeBlock(body, names, dims, nullptr, why)))
      return failure();
    SmallVector<std::string> results;
    for (Value yielded : body.getTerminator()->getOperands())
      results.push_back(names.lookup(yielded));
    memo[key] = results;
    return results;
  }

private:
  const LinalgRegion &region;
  StatementWriter &writer;
  std::map<std::string, SmallVector<std::string>> memo;
};

std::string kernelSignature(const LinalgRegion &region, StringRef name,
                            int maxThreads = 0, bool workspace = false) {
  SmallVector<std::string> params;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    params.push_back("const " + getCType(elementOf(in))->storage +
                     " *__restrict__ in" + std::to_string(i));
  for (auto [i, out] : llvm::enumerate(region.outputs))
    params.push_back(getCType(elementOf(out))->storage + " *__restrict__ out" +
                     std::to_string(i));
  if (workspace)
    params.push_back("unsigned char *__restrict__ workspace");
  std::string bounds =
      maxThreads ? "__launch_bounds__(" + std::to_string(maxThreads) + ") "
                 : "";
  return ("extern \"C\" __global__ void " + bounds + name + "(" + join(params) +
          ")")
      .str();
}

struct Launch {
  std::string kernel;
  std::array<int64_t, 3> grid, block;
};

struct Variant {
  std::string name, source;
  std::vector<Launch> launches; ///< in order, on one stream
  int64_t workspaceBytes = 0;
};

std::string launchJson(const Variant &v) {
  llvm::json::Array launches;
  for (const Launch &l : v.launches)
    launches.push_back(llvm::json::Object{
        {"kernel", l.kernel},
        {"grid", llvm::json::Array{l.grid[0], l.grid[1], l.grid[2]}},
        {"block", llvm::json::Array{l.block[0], l.block[1], l.block[2]}},
        {"shared_bytes", 0}});
  llvm::json::Object plan{{"launches", std::move(launches)}};
  if (v.workspaceBytes)
    plan["workspace_bytes"] = v.workspaceBytes;
  return llvm::formatv("{0}", llvm::json::Value(std::move(plan))).str();
}

/// `count` consecutive elements of `type` at `ptr` (aligned to the whole
/// access) read with one vector access; returns the vector's name. With
/// `stream`, a 16-byte access is marked read-once (ca_load_stream).
std::string loadVector(StatementWriter &writer, Type type, int count,
                       StringRef ptr, bool stream = false) {
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

/// Lane `lane` of a vector loadVector() read, in its compute type.
std::string laneOf(Type type, StringRef vector, int lane) {
  return loadAs(type, (vector + ".v[" + Twine(lane) + "]").str());
}

/// Stores `values` (compute type) to consecutive elements of `type` at
/// `ptr`: one vector access when there are several, aligned to the whole.
std::string storeVector(Type type, StringRef ptr,
                        ArrayRef<std::string> values) {
  if (values.size() == 1)
    return ("    *(" + ptr + ") = " + storeAs(type, values[0]) + ";\n").str();
  std::string vec = llvm::formatv("ca_vec<{0}, {1}>", getCType(type)->storage,
                                  values.size())
                        .str();
  std::string text = "    {\n      " + vec + " s;\n";
  for (auto [l, value] : llvm::enumerate(values))
    text += "      s.v[" + std::to_string(l) + "] = " + storeAs(type, value) +
            ";\n";
  return text + "      *reinterpret_cast<" + vec + " *>(" + ptr.str() +
         ") = s;\n    }\n";
}

//===----------------------------------------------------------------------===//
// Elementwise: a flat grid over the outputs (and the transposed-tile form).
//===----------------------------------------------------------------------===//

/// All generics parallel and all outputs of one shape: the elementwise class.
bool isElementwise(const LinalgRegion &region) {
  if (llvm::any_of(region.generics, isReduction))
    return false;
  ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
  return llvm::all_of(region.outputs,
                      [&](Value out) { return shapeOf(out) == shape; });
}

FailureOr<Variant> writeFlat(const LinalgRegion &region, int vector,
                             int threads, std::string &why) {
  ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
  int64_t total = product(shape);
  int rank = shape.size();
  std::string body;
  unsigned counter = 0;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  llvm::DenseMap<Value, std::string> vectors; // vector loads of this chunk
  std::string lastDim;
  int lane = 0;
  eval.loadInput = [&](unsigned i, ArrayRef<std::string> idx) -> std::string {
    Value in = region.inputs[i];
    bool contiguous = vector > 1 && rank > 0 && !idx.empty() &&
                      idx.back() == lastDim &&
                      shapeOf(in).back() == shape.back();
    if (!contiguous)
      return eval.loadAt(i, idx);
    // Lane 0 loads every lane with one aligned access.
    if (lane == 0) {
      SmallVector<std::string> idx0(idx);
      idx0.back() = "(i" + std::to_string(rank - 1) + ")";
      vectors[in] = loadVector(writer, elementOf(in), vector,
                               "in" + std::to_string(i) + " + " +
                                   linearize(idx0, shapeOf(in)));
    }
    return laneOf(elementOf(in), vectors.lookup(in), lane);
  };

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
  SmallVector<SmallVector<std::string>> values(region.outputs.size());
  for (lane = 0; lane < vector; ++lane) {
    SmallVector<std::string> at;
    for (int d = 0; d < rank; ++d)
      at.push_back("(i" + std::to_string(d) + ")");
    if (rank > 0 && lane > 0)
      at.back() =
          "(i" + std::to_string(rank - 1) + " + " + std::to_string(lane) + ")";
    lastDim = rank > 0 ? at.back() : "";
    eval.forget();
    for (auto [o, out] : llvm::enumerate(region.outputs)) {
      FailureOr<std::string> v = eval.valueAt(out, at, why);
      if (failed(v))
        return failure();
      values[o].push_back(*v);
    }
  }
  src += body;
  for (auto [o, out] : llvm::enumerate(region.outputs)) {
    Type type = elementOf(out);
    src += storeVector(type, "out" + std::to_string(o) + " + base", values[o]);
  }
  src += "  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((chunks + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("flat-v{0}-t{1}", vector, threads).str(),
                 src,
                 {{kernel, {blocks, 1, 1}, {threads, 1, 1}}}};
}

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
  eval.loadInput = [&](unsigned i, ArrayRef<std::string> idx) -> std::string {
    if (i == transposed && idx.size() == 2 && idx[0] == d1s[lane] &&
        idx[1] == "(d0)")
      return "tile[l + " + std::to_string(lane) + "][k]";
    return eval.loadAt(i, idx);
  };
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

//===----------------------------------------------------------------------===//
// Row programs: reductions over trailing dimensions and what surrounds them.
//===----------------------------------------------------------------------===//

enum class RowClass { Full, PerRow, PerCol };

struct RowShape {
  SmallVector<int64_t> rowDims, colDims;
  int64_t rows = 0, cols = 0;
};

/// Whether a region output holds whole rows (else one value per row).
bool isWholeRows(Value out, const RowShape &rs) {
  auto g = out.getDefiningOp<linalg::GenericOp>();
  return g && !isReduction(g) &&
         g.getNumLoops() == rs.rowDims.size() + rs.colDims.size();
}

/// Whether `map` is (d0, ..., d[n-1]) -> (d0, ..., d[p-1]).
bool isLeadingDims(AffineMap map, unsigned p) {
  if (map.getNumResults() != p)
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != i)
      return false;
  }
  return true;
}

/// Checks that the region is a row program and returns its row split.
FailureOr<RowShape> analyzeRows(const LinalgRegion &region, std::string &why) {
  RowShape rs;
  bool found = false;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
    unsigned p = 0;
    while (p < iterators.size() &&
           iterators[p] == utils::IteratorType::parallel)
      ++p;
    for (unsigned i = p; i < iterators.size(); ++i)
      if (iterators[i] != utils::IteratorType::reduction) {
        why = "a reduction whose reduced dimensions are not the trailing ones";
        return failure();
      }
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<int64_t> rowDims(ranges.begin(), ranges.begin() + p);
    SmallVector<int64_t> colDims(ranges.begin() + p, ranges.end());
    if (found && (rowDims != rs.rowDims || colDims != rs.colDims)) {
      why = "reductions over different row shapes";
      return failure();
    }
    found = true;
    rs.rowDims = rowDims;
    rs.colDims = colDims;
    if (g.getNumDpsInits() != 1 ||
        !isLeadingDims(g.getMatchingIndexingMap(g.getDpsInitOperand(0)), p) ||
        !region.splats.count(g.getDpsInitOperand(0)->get())) {
      why = "a reduction whose output is not the rows, initialized by a fill";
      return failure();
    }
  }
  if (!found) {
    why = "no reduction";
    return failure();
  }
  rs.rows = product(rs.rowDims);
  rs.cols = product(rs.colDims);
  unsigned p = rs.rowDims.size(), rank = p + rs.colDims.size();
  for (linalg::GenericOp g : region.generics) {
    unsigned loops = g.getNumLoops();
    if (loops != rank && loops != p) {
      why = "an elementwise op over another shape than the rows";
      return failure();
    }
    for (OpOperand &operand : g->getOpOperands()) {
      if (g.isDpsInit(&operand) && isReduction(g))
        continue;
      if (g.isDpsInit(&operand) && g.getRegion()
                                       .front()
                                       .getArgument(operand.getOperandNumber())
                                       .use_empty())
        continue;
      Value v = operand.get();
      AffineMap map = g.getMatchingIndexingMap(&operand);
      ArrayRef<int64_t> shape = shapeOf(v);
      SmallVector<int64_t> full(rs.rowDims);
      full.append(rs.colDims.begin(), rs.colDims.end());
      bool ok =
          region.splats.count(v) ||
          (loops == rank && map.isIdentity() &&
           shape == ArrayRef<int64_t>(full)) ||
          (isLeadingDims(map, p) && shape == ArrayRef<int64_t>(rs.rowDims)) ||
          (loops == rank && map.isMinorIdentity() &&
           map.getNumResults() == rs.colDims.size() &&
           shape == ArrayRef<int64_t>(rs.colDims));
      if (!ok) {
        why = "an operand that is not the rows, one value per row or per "
              "column with the matching indexing map";
        return failure();
      }
    }
  }
  // Outputs are generic results (readRegion checked): whole rows or one
  // value per row, by the loops of their producer (isWholeRows).
  return rs;
}

/// For a max reduction `max` of a row tensor X, the reduction that sums
/// exp(X - max) over the same rows (softmax's denominator), if the region has
/// one: a sum whose one input is produced by a generic that only subtracts
/// the row's max from X and exponentiates. Online softmax computes both in
/// one pass over X.
linalg::GenericOp findExpSum(const LinalgRegion &region,
                             linalg::GenericOp max, const Combiner &maxOf) {
  if (!isa<arith::MaxNumFOp, arith::MaximumFOp>(maxOf.op) ||
      max.getNumDpsInputs() != 1 ||
      maxOf.op->getOperand(maxOf.otherOperand) !=
          max.getRegion().front().getArgument(0))
    return {};
  Value x = max.getDpsInputs()[0];
  for (linalg::GenericOp sum : region.generics) {
    if (!isReduction(sum) || sum == max || sum.getNumDpsInputs() != 1)
      continue;
    Block &sumBody = sum.getRegion().front();
    std::string why;
    FailureOr<Combiner> add =
        findCombiner(sumBody, sumBody.getArgument(1), why);
    if (failed(add) || !isa<arith::AddFOp>(add->op) ||
        add->op->getOperand(add->otherOperand) != sumBody.getArgument(0))
      continue;
    auto exp = sum.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
    if (!exp || isReduction(exp) || exp.getNumResults() != 1 ||
        exp.getNumLoops() != max.getNumLoops())
      continue;
    // exp's body: %d = subf %x, %m; %e = math.exp %d; yield %e.
    Block &body = exp.getRegion().front();
    auto ops = body.without_terminator();
    if (std::distance(ops.begin(), ops.end()) != 2)
      continue;
    auto sub = dyn_cast<arith::SubFOp>(*ops.begin());
    auto e = dyn_cast<math::ExpOp>(*std::next(ops.begin()));
    if (!sub || !e || e.getOperand() != sub.getResult() ||
        body.getTerminator()->getOperand(0) != e.getResult())
      continue;
    auto lhs = dyn_cast<BlockArgument>(sub.getLhs());
    auto rhs = dyn_cast<BlockArgument>(sub.getRhs());
    if (!lhs || !rhs || lhs.getOwner() != &body || rhs.getOwner() != &body ||
        lhs.getArgNumber() >= exp.getNumDpsInputs() ||
        rhs.getArgNumber() >= exp.getNumDpsInputs())
      continue;
    OpOperand *xOperand = exp.getDpsInputOperand(lhs.getArgNumber());
    OpOperand *mOperand = exp.getDpsInputOperand(rhs.getArgNumber());
    if (xOperand->get() == x &&
        exp.getMatchingIndexingMap(xOperand).isIdentity() &&
        mOperand->get() == max.getResult(0))
      return sum;
  }
  return {};
}

/// How a row program covers its rows: a group of `group` threads per row (a
/// warp, or the whole block), `vector` consecutive columns per thread and
/// step, the row's full inputs kept in registers when `cache`, and read as
/// read-once data (no L1 allocation, 256-byte L2 prefetch) when `stream`.
/// With `splits` > 1 (one reduction, or a softmax's max and sum), each row is
/// cut into `splits` chunks: a `partial` kernel reduces each chunk with one
/// block into the workspace, a `finish` kernel, a warp per row, combines the
/// chunks in order and writes the values per row, and for whole-row outputs
/// an `apply` kernel, a block per chunk again, writes the rows from the
/// finish kernel's values.
struct RowPlan {
  int group, blockThreads, vector;
  bool cache = false;
  int64_t splits = 1;
  bool stream = false;
};

FailureOr<Variant> writeRows(const LinalgRegion &region, const RowShape &rs,
                             const RowPlan &plan, std::string &why) {
  auto [group, blockThreads, vector, cache, splits, stream] = plan;
  int64_t step = int64_t(group) * vector;
  int64_t per = (rs.cols + step - 1) / step;
  bool split = splits > 1;
  if (split) {
    // One reduction, or a max and its sum of exponentials (online softmax).
    SmallVector<linalg::GenericOp> reductions;
    for (linalg::GenericOp g : region.generics)
      if (isReduction(g))
        reductions.push_back(g);
    bool online = false;
    if (reductions.size() == 2) {
      Block &body = reductions[0].getRegion().front();
      FailureOr<Combiner> maxOf = findCombiner(
          body, body.getArgument(reductions[0].getNumDpsInputs()), why);
      online = succeeded(maxOf) &&
               findExpSum(region, reductions[0], *maxOf) == reductions[1];
    }
    if (cache || (reductions.size() != 1 && !online)) {
      why = "a split row needs one reduction (or a softmax's max and sum)";
      return failure();
    }
  }
  int64_t partialBytes = 0; // the partials' part of the workspace
  // A chunk of whole vectors per block.
  int64_t chunk = ((rs.cols + splits - 1) / splits + vector - 1) / vector * vector;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, split ? "partial" : "rows",
                                    blockThreads, split) +
                    " {\n";
  int rowsPerBlock = blockThreads / group;
  SmallVector<std::string> rowIdx = delinearize("row", rs.rowDims);
  // Each thread's steps over the row: `vector` consecutive columns from c.
  std::string stepLoop;
  // A block's chunk of its row (the partial and apply kernels of a split).
  std::string chunkHeader;
  if (split) {
    chunkHeader =
        llvm::formatv("  const long long row = blockIdx.y;\n"
                      "  const int t = threadIdx.x;\n"
                      "  const long long begin = blockIdx.x * {0}LL;\n"
                      "  const long long end = begin + {0}LL < {1}LL ? begin + "
                      "{0}LL : {1}LL;\n",
                      chunk, rs.cols)
            .str();
    src += chunkHeader;
    stepLoop = llvm::formatv("#pragma unroll 4\n"
                             "  for (long long c = begin + (long long)t * {0}; "
                             "c < end; c += {1}LL) {{\n",
                             vector, step)
                   .str();
  } else {
    src += llvm::formatv("  const long long row = (long long)blockIdx.x * {0} "
                         "+ threadIdx.x / {1};\n"
                         "  const int t = threadIdx.x % {1};\n",
                         rowsPerBlock, group)
               .str();
    if (rowsPerBlock > 1)
      src +=
          llvm::formatv("  if (row >= {0}LL)\n    return;\n", rs.rows).str();
    // Rows in registers need every step unrolled (constant indices); a
    // streamed row is unrolled by 4.
    stepLoop =
        llvm::formatv("#pragma unroll{3}\n"
                      "  for (int j = 0; j < {0}; ++j) {{\n"
                      "    const long long c = ((long long)j * {1} + t) * {2};\n",
                      per, group, vector, cache || per <= 16 ? "" : " 4")
            .str();
    if (rs.cols % step != 0)
      stepLoop +=
          llvm::formatv("    if (c >= {0}LL)\n      continue;\n", rs.cols)
              .str();
  }
  std::string rowStart = "row * " + std::to_string(rs.cols) + "LL + c";
  // The statements of the values per row computed before the reduction,
  // which the finish kernel computes again.
  std::string rowPrefix;

  unsigned counter = 0;
  // Full inputs: loaded once into registers (cache), or per step.
  SmallVector<int64_t> fullShape(rs.rowDims);
  fullShape.append(rs.colDims.begin(), rs.colDims.end());
  SmallVector<unsigned> fullInputs;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    if (shapeOf(in) == ArrayRef<int64_t>(fullShape))
      fullInputs.push_back(i);
  if (cache) {
    StatementWriter writer(src, counter);
    for (unsigned i : fullInputs) {
      Type type = elementOf(region.inputs[i]);
      src += llvm::formatv("  {0} x{1}[{2}][{3}];\n", getCType(type)->compute,
                           i, per, vector)
                 .str() +
             stepLoop;
      std::string ptr = "in" + std::to_string(i) + " + " + rowStart;
      std::string vec = loadVector(writer, type, vector, ptr, stream);
      for (int v = 0; v < vector; ++v)
        src += llvm::formatv("    x{0}[j][{1}] = {2};\n", i, v,
                             laneOf(type, vec, v))
                   .str();
      src += "  }\n";
    }
  }

  // Whole-row tensors a reduction pass computed and later passes read again
  // (softmax's exponentials): kept in registers when the inputs are.
  llvm::DenseMap<Value, std::string> cachedTensors;

  // One pass over the row's columns: `emit(evaluator, lane, idx)` writes the
  // per-element statements; `capture` names whole-row tensors to keep.
  auto pass =
      [&](llvm::function_ref<LogicalResult(
              ElementEvaluator &, int, ArrayRef<std::string>, std::string &)>
              emit,
          const llvm::DenseMap<Value, std::string> &known,
          ArrayRef<Value> capture = {}) -> FailureOr<std::string> {
    std::string decls, body;
    StatementWriter writer(body, counter);
    for (auto &entry : known)
      writer.markInvariant(entry.second);
    ElementEvaluator eval(region, writer);
    eval.known = known;
    int lane = 0;
    llvm::DenseMap<unsigned, std::string> loaded;
    eval.loadInput = [&](unsigned i, ArrayRef<std::string> idx) -> std::string {
      std::string ref = "in" + std::to_string(i);
      Type type = elementOf(region.inputs[i]);
      RowClass cls = ArrayRef<std::string>(idx) == ArrayRef<std::string>(rowIdx)
                         ? RowClass::PerRow
                     : idx.size() == rowIdx.size() + rs.colDims.size()
                         ? RowClass::Full
                         : RowClass::PerCol;
      switch (cls) {
      case RowClass::Full:
        if (cache)
          return "x" + std::to_string(i) + "[j][" + std::to_string(lane) + "]";
        [[fallthrough]];
      case RowClass::PerCol: {
        // Consecutive columns: lane 0 reads the step's lanes at once.
        std::string at = cls == RowClass::Full ? rowStart : "c";
        if (vector == 1)
          return eval.loadElement(i, at);
        if (lane == 0)
          loaded[i] = loadVector(writer, type, vector, ref + " + " + at,
                                 stream && cls == RowClass::Full);
        return laneOf(type, loaded[i], lane);
      }
      case RowClass::PerRow:
        return eval.loadElement(i, "row");
      }
      return "0";
    };
    for (lane = 0; lane < vector; ++lane) {
      SmallVector<std::string> idx(rowIdx);
      SmallVector<std::string> colIdx =
          delinearize("c + " + std::to_string(lane), rs.colDims);
      idx.append(colIdx.begin(), colIdx.end());
      eval.forget();
      eval.knownAt.clear();
      for (auto &[tensor, array] : cachedTensors)
        eval.knownAt[tensor] = {
            idx, array + "[j][" + std::to_string(lane) + "]"};
      if (failed(emit(eval, lane, idx, why)))
        return failure();
      for (auto [k, tensor] : llvm::enumerate(capture)) {
        FailureOr<std::string> value = eval.valueAt(tensor, idx, why);
        if (failed(value))
          return failure();
        std::string array = "p" + std::to_string(cachedTensors.size() + k);
        if (lane == 0)
          decls += llvm::formatv("  {0} {1}[{2}][{3}];\n",
                                 getCType(elementOf(tensor))->compute, array,
                                 per, vector)
                       .str();
        body += "    " + array + "[j][" + std::to_string(lane) +
                "] = " + *value + ";\n";
      }
    }
    unsigned first = cachedTensors.size();
    for (auto [k, tensor] : llvm::enumerate(capture))
      cachedTensors[tensor] = "p" + std::to_string(first + k);
    return decls + stepLoop + body + "  }\n";
  };

  llvm::DenseMap<Value, std::string> known;
  unsigned reductions = 0;
  llvm::SmallPtrSet<Operation *, 2> fusedSums;
  // Statements for values of one per row, which every thread computes, with
  // inputs read at `row`; returns them.
  auto perRow = [&](llvm::function_ref<LogicalResult(ElementEvaluator &)> emit)
      -> FailureOr<std::string> {
    std::string body;
    StatementWriter writer(body, counter);
    ElementEvaluator eval(region, writer);
    eval.known = known;
    eval.loadInput = [&](unsigned i, ArrayRef<std::string>) {
      return eval.loadElement(i, "row");
    };
    if (failed(emit(eval)))
      return failure();
    return body;
  };
  // A split row: the partial kernel ends after its block's reduction, with
  // thread 0's `stores`; the finish kernel, a warp per row, starts with the
  // values per row the partial computed before it.
  std::string splitPrefix;
  bool inFinish = false;
  SmallVector<std::pair<std::string, std::string>> finishValues; // name, type
  auto beginFinish = [&](StringRef stores) {
    splitPrefix = rowPrefix;
    inFinish = true;
    src += "  if (t == 0) {\n" + stores.str() + "  }\n}\n\n" +
           kernelSignature(region, "finish", 256, true) + " {\n" +
           llvm::formatv("  const long long row = (long long)blockIdx.x * 8 + "
                         "threadIdx.x / 32;\n"
                         "  const int t = threadIdx.x % 32;\n"
                         "  if (row >= {0}LL)\n    return;\n",
                         rs.rows)
               .str() +
           rowPrefix;
  };
  // Online softmax (Milakov and Gimelshein, 2018): a running max m and the
  // sum s of exp(x - m), merged across threads by rescaling to the larger m.
  // An element equal to m adds 1 without exp, so that -inf elements ahead of
  // the first finite one add exp(-inf) = 0 once m grows, not NaN.
  auto writeOnlineSoftmax = [&](linalg::GenericOp max, linalg::GenericOp sum,
                                const Combiner &maxOf, StringRef m,
                                unsigned n) -> LogicalResult {
    std::string s = "sum" + std::to_string(n);
    src += llvm::formatv("  float {0} = {1}, {2} = 0.0f;\n", m,
                         maxOf.identity, s)
               .str();
    Value x = max.getDpsInputs()[0];
    FailureOr<std::string> loop = pass(
        [&](ElementEvaluator &eval, int, ArrayRef<std::string> idx,
            std::string &why) -> LogicalResult {
          FailureOr<std::string> e = eval.valueAt(x, idx, why);
          if (failed(e))
            return failure();
          eval.getWriter().append(
              llvm::formatv("    if ({0} > {1}) {{\n"
                            "      {2} = {2} * expf({1} - {0}) + 1.0f;\n"
                            "      {1} = {0};\n"
                            "    } else {{\n"
                            "      {2} += {0} == {1} ? 1.0f : expf({0} - {1});\n"
                            "    }\n",
                            *e, m, s)
                  .str());
          return success();
        },
        known);
    if (failed(loop))
      return failure();
    src += *loop;
    // Merging (m, s) with (mo, so): both sums rescaled to max(m, mo); equal
    // maxima (-inf included) keep their sums as they are.
    auto merge = [&](StringRef mo, StringRef so) {
      return llvm::formatv("    {{\n"
                           "      const float mn = {0};\n"
                           "      {1} = ({2} == mn ? {1} : {1} * expf({2} - mn)) "
                           "+ ({3} == mn ? {4} : {4} * expf({3} - mn));\n"
                           "      {2} = mn;\n"
                           "    }\n",
                           maxOf.combine(m, mo), s, m, mo, so)
          .str();
    };
    // Across a warp by shuffles (the block's lanes, then the finish
    // kernel's chunks of a row).
    std::string warpMerge =
        "  for (int o = 16; o > 0; o /= 2) {\n" +
        llvm::formatv("    const float mo = __shfl_xor_sync(0xffffffffu, "
                      "{0}, o), so = __shfl_xor_sync(0xffffffffu, {1}, o);\n",
                      m, s)
            .str() +
        merge("mo", "so") + "  }\n";
    src += warpMerge;
    if (group > 32)
      src += llvm::formatv("  __shared__ float part{0}[32], parts{0}[32];\n"
                           "  if (t % 32 == 0) {{\n"
                           "    part{0}[t / 32] = {1};\n"
                           "    parts{0}[t / 32] = {2};\n"
                           "  }\n"
                           "  __syncthreads();\n"
                           "  {1} = part{0}[0];\n"
                           "  {2} = parts{0}[0];\n"
                           "  for (int w = 1; w < {3}; ++w) {{\n",
                           n, m, s, group / 32)
                 .str() +
             merge("part" + std::to_string(n) + "[w]",
                   "parts" + std::to_string(n) + "[w]") +
             "  }\n";
    if (split) {
      // Each chunk's (m, s) into the workspace; the finish kernel merges a
      // row's chunks in order, then across its warp.
      std::string ms = "reinterpret_cast<float *>(workspace)";
      std::string at = "[row * " + std::to_string(splits) + " + blockIdx.x]";
      std::string sums = std::to_string(rs.rows * splits);
      partialBytes = 2 * rs.rows * splits * 4;
      beginFinish("    " + ms + at + " = " + m.str() + ";\n    " + ms + "[" +
                  sums + " + row * " + std::to_string(splits) +
                  " + blockIdx.x] = " + s + ";\n");
      std::string q = "[row * " + std::to_string(splits) + " + q]";
      src += llvm::formatv("  float {0} = {1}, {2} = 0.0f;\n"
                           "  for (int q = t; q < {3}; q += 32) {{\n",
                           m, maxOf.identity, s, splits)
                 .str() +
             merge(ms + q, ms + "[" + sums + " + row * " +
                               std::to_string(splits) + " + q]") +
             "  }\n" + warpMerge;
    }
    // The fills enter once: the max's first, the sum rescaled to it.
    std::string maxResult = "red" + std::to_string(n);
    std::string sumResult = "red" + std::to_string(n) + "s";
    std::string maxInit = region.splats.lookup(max.getDpsInitOperand(0)->get());
    std::string sumInit = region.splats.lookup(sum.getDpsInitOperand(0)->get());
    src += llvm::formatv("  const float {0} = {1};\n"
                         "  const float {2} = {3} + ({4} == {0} ? {5} : {5} * "
                         "expf({4} - {0}));\n",
                         maxResult, maxOf.combine(maxInit, m), sumResult,
                         sumInit, m, s)
               .str();
    known[max.getResult(0)] = maxResult;
    known[sum.getResult(0)] = sumResult;
    if (inFinish) {
      finishValues.push_back({maxResult, "float"});
      finishValues.push_back({sumResult, "float"});
    }
    return success();
  };
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g)) {
      if (g.getNumLoops() != rs.rowDims.size())
        continue; // over the whole row: inlined where it is read
      // One value per row: every thread computes it.
      FailureOr<SmallVector<std::string>> values;
      FailureOr<std::string> body = perRow([&](ElementEvaluator &eval) {
        values = eval.evaluate(g, rowIdx, why);
        return LogicalResult(values);
      });
      if (failed(body))
        return failure();
      src += *body;
      rowPrefix += *body;
      for (auto [r, result] : llvm::enumerate(g.getResults())) {
        known[result] = (*values)[r];
        if (inFinish)
          finishValues.push_back(
              {(*values)[r], getCType(elementOf(result))->compute});
      }
      continue;
    }
    if (fusedSums.contains(g))
      continue; // computed with its max (online softmax)
    Block &reduceBody = g.getRegion().front();
    BlockArgument accArg = reduceBody.getArgument(g.getNumDpsInputs());
    FailureOr<Combiner> combiner = findCombiner(reduceBody, accArg, why);
    if (failed(combiner))
      return failure();
    std::string ctype = getCType(elementOf(g.getResult(0)))->compute;
    std::string acc = "acc" + std::to_string(reductions);
    // A row streamed from memory (not in registers): the max and the sum of
    // exp(x - max) in one pass, the sum rescaled whenever the max grows.
    if (linalg::GenericOp sum;
        !cache && ctype == "float" &&
        (sum = findExpSum(region, g, *combiner))) {
      fusedSums.insert(sum);
      if (failed(writeOnlineSoftmax(g, sum, *combiner, acc, reductions)))
        return failure();
      ++reductions;
      continue;
    }
    src += "  " + ctype + " " + acc + " = " + combiner->identity + ";\n";
    // Whole-row values this reduction reads that later passes may read again.
    SmallVector<Value> capture;
    if (cache)
      for (Value in : g.getDpsInputs())
        if (auto producer = in.getDefiningOp<linalg::GenericOp>();
            producer && !isReduction(producer) &&
            producer.getNumLoops() == fullShape.size() &&
            !cachedTensors.count(in) && !llvm::is_contained(capture, in))
          capture.push_back(in);
    FailureOr<std::string> loop = pass(
        [&](ElementEvaluator &eval, int, ArrayRef<std::string> idx,
            std::string &why) -> LogicalResult {
          llvm::DenseMap<Value, std::string> names;
          if (failed(eval.bindOperands(g, idx, names, why, accArg)))
            return failure();
          StatementWriter &writer = eval.getWriter();
          if (failed(
                  writer.writeBlock(reduceBody, names, idx, combiner->op, why)))
            return failure();
          std::string mapped =
              names.lookup(combiner->op->getOperand(combiner->otherOperand));
          writer.append("    " + acc + " = " + combiner->combine(acc, mapped) +
                        ";\n");
          return success();
        },
        known, capture);
    if (failed(loop))
      return failure();
    src += *loop;
    // Across the group: shuffles within each warp, then the warps' partials
    // through shared memory; every thread ends with the same value.
    std::string warpCombine =
        llvm::formatv("  for (int o = 16; o > 0; o /= 2)\n"
                      "    {0} = {1};\n",
                      acc,
                      combiner->combine(acc, "__shfl_xor_sync(0xffffffffu, " +
                                                 acc + ", o)"))
            .str();
    src += warpCombine;
    if (group > 32) {
      src +=
          llvm::formatv("  __shared__ {0} part{1}[32];\n"
                        "  if (t % 32 == 0)\n    part{1}[t / 32] = {2};\n"
                        "  __syncthreads();\n"
                        "  {2} = part{1}[0];\n"
                        "  for (int w = 1; w < {3}; ++w)\n    {2} = {4};\n",
                        ctype, reductions, acc, group / 32,
                        combiner->combine(
                            acc, "part" + std::to_string(reductions) + "[w]"))
              .str();
    }
    if (split) {
      // The block's partial into the workspace; the finish kernel combines
      // the row's partials in chunk order, a warp per row.
      std::string partials = "reinterpret_cast<" + ctype + " *>(workspace)";
      partialBytes = rs.rows * splits * int64_t(ctype == "double" ? 8 : 4);
      beginFinish(llvm::formatv("    {0}[row * {1} + blockIdx.x] = {2};\n",
                                partials, splits, acc)
                      .str());
      src += llvm::formatv("  {0} {1} = {2};\n"
                           "  for (int s = t; s < {3}; s += 32)\n"
                           "    {1} = {4};\n",
                           ctype, acc, combiner->identity, splits,
                           combiner->combine(acc, partials + "[row * " +
                                                      std::to_string(splits) +
                                                      " + s]"))
                 .str() +
             warpCombine;
    }
    // The fill's value enters once.
    std::string init = region.splats.lookup(g.getDpsInitOperand(0)->get());
    std::string result = "red" + std::to_string(reductions);
    src += "  const " + ctype + " " + result + " = " +
           combiner->combine(init, acc) + ";\n";
    known[g.getResult(0)] = result;
    if (inFinish)
      finishValues.push_back({result, ctype});
    ++reductions;
  }

  // The outputs: whole rows in a last pass, one value per row from thread 0.
  SmallVector<unsigned> fullOutputs;
  for (auto [o, out] : llvm::enumerate(region.outputs)) {
    if (isWholeRows(out, rs)) {
      fullOutputs.push_back(o);
      continue;
    }
    FailureOr<std::string> value;
    FailureOr<std::string> body = perRow([&](ElementEvaluator &eval) {
      value = eval.valueAt(out, rowIdx, why);
      return LogicalResult(value);
    });
    if (failed(body))
      return failure();
    src += *body + "  if (t == 0)\n    out" + std::to_string(o) +
           "[row] = " + storeAs(elementOf(out), *value) + ";\n";
  }
  std::string values = "reinterpret_cast<float *>(workspace + " +
                       std::to_string(partialBytes) + ")";
  if (split && !fullOutputs.empty()) {
    // The finish kernel hands its values per row to an apply kernel, a block
    // per chunk again, which writes the whole rows.
    std::string stores, loads;
    for (auto [k, entry] : llvm::enumerate(finishValues)) {
      if (entry.second != "float") {
        why = "a split row passes its values per row in f32 only";
        return failure();
      }
      std::string at = "[" + std::to_string(k * rs.rows) + " + row]";
      stores += "    " + values + at + " = " + entry.first + ";\n";
      loads += "  const float " + entry.first + " = " + values + at + ";\n";
    }
    src += "  if (t == 0) {\n" + stores + "  }\n}\n\n" +
           kernelSignature(region, "apply", blockThreads, true) + " {\n" +
           chunkHeader + splitPrefix + loads;
  }
  if (!fullOutputs.empty()) {
    SmallVector<SmallVector<std::string>> lanes(fullOutputs.size());
    FailureOr<std::string> loop = pass(
        [&](ElementEvaluator &eval, int lane, ArrayRef<std::string> idx,
            std::string &why) -> LogicalResult {
          for (auto [k, o] : llvm::enumerate(fullOutputs)) {
            FailureOr<std::string> v =
                eval.valueAt(region.outputs[o], idx, why);
            if (failed(v))
              return failure();
            lanes[k].push_back(*v);
          }
          if (lane + 1 < vector)
            return success();
          // After the last lane: the stores.
          StatementWriter &writer = eval.getWriter();
          for (auto [k, o] : llvm::enumerate(fullOutputs))
            writer.append(storeVector(elementOf(region.outputs[o]),
                                      "out" + std::to_string(o) + " + " +
                                          rowStart,
                                      lanes[k]));
          return success();
        },
        known);
    if (failed(loop))
      return failure();
    src += *loop;
  }
  src += "}\n";
  if (split) {
    Variant variant{
        llvm::formatv("split{0}-b{1}-v{2}{3}", splits, blockThreads, vector,
                      stream ? "-stream" : "")
            .str(),
        src,
        {{"partial", {splits, rs.rows, 1}, {blockThreads, 1, 1}},
         {"finish", {(rs.rows + 7) / 8, 1, 1}, {256, 1, 1}}},
        partialBytes};
    if (!fullOutputs.empty()) {
      variant.launches.push_back(
          {"apply", {splits, rs.rows, 1}, {blockThreads, 1, 1}});
      variant.workspaceBytes +=
          int64_t(finishValues.size()) * rs.rows * 4;
    }
    return variant;
  }
  int64_t blocks = (rs.rows + rowsPerBlock - 1) / rowsPerBlock;
  return Variant{llvm::formatv("rows-g{0}-b{1}-v{2}{3}{4}", group, blockThreads,
                               vector, cache ? "-cached" : "",
                               stream ? "-stream" : "")
                     .str(),
                 src,
                 {{"rows", {blocks, 1, 1}, {blockThreads, 1, 1}}}};
}

//===----------------------------------------------------------------------===//
// Any single reduction: a thread per output element, the reference's order.
//===----------------------------------------------------------------------===//

FailureOr<Variant> writeSerialReduction(const LinalgRegion &region, int threads,
                                        std::string &why) {
  SmallVector<linalg::GenericOp> reductions;
  for (linalg::GenericOp g : region.generics)
    if (isReduction(g))
      reductions.push_back(g);
  if (reductions.size() != 1 || region.outputs.size() != 1 ||
      region.outputs[0] != reductions[0].getResult(0) ||
      reductions[0].getNumDpsInits() != 1 ||
      !region.splats.count(reductions[0].getDpsInitOperand(0)->get())) {
    why = "not a single reduction into a filled output";
    return failure();
  }
  linalg::GenericOp g = reductions[0];
  Value out = region.outputs[0];
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation()) {
    why = "a reduction output map that is not a projected permutation";
    return failure();
  }
  ArrayRef<int64_t> outShape = shapeOf(out);
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<std::string> dims(ranges.size());
  SmallVector<std::string> idx = delinearize("e", outShape);
  for (unsigned k = 0; k < outMap.getNumResults(); ++k)
    dims[outMap.getDimPosition(k)] = idx[k];
  std::string loops, close;
  for (auto [d, type] : llvm::enumerate(g.getIteratorTypesArray())) {
    if (type != utils::IteratorType::reduction)
      continue;
    std::string var = "r" + std::to_string(d);
    dims[d] = var;
    loops +=
        llvm::formatv("    for (long long {0} = 0; {0} < {1}LL; ++{0}) {{\n",
                      var, ranges[d])
            .str();
    close += "    }\n";
  }
  Block &reduceBody = g.getRegion().front();
  BlockArgument accArg = reduceBody.getArgument(g.getNumDpsInputs());
  FailureOr<Combiner> combiner = findCombiner(reduceBody, accArg, why);
  if (failed(combiner))
    return failure();
  std::string body;
  unsigned counter = 0;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  eval.loadInput = [&](unsigned i, ArrayRef<std::string> at) {
    return eval.loadAt(i, at);
  };
  llvm::DenseMap<Value, std::string> names;
  if (failed(eval.bindOperands(g, dims, names, why, accArg)) ||
      failed(writer.writeBlock(reduceBody, names, dims, combiner->op, why)))
    return failure();
  std::string mapped =
      names.lookup(combiner->op->getOperand(combiner->otherOperand));
  std::string ctype = getCType(elementOf(out))->compute;
  int64_t total = product(outShape);
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, "reduce") + " {\n";
  src += llvm::formatv(
             "  for (long long e = blockIdx.x * (long long)blockDim.x + "
             "threadIdx.x; e < {0}LL; e += (long long)gridDim.x * "
             "blockDim.x) {{\n"
             "    {1} acc = {2};\n",
             total, ctype, region.splats.lookup(g.getDpsInitOperand(0)->get()))
             .str();
  src += loops + body + "    acc = " + combiner->combine("acc", mapped) +
         ";\n" + close;
  src += "    out0[e] = " + storeAs(elementOf(out), "acc") + ";\n  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((total + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("serial-t{0}", threads).str(),
                 src,
                 {{"reduce", {blocks, 1, 1}, {threads, 1, 1}}}};
}

/// The bytes of the region's narrowest element type (at most 4).
unsigned narrowestBytes(const LinalgRegion &region) {
  unsigned narrowest = 4;
  for (Value v : llvm::concat<const Value>(region.inputs, region.outputs))
    if (Type type = elementOf(v);
        type.isIntOrFloat() && type.getIntOrFloatBitWidth() >= 8)
      narrowest = std::min(narrowest, type.getIntOrFloatBitWidth() / 8);
  return narrowest;
}

/// The elements per vector access for rows of `length` elements: 16 bytes
/// of the region's narrowest type (4 f32, 8 f16/bf16) where the length
/// allows, else 4, else 1.
int widestVector(const LinalgRegion &region, int64_t length) {
  for (int vector = 16 / narrowestBytes(region); vector > 1; vector /= 2)
    if (vector <= 8 && length % vector == 0)
      return vector;
  return 1;
}

/// Every variant the builtin agent can write for `region`, best guess first;
/// `why` says why there is none.
std::vector<Variant> writeVariants(const LinalgRegion &region,
                                   std::string &why) {
  std::vector<Variant> variants;
  std::string reason;
  auto add = [&](FailureOr<Variant> variant) {
    if (succeeded(variant))
      variants.push_back(std::move(*variant));
    else if (why.empty())
      why = reason;
  };
  if (isElementwise(region)) {
    if (std::optional<unsigned> t = findTransposedInput(region)) {
      ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
      // Vector accesses need whole vectors along both dimensions.
      if (shape[0] % 4 == 0 && shape[1] % 4 == 0) {
        add(writeTransposeTile(region, *t, 32, 8, 4, reason));
        add(writeTransposeTile(region, *t, 32, 4, 4, reason));
        add(writeTransposeTile(region, *t, 64, 8, 4, reason));
        add(writeTransposeTile(region, *t, 32, 16, 4, reason));
        add(writeTransposeTile(region, *t, 64, 16, 4, reason));
      }
      add(writeTransposeTile(region, *t, 64, 8, 1, reason));
      add(writeTransposeTile(region, *t, 32, 8, 1, reason));
    }
    ArrayRef<int64_t> shape = shapeOf(region.outputs.front());
    int vector = shape.empty() ? 1 : widestVector(region, shape.back());
    if (vector > 1) {
      add(writeFlat(region, vector, 256, reason));
      add(writeFlat(region, vector, 512, reason));
    }
    add(writeFlat(region, 1, 256, reason));
    return variants;
  }
  FailureOr<RowShape> rows = analyzeRows(region, reason);
  if (succeeded(rows)) {
    int vector = widestVector(region, rows->cols);
    auto rowVariant = [&](int group, int block, bool stream = false) {
      int64_t per = (rows->cols + int64_t(group) * vector - 1) /
                    (int64_t(group) * vector);
      add(writeRows(region, *rows,
                    {group, block, vector, per * vector <= 64, 1, stream},
                    reason));
    };
    // Few long rows: each row split over several blocks, about four blocks
    // per SM of an H100/H200 in all, each with at least 4 steps of work.
    if (rows->rows < 256 && rows->cols >= 16384) {
      int64_t splits = std::min<int64_t>((528 + rows->rows - 1) / rows->rows,
                                         rows->cols / (256 * vector * 4));
      if (splits > 1) {
        add(writeRows(region, *rows, {256, 256, vector, false, splits},
                      reason));
        add(writeRows(region, *rows,
                      {512, 512, vector, false, std::max<int64_t>(2, splits / 2)},
                      reason));
      }
    }
    if (rows->cols <= 1024) {
      rowVariant(32, 256);
      rowVariant(128, 128);
    } else {
      rowVariant(256, 256);
      rowVariant(512, 512);
      rowVariant(128, 128);
      rowVariant(1024, 1024);
      // One reduction reads the row once either way: a warp per row
      // streaming it, no block barrier between rows.
      if (llvm::count_if(region.generics, isReduction) == 1)
        rowVariant(32, 256);
      // The same rows read as read-once data (16-byte accesses only).
      if (vector * narrowestBytes(region) == 16) {
        rowVariant(1024, 1024, true);
        rowVariant(512, 512, true);
      }
    }
  } else {
    why = reason;
  }
  reason.clear();
  add(writeSerialReduction(region, 256, reason));
  if (!variants.empty())
    why.clear();
  return variants;
}

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
    func::FuncOp func = parsed->func;
    LinalgRegion region;
    std::string why;
    if (failed(readRegion(func, region, why)))
      return llvm::createStringError("%s", why.c_str());
    std::vector<Variant> variants = writeVariants(region, why);
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
      candidates.push_back({variant.name, variant.source,
                            launchJson(variant), "builtin",
                            "structure-v2"});
    }
    return candidates;
  }

};

} // namespace

std::unique_ptr<KernelAgent> cuda_agent::createBuiltinAgent() {
  return std::make_unique<BuiltinAgent>();
}

//===----------------------------------------------------------------------===//
// The region as plain loop nests, for prompts.
//===----------------------------------------------------------------------===//

namespace {
llvm::Expected<std::string> renderLoops(llvm::StringRef regionMlir) {
  llvm::Expected<RegionModule> parsed = parseRegionModule(regionMlir);
  if (!parsed)
    return parsed.takeError();
  func::FuncOp func = parsed->func;
  LinalgRegion region;
  std::string why;
  if (failed(readRegion(func, region, why, /*allowContractions=*/true)))
    return llvm::createStringError("%s", why.c_str());

  // Where each tensor lives: inN, outN, a local array tN, or a splat value.
  llvm::DenseMap<Value, std::string> arrays;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    arrays[in] = "in" + std::to_string(i);
  for (auto [o, out] : llvm::enumerate(region.outputs))
    if (!arrays.count(out))
      arrays[out] = "out" + std::to_string(o);
  std::string text = kernelSignature(region, "region");
  // A host-style reference: no __global__.
  text = "void region" + text.substr(text.find('('));
  text += " {\n";
  unsigned counter = 0, temps = 0;
  auto access = [&](Value v, AffineMap map,
                    ArrayRef<std::string> dims) -> FailureOr<std::string> {
    if (auto it = region.splats.find(v); it != region.splats.end())
      return it->second;
    FailureOr<SmallVector<std::string>> idx =
        ElementEvaluator::apply(map, dims, why);
    if (failed(idx))
      return failure();
    return arrays.lookup(v) + "[" + linearize(*idx, shapeOf(v)) + "]";
  };
  for (linalg::GenericOp g : region.generics) {
    for (Value result : g.getResults())
      if (!arrays.count(result)) {
        std::string name = "t" + std::to_string(temps++);
        text += "  static " + getCType(elementOf(result))->storage + " " +
                name + "[" + std::to_string(product(shapeOf(result))) + "];\n";
        arrays[result] = name;
      }
    Block &body = g.getRegion().front();
    // Outputs that start from a value (a fill, another tensor) get it first.
    for (OpOperand &init : g.getDpsInitsMutable()) {
      BlockArgument arg = body.getArgument(init.getOperandNumber());
      if (arg.use_empty())
        continue;
      Value result = g.getTiedOpResult(&init);
      int64_t n = product(shapeOf(result));
      std::string from = region.splats.count(init.get())
                             ? region.splats.lookup(init.get())
                             : loadAs(elementOf(init.get()),
                                      arrays.lookup(init.get()) + "[i]");
      text += llvm::formatv("  for (long long i = 0; i < {0}; ++i)\n"
                            "    {1}[i] = {2};\n",
                            n, arrays.lookup(result),
                            storeAs(elementOf(result), from))
                  .str();
    }
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<std::string> dims;
    std::string indent = "  ";
    for (auto [d, range] : llvm::enumerate(ranges)) {
      dims.push_back("d" + std::to_string(d));
      text +=
          indent + llvm::formatv("for (long long d{0} = 0; d{0} < {1}; ++d{0})"
                                 " {{  // {2}\n",
                                 d, range,
                                 stringifyEnum(g.getIteratorTypesArray()[d]))
                       .str();
      indent += "  ";
    }
    llvm::DenseMap<Value, std::string> names;
    std::string stmts;
    StatementWriter writer(stmts, counter);
    for (OpOperand &operand : g->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      Value source =
          g.isDpsInit(&operand) ? g.getTiedOpResult(&operand) : operand.get();
      FailureOr<std::string> ref =
          access(source, g.getMatchingIndexingMap(&operand), dims);
      if (failed(ref))
        return llvm::createStringError("%s", why.c_str());
      names[arg] =
          region.splats.count(source) ? *ref : loadAs(elementOf(source), *ref);
    }
    for (auto &[value, literal] : region.scalars)
      names[value] = literal;
    if (failed(writer.writeBlock(body, names, dims, nullptr, why)))
      return llvm::createStringError("%s", why.c_str());
    for (auto [r, yielded] :
         llvm::enumerate(body.getTerminator()->getOperands())) {
      OpResult result = g->getResult(r);
      FailureOr<std::string> ref =
          access(result, g.getIndexingMapMatchingResult(result), dims);
      if (failed(ref))
        return llvm::createStringError("%s", why.c_str());
      stmts += "    " + *ref + " = " +
               storeAs(elementOf(result), names.lookup(yielded)) + ";\n";
    }
    // Re-indent the statements under the loops.
    for (StringRef line : llvm::split(StringRef(stmts).rtrim('\n'), '\n'))
      text += indent + line.ltrim().str() + "\n";
    for (size_t d = ranges.size(); d > 0; --d) {
      indent.resize(indent.size() - 2);
      text += indent + "}\n";
    }
  }
  text += "}\n";
  return text;
}
} // namespace

llvm::Expected<std::string>
cuda_agent::renderCReference(llvm::StringRef regionMlir) {
  return renderLoops(regionMlir);
}
