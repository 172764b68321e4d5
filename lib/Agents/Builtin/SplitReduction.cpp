//===- SplitReduction.cpp - Outer reductions in two launches --------------===//
//
// The split kernels of a reduction over outer dimensions with few outputs
// (8192 outputs of a 1x8192 @ 8192x8192 vecmat are 2048 float4 chunks: a
// thread each leaves most of the H200 idle). Launch `partial`: block
// (x, y) owns `columns` consecutive outputs and slice y of the outermost
// reduced dimension; a row of its threads reads one 16-byte vector of
// consecutive outputs each (a warp 512 contiguous bytes of a row), the
// block's rows of threads take every `rows`-th row of the slice, and each
// thread keeps `unroll` rows in flight into independent accumulators. The
// accumulators, then the block's rows of threads (through shared memory),
// are combined in a fixed order, and the slice's partials stored to the
// workspace [slices][outputs]. Launch `finish`: a thread per output adds
// the fill's value and the slices in order (the same sum every run) and
// runs the region's elementwise epilogue on it.
//
// Inputs read at the chunk's consecutive outputs (the last index the
// output's innermost one, the same extent) are read one aligned vector at a
// time (read-once); the others (x[k] of the vecmat) once per row.
//
//===----------------------------------------------------------------------===//

#include "SplitReduction.h"
#include "ElementEvaluator.h"
#include "KernelText.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

constexpr int kThreads = 256;

/// The region's one reduction, into a filled output every region output
/// has the shape of.
FailureOr<linalg::GenericOp> findSplitReduction(const LinalgRegion &region,
                                                std::string &why) {
  FailureOr<linalg::GenericOp> found = findFilledReduction(region, why);
  if (failed(found))
    return failure();
  linalg::GenericOp g = *found;
  ArrayRef<int64_t> shape = shapeOf(g.getResult(0));
  if (shape.empty() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0))
           .isProjectedPermutation()) {
    why = "a split reduction needs an output indexed by its parallel loops";
    return failure();
  }
  if (llvm::any_of(region.outputs,
                   [&](Value out) { return shapeOf(out) != shape; })) {
    why = "a split reduction's outputs have the reduction's shape";
    return failure();
  }
  std::string ctype = getCType(elementOf(g.getResult(0)))->compute;
  if (ctype != "float" && ctype != "double") {
    why = "a split reduction's partials are float or double";
    return failure();
  }
  return g;
}

} // namespace

FailureOr<linalg::GenericOp>
cuda_agent::builtin::findFilledReduction(const LinalgRegion &region,
                                         std::string &why) {
  linalg::GenericOp g = findSingleReduction(region);
  if (!g || g.getNumDpsInits() != 1 ||
      !region.splats.count(g.getDpsInitOperand(0)->get())) {
    why = "not a single reduction into a filled output";
    return failure();
  }
  return g;
}

FailureOr<std::string> cuda_agent::builtin::writeOutputStores(
    const LinalgRegion &region,
    ArrayRef<std::pair<Value, std::string>> accumulators,
    ArrayRef<std::string> accIdx, ArrayRef<std::string> idx, StringRef indent,
    unsigned &counter, std::string &why) {
  std::string epilogue;
  StatementWriter writer(epilogue, counter);
  ElementEvaluator eval(region, writer);
  for (const auto &[result, name] : accumulators)
    eval.knownAt[result] = {SmallVector<std::string>(accIdx), name};
  std::string stores;
  for (auto [o, result] : llvm::enumerate(region.outputs)) {
    FailureOr<std::string> value = eval.valueAt(result, idx, why);
    if (failed(value))
      return failure();
    stores += llvm::formatv("{0}out{1}[e] = {2};\n", indent, o,
                            storeAs(elementOf(result), *value))
                  .str();
  }
  return epilogue + stores;
}

FailureOr<Variant> cuda_agent::builtin::writeSplitReduction(
    const LinalgRegion &region, const GpuTarget &target,
    const SplitShape &shape, std::string &why) {
  FailureOr<linalg::GenericOp> found = findSplitReduction(region, why);
  if (failed(found))
    return failure();
  linalg::GenericOp g = *found;
  Value red = g.getResult(0);
  ArrayRef<int64_t> outShape = shapeOf(red);
  int64_t total = product(outShape);
  int vector = widestVector(region, outShape.back());
  if (vector < 2 || shape.columns % vector ||
      kThreads % (shape.columns / vector)) {
    why = "a split reduction needs output rows of whole vectors";
    return failure();
  }
  int group = shape.columns / vector; // threads along a row
  int rows = kThreads / group;        // rows of threads in a block
  int unroll = shape.unroll;
  Block &reduceBody = g.getRegion().front();
  BlockArgument accArg = reduceBody.getArgument(g.getNumDpsInputs());
  FailureOr<Combiner> combiner = findCombiner(reduceBody, accArg, why);
  if (failed(combiner))
    return failure();

  // The outermost reduced loop is sliced; the others run whole inside it.
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
  int outer = -1;
  std::string innerLoops, innerClose;
  for (auto [d, type] : llvm::enumerate(iterators)) {
    if (type != utils::IteratorType::reduction)
      continue;
    if (outer < 0) {
      outer = d;
      continue;
    }
    innerLoops +=
        llvm::formatv("    for (long long r{0} = 0; r{0} < {1}LL; ++r{0}) {{\n",
                      d, ranges[d])
            .str();
    innerClose += "    }\n";
  }
  int64_t length = ranges[outer];
  int64_t columnBlocks = (total + shape.columns - 1) / shape.columns;
  // As many slices as fill the SMs, each at least two steps of every row of
  // threads.
  int64_t slices = std::min<int64_t>(
      int64_t(shape.blocksPerSm) * target.smCount / columnBlocks,
      length / (2 * rows * unroll));
  slices = std::min<int64_t>(slices, 65535);
  if (slices < 2) {
    why = "the outputs fill the SMs without splitting the reduction";
    return failure();
  }
  int64_t slice = (length + slices - 1) / slices;
  slices = (length + slice - 1) / slice;

  // The output indices of lane k of the thread's chunk: (i0), ..., (iN + k).
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  int rank = outShape.size();
  auto laneIndex = [&](int lane) {
    SmallVector<std::string> idx;
    for (int d = 0; d < rank; ++d)
      idx.push_back("(i" + std::to_string(d) + ")");
    if (lane > 0)
      idx.back() = llvm::formatv("(i{0} + {1})", rank - 1, lane).str();
    return idx;
  };
  std::string row = "r" + std::to_string(outer);

  // The combiner's term at every lane of row step `step`, into the
  // accumulators a<step>_<lane>.
  unsigned counter = 0;
  int vectorLoads = 0;
  auto writeStep = [&](int step, std::string &text) -> LogicalResult {
    StatementWriter writer(text, counter);
    ElementEvaluator eval(region, writer);
    int lane = 0;
    std::string laneLast;
    // Vectors read at lane 0, by input and leading indices; scalars by input
    // and indices (one x[k] for the lanes).
    std::map<std::string, std::string> vectors, scalars;
    eval.setInputReader([&](unsigned i, ArrayRef<std::string> idx) {
      Value in = region.inputs[i];
      Type type = elementOf(in);
      if (!idx.empty() && idx.back() == laneLast &&
          shapeOf(in).back() == outShape.back()) {
        std::string key =
            std::to_string(i) + "|" + join(idx.drop_back(), "|");
        if (lane == 0) {
          vectors[key] = loadVector(writer, type, vector,
                                    "in" + std::to_string(i) + " + " +
                                        linearize(idx, shapeOf(in)),
                                    /*stream=*/true);
          ++vectorLoads;
        }
        if (auto it = vectors.find(key); it != vectors.end())
          return laneOf(type, it->second, lane);
      }
      std::string key = std::to_string(i) + "@" + join(idx, "|");
      auto [it, fresh] = scalars.try_emplace(key);
      if (fresh)
        it->second = eval.loadAt(i, idx);
      return it->second;
    });
    for (lane = 0; lane < vector; ++lane) {
      SmallVector<std::string> at(ranges.size());
      SmallVector<std::string> idx = laneIndex(lane);
      laneLast = idx.back();
      for (unsigned r = 0; r < outMap.getNumResults(); ++r)
        at[outMap.getDimPosition(r)] = idx[r];
      for (auto [d, type] : llvm::enumerate(iterators))
        if (type == utils::IteratorType::reduction)
          at[d] = "r" + std::to_string(d);
      if (step > 0)
        at[outer] = llvm::formatv("({0} + {1}LL)", row, step * rows).str();
      eval.forget();
      llvm::DenseMap<Value, std::string> names;
      if (failed(eval.bindOperands(g, at, names, why, accArg)) ||
          failed(writer.writeBlock(reduceBody, names, at, combiner->op, why)))
        return failure();
      std::string term =
          names.lookup(combiner->op->getOperand(combiner->otherOperand));
      std::string acc = llvm::formatv("a{0}_{1}", step, lane).str();
      text += "    " + acc + " = " + combiner->combine(acc, term) + ";\n";
    }
    return success();
  };

  std::string ctype = getCType(elementOf(red))->compute;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "partial", kThreads, true) + " {\n";
  src += llvm::formatv(
             "  __shared__ {0} part[{1}][{2}];\n"
             "  const int t = threadIdx.x % {3}, l = threadIdx.x / {3};\n"
             "  long long e = ((long long)blockIdx.x * {3} + t) * {4};\n"
             "  if (e >= {5}LL)\n    e = {5}LL - {4};\n",
             ctype, rows, shape.columns, group, vector, total)
             .str();
  SmallVector<std::string> chunk = delinearize("e", outShape);
  for (int d = 0; d < rank; ++d)
    src += llvm::formatv("  const long long i{0} = {1};\n", d, chunk[d]).str();
  for (int step = 0; step < unroll; ++step)
    for (int lane = 0; lane < vector; ++lane)
      src += llvm::formatv("  {0} a{1}_{2} = {3};\n", ctype, step, lane,
                           combiner->identity)
                 .str();
  src += llvm::formatv(
             "  const long long end = {0}LL * (blockIdx.y + 1) < {1}LL ? "
             "{0}LL * (blockIdx.y + 1) : {1}LL;\n"
             "  long long {2} = {0}LL * blockIdx.y + l;\n"
             "  for (; {2} + {3}LL < end; {2} += {4}LL) {{\n",
             slice, length, row, (unroll - 1) * rows, unroll * rows)
             .str();
  src += innerLoops;
  for (int step = 0; step < unroll; ++step)
    if (failed(writeStep(step, src)))
      return failure();
  src += innerClose + "  }\n";
  if (vectorLoads == 0) {
    why = "no input of the reduction is read a vector of outputs at a time";
    return failure();
  }
  src += llvm::formatv("  for (; {0} < end; {0} += {1}LL) {{\n", row, rows)
             .str();
  src += innerLoops;
  if (failed(writeStep(0, src)))
    return failure();
  src += innerClose + "  }\n";
  // The thread's accumulators in step order, then the block's rows of
  // threads in order.
  for (int lane = 0; lane < vector; ++lane) {
    std::string acc = llvm::formatv("a0_{0}", lane).str();
    for (int step = 1; step < unroll; ++step)
      src += llvm::formatv("  {0} = {1};\n", acc,
                           combiner->combine(
                               acc, llvm::formatv("a{0}_{1}", step, lane).str()))
                 .str();
    src += llvm::formatv("  part[l][t * {0} + {1}] = {2};\n", vector, lane, acc)
               .str();
  }
  src += llvm::formatv(
             "  __syncthreads();\n"
             "  {0} *const parts = reinterpret_cast<{0} *>(workspace);\n"
             "  for (int c = threadIdx.x; c < {1}; c += {2}) {{\n"
             "    const long long o = (long long)blockIdx.x * {1} + c;\n"
             "    if (o >= {3}LL)\n      continue;\n"
             "    {0} acc = part[0][c];\n"
             "    for (int q = 1; q < {4}; ++q)\n"
             "      acc = {5};\n"
             "    parts[blockIdx.y * {3}LL + o] = acc;\n"
             "  }\n}\n\n",
             ctype, shape.columns, kThreads, total, rows,
             combiner->combine("acc", "part[q][c]"))
             .str();

  // finish: the init, the slices in order, the epilogue.
  src += kernelSignature(region, "finish", kThreads, true) + " {\n";
  src += llvm::formatv(
             "  const long long e = (long long)blockIdx.x * {0} + threadIdx.x;\n"
             "  if (e >= {1}LL)\n    return;\n"
             "  const {2} *const parts = reinterpret_cast<const {2} "
             "*>(workspace);\n"
             "  {2} acc = {3};\n"
             "  for (int s = 0; s < {4}; ++s)\n"
             "    acc = {5};\n",
             kThreads, total, ctype,
             region.splats.lookup(g.getDpsInitOperand(0)->get()), slices,
             combiner->combine("acc", "parts[s * " + std::to_string(total) +
                                          "LL + e]"))
             .str();
  SmallVector<std::string> idx = delinearize("e", outShape);
  FailureOr<std::string> stores =
      writeOutputStores(region, {std::pair(red, std::string("acc"))}, idx, idx,
                        "  ", counter, why);
  if (failed(stores))
    return failure();
  src += *stores + "}\n";
  int64_t bytes = ctype == "double" ? 8 : 4;
  return Variant{
      llvm::formatv("split-s{0}-c{1}-u{2}", slices, shape.columns, unroll)
          .str(),
      std::move(src),
      {{"partial", {columnBlocks, slices, 1}, {kThreads, 1, 1}},
       {"finish", {(total + kThreads - 1) / kThreads, 1, 1}, {kThreads, 1, 1}}},
      slices * total * bytes};
}
