//===- ConvReduction.cpp - A reduction over a convolution's channels ------===//
//
// KernelBench's "conv, scale, then a min over the channels" is one region
// (the outliner fuses a reduction over a convolution's output channels into
// it): the tensor-core kernels write it with the reduction in their tail. A
// block's tile holds every output channel of its rows (the product's
// columns), so the product is reduced where it is computed and never
// stored: each thread combines the reduction's terms at its accumulators
// row by row, the four lanes of a quad (which hold one row's columns in the
// mma.sync layout) combine theirs by shuffles, the warps along the columns
// through shared memory, and one thread per row combines those with the
// reduction's init and stores the region's outputs at the row.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "ElementEvaluator.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

FailureOr<std::string> cuda_agent::builtin::writeChannelReduction(
    const LinalgRegion &region, const ConvProduct &c, const MmaTiling &t,
    unsigned &counter, std::string &why) {
  linalg::GenericOp red = c.channelReduction;
  if (t.bn < c.N) {
    why = "a reduction over the convolution's channels needs all of them in "
          "one tile: more than " +
          std::to_string(t.bn) + " columns";
    return failure();
  }
  if (red.getNumDpsInputs() != 1 || red.getNumDpsInits() != 1) {
    why = "a reduction over the convolution's channels with other than one "
          "input and one result";
    return failure();
  }
  OpOperand *read = red.getDpsInputOperand(0);
  AffineMap readMap = red.getMatchingIndexingMap(read);
  if (!readMap.isPermutation() || shapeOf(read->get()) != shapeOf(c.result)) {
    why = "a reduction over the convolution's channels that reads a tensor "
          "of another shape or through a map that is not a permutation";
    return failure();
  }
  // The reduced loops are exactly the output's channels (the columns).
  auto iterators = red.getIteratorTypesArray();
  for (auto [p, e] : llvm::enumerate(c.mapOut.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    bool column = llvm::is_contained(c.nDims, d);
    bool reduced = iterators[readMap.getDimPosition(p)] ==
                   utils::IteratorType::reduction;
    if (column != reduced && c.ranges[d] > 1) {
      why = "a reduction after the convolution over other than its output "
            "channels";
      return failure();
    }
  }
  Block &body = red.getRegion().front();
  BlockArgument accArg = body.getArgument(1);
  FailureOr<Combiner> combiner = findCombiner(body, accArg, why);
  if (failed(combiner))
    return failure();
  Value result = red.getResult(0);
  for (Value out : region.outputs)
    if (shapeOf(out) != shapeOf(result)) {
      why = "a region output of another shape than the reduction over the "
            "convolution's channels";
      return failure();
    }
  std::string ctype = getCType(elementOf(result))->compute;
  int mTiles = t.mTiles();
  // The reduction's loop indices at the output's indices `idx`: the
  // permutation's inverse.
  auto loopsAt = [&](ArrayRef<std::string> idx) {
    SmallVector<std::string> at(idx.size());
    for (unsigned p = 0; p < readMap.getNumResults(); ++p)
      at[readMap.getDimPosition(p)] = idx[p];
    return at;
  };

  // Each thread's rows: the terms at its accumulators.
  std::string text = llvm::formatv("  {0} ca_red[{1}][2];\n"
                                   "#pragma unroll\n"
                                   "  for (int i = 0; i < {1}; ++i)\n"
                                   "    ca_red[i][0] = ca_red[i][1] = {2};\n",
                                   ctype, mTiles, combiner->identity)
                         .str();
  text += tiles::mmaStoreLoop(t, c.M, c.N);
  {
    StatementWriter writer(text, counter);
    ElementEvaluator eval(region, writer);
    SmallVector<std::string> loop;
    writer.append(splitLoops(c, "m", "n", "", loop));
    FailureOr<SmallVector<std::string>> idx =
        applyIndexingMap(c.mapOut, loop, why);
    if (failed(idx) || failed(bindProductAt(eval, region, c.init, c.result,
                                            *idx, "acc[i][j][q]", why)))
      return failure();
    SmallVector<std::string> at = loopsAt(*idx);
    llvm::DenseMap<Value, std::string> names;
    if (failed(eval.bindOperands(red, at, names, why, accArg)) ||
        failed(writer.writeBlock(body, names, at, combiner->op, why))) {
      why = "a reduction over the convolution's channels that reads the "
            "product elsewhere than at the element (" +
            why + ")";
      return failure();
    }
    std::string term =
        names.lookup(combiner->op->getOperand(combiner->otherOperand));
    writer.append("        ca_red[i][q / 2] = " +
                  combiner->combine("ca_red[i][q / 2]", term) + ";\n");
  }
  text += "      }\n";

  // A quad's lanes, then the warps along the columns.
  text += llvm::formatv(
              "  __shared__ {0} ca_rows[{1} * {2}];\n"
              "#pragma unroll\n"
              "  for (int i = 0; i < {3}; ++i)\n"
              "#pragma unroll\n"
              "    for (int h = 0; h < 2; ++h) {{\n"
              "      {0} v = ca_red[i][h];\n"
              "      {0} o = __shfl_xor_sync(0xffffffffu, v, 1);\n"
              "      v = {4};\n"
              "      o = __shfl_xor_sync(0xffffffffu, v, 2);\n"
              "      v = {4};\n"
              "      if (tig == 0)\n"
              "        ca_rows[(wm + i * 16 + g + h * 8) * {2} + warp % {2}] "
              "= v;\n"
              "    }\n"
              "  __syncthreads();\n"
              "  for (int r = tid; r < {1}; r += {5}) {{\n"
              "    const long long m = m0 + r;\n"
              "    if (m >= {6}LL)\n"
              "      break;\n"
              "    {0} v = ca_rows[r * {2}];\n"
              "#pragma unroll\n"
              "    for (int w = 1; w < {2}; ++w)\n"
              "      v = {7};\n",
              ctype, t.bm, t.warpsN, mTiles, combiner->combine("v", "o"),
              t.threads(), c.M, combiner->combine("v", "ca_rows[r * " +
                                                          std::to_string(
                                                              t.warpsN) +
                                                          " + w]"))
              .str();

  // The row's outputs: the init combined in, then the region's outputs.
  StatementWriter writer(text, counter);
  ElementEvaluator eval(region, writer);
  SmallVector<std::string> loop;
  writer.append(splitLoops(c, "m", "0", "", loop));
  FailureOr<SmallVector<std::string>> idx =
      applyIndexingMap(c.mapOut, loop, why);
  if (failed(idx))
    return failure();
  SmallVector<std::string> at = loopsAt(*idx);
  for (auto [d, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::reduction)
      at[d] = "0";
  FailureOr<SmallVector<std::string>> outIdx = applyIndexingMap(
      red.getMatchingIndexingMap(red.getDpsInitOperand(0)), at, why);
  if (failed(outIdx))
    return failure();
  FailureOr<std::string> init =
      eval.valueAt(red.getDpsInitOperand(0)->get(), *outIdx, why);
  if (failed(init))
    return failure();
  Type resultType = elementOf(result);
  std::string reduced = combiner->combine(*init, "v");
  if (!resultType.isF32() && ctype == "float")
    reduced = loadAs(resultType, storeAs(resultType, reduced));
  eval.knownAt[result] = {*outIdx, writer.bind(ctype, reduced)};
  for (auto [o, out] : llvm::enumerate(region.outputs)) {
    FailureOr<std::string> value = eval.valueAt(out, *outIdx, why);
    if (failed(value))
      return failure();
    writer.append("        out" + std::to_string(o) + "[" +
                  linearize(*outIdx, shapeOf(out)) +
                  "] = " + storeAs(elementOf(out), *value) + ";\n");
  }
  text += "  }\n}\n";
  return text;
}
