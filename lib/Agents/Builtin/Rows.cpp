//===- Rows.cpp - Row programs: a group of threads per row ----------------===//
//
// Writes the row kernel of a row program (RowAnalysis.cpp recognizes them):
// a warp or a block per row, the row's inputs in registers when they fit,
// one pass per reduction combined by warp shuffles and through shared
// memory, and a last pass for the whole-row outputs.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"
#include "KernelText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

//===----------------------------------------------------------------------===//
// The row kernel.
//===----------------------------------------------------------------------===//

namespace {
/// How an input read in a row pass is indexed: the whole row, one value per
/// row, one value per column, one per column of each group of rows (the
/// leading row dimensions: a batched matrix-vector product's vectors), or
/// another projection of the loops (a group norm's weight, per group and
/// channel of the group), read one element at a time.
enum class RowClass { Full, PerRow, PerCol, PerGroupCol, Projection };
} // namespace

int64_t cuda_agent::builtin::chunkColumns(int64_t cols, int64_t chunks,
                                          int vector) {
  return ((cols + chunks - 1) / chunks + vector - 1) / vector * vector;
}

RowKernelWriter::RowKernelWriter(const LinalgRegion &region, const RowShape &rs,
                                 const RowPlan &plan, std::string &why)
    : region(region), rs(rs), group(plan.group),
      blockThreads(plan.blockThreads), vector(plan.vector), cache(plan.cache),
      splits(plan.splits), stream(plan.stream), cluster(plan.cluster),
      staged(plan.staged), exchange(plan.exchange), why(why) {
  step = int64_t(group) * vector;
  per = (rs.cols + step - 1) / step;
  split = splits > 1;
  // A split row's chunks are blocks of a launch, a cluster row's the blocks
  // of a cluster.
  int64_t chunks = cluster > 1 ? cluster : splits;
  chunk = chunkColumns(rs.cols, chunks, vector);
  rowsPerBlock = blockThreads / group;
  rowIdx = delinearize("row", rs.rowDims);
  rowStart = rs.offsetOf("row", "c");
  fullShape = rs.fullShape();
  for (auto [o, out] : llvm::enumerate(region.outputs))
    if (isWholeRows(out, rs))
      fullOutputs.push_back(o);
  // A cluster row's values are in every block: the first one writes.
  if (cluster > 1)
    rowValueWriter = "t == 0 && part == 0";
}

FailureOr<Variant> RowKernelWriter::write() {
  if (split && failed(checkSplit()))
    return failure();
  if (cluster > 1 && failed(checkCluster()))
    return failure();
  src =
      getPrelude().str() + "\n" +
      kernelSignature(region, split ? "partial" : "rows", blockThreads,
                      split || exchange) +
      " {\n";
  if (split)
    writeChunkHeader();
  else if (cluster > 1)
    writeClusterHeader();
  else
    writeRowHeader();
  if (cache)
    writeCachedInputs();
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g)) {
      if (g.getNumLoops() != rs.rowDims.size() || rs.perColumn.contains(g))
        continue; // over the whole row or per column: inlined where read
      if (failed(writePerRowGeneric(g)))
        return failure();
      continue;
    }
    if (moments.count(g)) {
      // From sums of the first pass, now that its m is known.
      if (failed(writeCenteredMoment(g)))
        return failure();
      continue;
    }
    if (computedEarlier.contains(g))
      continue; // computed in an earlier reduction's pass
    if (failed(writeReduction(g)))
      return failure();
  }
  // The outputs: whole rows in a last pass, one value per row from thread 0.
  if (failed(writePerRowOutputs()))
    return failure();
  if (!fullOutputs.empty() && failed(writeWholeRowOutputs()))
    return failure();
  if (cluster > 1)
    return makeClusterVariant();
  src += "}\n";
  return split ? makeSplitVariant() : makeRowsVariant();
}

void RowKernelWriter::writeRowHeader() {
  src += llvm::formatv("  const long long row = (long long)blockIdx.x * {0} "
                       "+ threadIdx.x / {1};\n"
                       "  const int t = threadIdx.x % {1};\n",
                       rowsPerBlock, group)
             .str();
  if (rowsPerBlock > 1)
    src += llvm::formatv("  if (row >= {0}LL)\n    return;\n", rs.rows).str();
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
        llvm::formatv("    if (c >= {0}LL)\n      continue;\n", rs.cols).str();
}

void RowKernelWriter::writeCachedInputs() {
  SmallVector<unsigned> fullInputs;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    if (shapeOf(in) == ArrayRef<int64_t>(fullShape))
      fullInputs.push_back(i);
  StatementWriter writer(src, counter);
  for (unsigned i : fullInputs) {
    Type type = elementOf(region.inputs[i]);
    src += llvm::formatv("  {0} x{1}[{2}][{3}];\n", getCType(type)->compute, i,
                         per, vector)
               .str() +
           stepLoop;
    std::string ptr = "in" + std::to_string(i) + " + " + rowStart;
    std::string vec = loadVector(writer, type, vector, ptr, stream);
    for (int v = 0; v < vector; ++v)
      src +=
          llvm::formatv("    x{0}[j][{1}] = {2};\n", i, v, laneOf(type, vec, v))
              .str();
    src += "  }\n";
  }
}

FailureOr<std::string>
RowKernelWriter::writePass(EmitFn emit,
                           const llvm::DenseMap<Value, std::string> &known,
                           ArrayRef<Value> capture) {
  std::string decls, body;
  StatementWriter writer(body, counter);
  for (auto &entry : known)
    writer.markInvariant(entry.second);
  ElementEvaluator eval(region, writer);
  eval.known = known;
  int lane = 0;
  llvm::DenseMap<unsigned, std::string> loaded;
  llvm::DenseMap<Value, std::string> stagedLoads;
  // The lane's column indices and loop indices, which the classes compare
  // the indices an input is read at with.
  SmallVector<std::string> colIdx, loopIdx;
  eval.setInputReader([&](unsigned i, ArrayRef<std::string> idx) -> std::string {
    std::string ref = "in" + std::to_string(i);
    Type type = elementOf(region.inputs[i]);
    ArrayRef<int64_t> shape = shapeOf(region.inputs[i]);
    // The leading row dimensions a per-group-column read would take (none
    // where the read has no more indices than the columns, or more than
    // the loops).
    size_t groupDims = idx.size() > colIdx.size() &&
                               idx.size() <= loopIdx.size() && rs.isTrailing()
                           ? idx.size() - colIdx.size()
                           : 0;
    auto readsAs = [&](ArrayRef<std::string> want,
                       ArrayRef<int64_t> wantShape) {
      return idx == want && shape == wantShape;
    };
    SmallVector<std::string> groupIdx(rowIdx.begin(),
                                      rowIdx.begin() + groupDims);
    groupIdx.append(colIdx);
    SmallVector<int64_t> groupShape(rs.rowDims.begin(),
                                    rs.rowDims.begin() + groupDims);
    groupShape.append(rs.colDims);
    RowClass cls = readsAs(rowIdx, rs.rowDims)    ? RowClass::PerRow
                   : readsAs(loopIdx, fullShape)  ? RowClass::Full
                   : readsAs(colIdx, rs.colDims) && rs.isTrailing()
                       ? RowClass::PerCol
                   : groupDims > 0 && readsAs(groupIdx, groupShape)
                       ? RowClass::PerGroupCol
                       : RowClass::Projection;
    switch (cls) {
    case RowClass::Full:
      if (cache)
        return "x" + std::to_string(i) + "[j][" + std::to_string(lane) + "]";
      if (auto it = stagedInputs.find(i); it != stagedInputs.end()) {
        // The block's chunk of the row, staged in shared memory.
        std::string at = it->second + " + (c - begin)";
        if (lane == 0)
          loaded[i] = loadVector(writer, type, vector, at, false);
        return laneOf(type, loaded[i], lane);
      }
      [[fallthrough]];
    case RowClass::PerCol:
    case RowClass::PerGroupCol: {
      // Consecutive columns: lane 0 reads the step's lanes at once.
      std::string at = cls == RowClass::Full ? rowStart
                       : cls == RowClass::PerCol
                           ? "c"
                           : "(row / " +
                                 std::to_string(product(ArrayRef<int64_t>(
                                     rs.rowDims).drop_front(groupDims))) +
                                 ") * " + std::to_string(rs.cols) + "LL + c";
      if (vector == 1)
        return eval.loadElement(i, at);
      if (lane == 0)
        loaded[i] = loadVector(writer, type, vector, ref + " + " + at,
                               stream && cls == RowClass::Full);
      return laneOf(type, loaded[i], lane);
    }
    case RowClass::PerRow:
      return eval.loadElement(i, "row");
    case RowClass::Projection:
      return eval.loadAt(i, idx);
    }
    return "0";
  });
  for (lane = 0; lane < vector; ++lane) {
    colIdx = delinearize("c + " + std::to_string(lane), rs.colDims);
    loopIdx = rs.loopIndices(rowIdx, colIdx);
    SmallVector<std::string> idx = loopIdx;
    eval.forget();
    eval.knownAt.clear();
    for (auto &[tensor, array] : cachedTensors)
      eval.knownAt[tensor] = {idx, array + "[j][" + std::to_string(lane) + "]"};
    for (auto &[tensor, staging] : stagedTensors) {
      // A whole-row tensor kept in the staged chunk, times a value per row.
      Type type = elementOf(tensor);
      if (lane == 0)
        stagedLoads[tensor] = loadVector(writer, type, vector,
                                         staging.first + " + (c - begin)",
                                         false);
      eval.knownAt[tensor] = {idx, "(" +
                                       laneOf(type, stagedLoads[tensor], lane) +
                                       " * " + staging.second + ")"};
    }
    if (failed(emit(eval, lane, idx, why)))
      return failure();
    for (auto [k, tensor] : llvm::enumerate(capture)) {
      FailureOr<std::string> value = eval.valueAt(tensor, idx, why);
      if (failed(value))
        return failure();
      std::string array = "p" + std::to_string(cachedTensors.size() + k);
      if (lane == 0)
        decls += llvm::formatv("  {0} {1}[{2}][{3}];\n",
                               getCType(elementOf(tensor))->compute, array, per,
                               vector)
                     .str();
      body += "    " + array + "[j][" + std::to_string(lane) + "] = " + *value +
              ";\n";
    }
  }
  unsigned first = cachedTensors.size();
  for (auto [k, tensor] : llvm::enumerate(capture))
    cachedTensors[tensor] = "p" + std::to_string(first + k);
  return decls + stepLoop + body + "  }\n";
}

FailureOr<std::string> RowKernelWriter::writePerRow(
    llvm::function_ref<LogicalResult(ElementEvaluator &)> emit) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  eval.known = known;
  // One value per row, or a projection of the row's indices (a bias per
  // channel added to a reduction over the rest).
  eval.setInputReader([&](unsigned i, ArrayRef<std::string> idx) {
    if (idx == ArrayRef<std::string>(rowIdx) &&
        shapeOf(region.inputs[i]) == ArrayRef<int64_t>(rs.rowDims))
      return eval.loadElement(i, "row");
    return eval.loadAt(i, idx);
  });
  if (failed(emit(eval)))
    return failure();
  return body;
}

LogicalResult RowKernelWriter::writePerRowGeneric(linalg::GenericOp g) {
  // One value per row: every thread computes it.
  FailureOr<SmallVector<std::string>> values;
  FailureOr<std::string> body = writePerRow([&](ElementEvaluator &eval) {
    values = eval.evaluate(g, rowIdx, why);
    return LogicalResult(values);
  });
  if (failed(body))
    return failure();
  src += *body;
  rowPrefix += *body;
  for (auto [r, result] : llvm::enumerate(g.getResults()))
    known[result] = (*values)[r];
  return success();
}

/// Whether `g` reads nothing a row kernel computes per row (no reduction
/// and no generic over the rows is in its backward slice within the
/// region): its pass may run at any point of the row kernel.
bool cuda_agent::builtin::readsNothingPerRow(linalg::GenericOp g,
                                             const RowShape &rs) {
  SmallVector<Operation *> work{g};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    for (Value v : op->getOperands()) {
      auto producer = v.getDefiningOp<linalg::GenericOp>();
      if (!producer)
        continue;
      if (isReduction(producer) ||
          producer.getNumLoops() == rs.rowLoops.size())
        return false;
      work.push_back(producer);
    }
  }
  return true;
}

LogicalResult RowKernelWriter::writeReduction(linalg::GenericOp g) {
  /// One reduction of the pass: its body, accumulator and combiner.
  struct PassReduction {
    linalg::GenericOp op;
    BlockArgument accArg;
    Combiner combiner;
    std::string ctype, acc;
  };
  auto describe = [](linalg::GenericOp r,
                     std::string &why) -> FailureOr<PassReduction> {
    Block &body = r.getRegion().front();
    BlockArgument accArg = body.getArgument(r.getNumDpsInputs());
    FailureOr<Combiner> combiner = findCombiner(body, accArg, why);
    if (failed(combiner))
      return failure();
    return PassReduction{r, accArg, *combiner,
                         getCType(elementOf(r.getResult(0)))->compute, ""};
  };
  if (split && reductions > 0) {
    why = "a split row reads its row in one pass, and this reduction reads a "
          "value of the row that an earlier one gives";
    return failure();
  }
  FailureOr<PassReduction> first = describe(g, why);
  if (failed(first))
    return failure();
  // A row streamed from memory (not in registers): the max and the sum of
  // exp(x - max) in one pass, the sum rescaled whenever the max grows.
  // (A row staged in shared memory is read again cheaply: the plain passes
  // have no branches; but where the blocks of a row exchange through memory,
  // each combination is a wait for the row's slowest block: one, not two.)
  if (linalg::GenericOp sum;
      !cache && (!staged || exchange) && group > 1 &&
      first->ctype == "float" &&
      (sum = findExpSum(region, g, first->combiner))) {
    computedEarlier.insert(sum);
    if (failed(writeOnlineSoftmax(g, sum, first->combiner,
                                  "acc" + std::to_string(reductions),
                                  reductions)))
      return failure();
    ++reductions;
    return success();
  }
  // Later reductions that read nothing computed per row (a batch norm's
  // f32 sum beside its f64 one) join this pass: one read of the row for
  // both. Not a max that online softmax pairs with its sum.
  SmallVector<PassReduction> pass{*first};
  for (linalg::GenericOp h : region.generics) {
    if (!isReduction(h) || h == g || computedEarlier.contains(h) ||
        !g->isBeforeInBlock(h) || !readsNothingPerRow(h, rs))
      continue;
    // One whose combiner is not found is refused in its own pass.
    std::string unused;
    FailureOr<PassReduction> next = describe(h, unused);
    if (failed(next) || findExpSum(region, h, next->combiner))
      continue;
    computedEarlier.insert(h);
    pass.push_back(*next);
  }
  for (auto [k, r] : llvm::enumerate(pass)) {
    r.acc = "acc" + std::to_string(reductions + k);
    src += "  " + r.ctype + " " + r.acc + " = " + r.combiner.identity + ";\n";
  }
  // The first pass also sums what the centered moments need.
  bool firstPass = reductions == 0;
  if (firstPass) {
    SmallVector<std::pair<linalg::GenericOp, std::string>> sums;
    for (PassReduction &r : pass)
      sums.push_back({r.op, r.acc});
    findCenteredMoments(g, sums);
  }
  // Whole-row values these reductions read that later passes may read again.
  SmallVector<Value> capture;
  if (cache)
    for (PassReduction &r : pass)
      for (Value in : r.op.getDpsInputs())
        if (auto producer = in.getDefiningOp<linalg::GenericOp>();
            producer && !isReduction(producer) &&
            producer.getNumLoops() == fullShape.size() &&
            !cachedTensors.count(in) && !llvm::is_contained(capture, in))
          capture.push_back(in);
  FailureOr<std::string> loop = writePass(
      [&](ElementEvaluator &eval, int, ArrayRef<std::string> idx,
          std::string &why) -> LogicalResult {
        for (PassReduction &r : pass) {
          llvm::DenseMap<Value, std::string> names;
          if (failed(eval.bindOperands(r.op, idx, names, why, r.accArg)))
            return failure();
          StatementWriter &writer = eval.getWriter();
          if (failed(writer.writeBlock(r.op.getRegion().front(), names, idx,
                                       r.combiner.op, why)))
            return failure();
          std::string mapped =
              names.lookup(r.combiner.op->getOperand(r.combiner.otherOperand));
          writer.append("    " + r.acc + " = " +
                        r.combiner.combine(r.acc, mapped) + ";\n");
        }
        return firstPass ? accumulateMoments(eval, idx, why) : success();
      },
      known, capture);
  if (failed(loop))
    return failure();
  src += *loop;
  SmallVector<PassAccumulator> accs;
  for (PassReduction &r : pass)
    accs.push_back({r.combiner, r.ctype, r.acc});
  if (firstPass)
    addMomentAccumulators(accs);
  combineAcross(accs);
  for (PassReduction &r : pass)
    writeReducedValue(r.op, r.combiner, r.ctype, r.acc);
  return success();
}

void RowKernelWriter::writeReducedValue(linalg::GenericOp g,
                                        const Combiner &combiner,
                                        const std::string &ctype,
                                        const std::string &acc) {
  // The fill's value enters once.
  std::string init = region.splats.lookup(g.getDpsInitOperand(0)->get());
  std::string result = "red" + std::to_string(reductions);
  src += "  const " + ctype + " " + result + " = " +
         combiner.combine(init, acc) + ";\n";
  known[g.getResult(0)] = result;
  ++reductions;
}

std::string
RowKernelWriter::warpCombineOf(const PassAccumulator &a) const {
  return llvm::formatv("  for (int o = 16; o > 0; o /= 2)\n"
                       "    {0} = {1};\n",
                       a.acc,
                       a.combiner.combine(a.acc, "__shfl_xor_sync(0xffffffffu, " +
                                                     a.acc + ", o)"))
      .str();
}

std::string RowKernelWriter::combineInGroup(const PassAccumulator &a) {
  std::string text;
  if (group > 1) // a thread per row (interleaved rows) has it all
    text += warpCombineOf(a);
  if (group > 32) {
    std::string part = "part" + std::to_string(blockCombines);
    text += llvm::formatv("  __shared__ {0} {1}[32];\n"
                          "  if (t % 32 == 0)\n    {1}[t / 32] = {2};\n"
                          "  __syncthreads();\n"
                          "  {2} = {1}[0];\n"
                          "  for (int w = 1; w < {3}; ++w)\n    {2} = {4};\n",
                          a.ctype, part, a.acc, group / 32,
                          a.combiner.combine(a.acc, part + "[w]"))
                .str();
  }
  ++blockCombines;
  return text;
}

void RowKernelWriter::combineAcross(ArrayRef<PassAccumulator> accs) {
  // Across the group: shuffles within each warp, then the warps' partials
  // through shared memory; every thread ends with the same value.
  SmallVector<std::string> warpCombines;
  for (const PassAccumulator &a : accs) {
    warpCombines.push_back(warpCombineOf(a));
    src += combineInGroup(a);
  }
  if (split)
    writeSplitReduction(accs, warpCombines);
  if (cluster > 1 && exchange) {
    // One exchange for all of the pass's values: one wait for the row.
    SmallVector<std::string> ctypes, values;
    for (const PassAccumulator &a : accs) {
      ctypes.push_back(a.ctype);
      values.push_back(a.acc);
    }
    writeExchangeCombine(ctypes, "cl" + std::to_string(clusterCombines++),
                         values,
                         [&](ArrayRef<std::string> into,
                             ArrayRef<std::string> other) {
                           std::string text;
                           for (auto [a, i, o] : llvm::zip(accs, into, other))
                             text += "    " + i + " = " +
                                     a.combiner.combine(i, o) + ";\n";
                           return text;
                         });
  } else if (cluster > 1) {
    for (const PassAccumulator &a : accs)
      writeClusterCombine(a.ctype, a.acc, [&](ArrayRef<std::string> into,
                                              ArrayRef<std::string> other) {
        return "    " + into[0] + " = " +
               a.combiner.combine(into[0], other[0]) + ";\n";
      });
  }
}

LogicalResult RowKernelWriter::writePerRowOutputs() {
  for (auto [o, out] : llvm::enumerate(region.outputs)) {
    if (isWholeRows(out, rs))
      continue; // written in the last pass
    FailureOr<std::string> value;
    FailureOr<std::string> body = writePerRow([&](ElementEvaluator &eval) {
      value = eval.valueAt(out, rowIdx, why);
      return LogicalResult(value);
    });
    if (failed(body))
      return failure();
    src += *body + "  if (" + rowValueWriter + ")\n    out" +
           std::to_string(o) +
           "[row] = " + storeAs(elementOf(out), *value) + ";\n";
  }
  return success();
}

LogicalResult RowKernelWriter::writeWholeRowOutputs() {
  SmallVector<SmallVector<std::string>> lanes(fullOutputs.size());
  SmallVector<linalg::GenericOp> transposes;
  for (unsigned o : fullOutputs)
    transposes.push_back(getTransposedRows(region.outputs[o], rs));
  FailureOr<std::string> loop = writePass(
      [&](ElementEvaluator &eval, int lane, ArrayRef<std::string> idx,
          std::string &why) -> LogicalResult {
        StatementWriter &writer = eval.getWriter();
        for (auto [k, o] : llvm::enumerate(fullOutputs)) {
          Value out = region.outputs[o];
          linalg::GenericOp transpose = transposes[k];
          FailureOr<std::string> v = eval.valueAt(
              transpose ? transpose.getDpsInputs()[0] : out, idx, why);
          if (failed(v))
            return failure();
          if (!transpose) {
            lanes[k].push_back(*v);
            continue;
          }
          // The element the transpose moves this one to, stored alone.
          AffineMap map =
              transpose.getMatchingIndexingMap(transpose.getDpsInputOperand(0));
          SmallVector<std::string> element(idx.size());
          for (auto [i, index] : llvm::enumerate(idx))
            element[map.getDimPosition(i)] = index;
          writer.append("    out" + std::to_string(o) + "[" +
                        linearize(element, shapeOf(out)) +
                        "] = " + storeAs(elementOf(out), *v) + ";\n");
        }
        if (lane + 1 < vector)
          return success();
        // After the last lane: the stores of the rows in place.
        for (auto [k, o] : llvm::enumerate(fullOutputs))
          if (!lanes[k].empty())
            writer.append(storeVector(
              elementOf(region.outputs[o]),
              "out" + std::to_string(o) + " + " + rowStart, lanes[k]));
        return success();
      },
      known);
  if (failed(loop))
    return failure();
  src += *loop;
  return success();
}

Variant RowKernelWriter::makeRowsVariant() const {
  int64_t blocks = (rs.rows + rowsPerBlock - 1) / rowsPerBlock;
  return Variant{llvm::formatv("rows-g{0}-b{1}-v{2}{3}{4}", group, blockThreads,
                               vector, cache ? "-cached" : "",
                               stream ? "-stream" : "")
                     .str(),
                 src,
                 {{"rows", {blocks, 1, 1}, {blockThreads, 1, 1}}}};
}

FailureOr<Variant> cuda_agent::builtin::writeRows(const LinalgRegion &region,
                                                  const RowShape &rs,
                                                  const RowPlan &plan,
                                                  std::string &why) {
  return RowKernelWriter(region, rs, plan, why).write();
}

//===----------------------------------------------------------------------===//
// The strategy.
//===----------------------------------------------------------------------===//

namespace {

/// Row programs: a group of threads per row.
class RowsStrategy final : public Strategy {
public:
  StringRef getName() const override { return "rows"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    if (isElementwise(region))
      return false;
    FailureOr<RowShape> rows = analyzeRows(region, why);
    if (failed(rows))
      return false;
    // A lone reduction down interleaved rows with no whole-row output is
    // the serial and split kernels' (SerialReduction.cpp), which read
    // wider.
    if (rows->isInterleaved() &&
        findSingleReduction(region) &&
        llvm::none_of(region.outputs,
                      [&](Value out) { return isWholeRows(out, *rows); })) {
      why = "a single reduction over outer loops into values per row";
      return false;
    }
    return true;
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &,
                   Precision, VariantList &list) const override {
    std::string reason;
    RowShape rows = *analyzeRows(region, reason);
    int vector = widestVector(region, rows.innermostRun());
    auto rowVariant = [&](int group, int block, bool stream = false) {
      int64_t per =
          (rows.cols + int64_t(group) * vector - 1) / (int64_t(group) * vector);
      list.add(writeRows(region, rows,
                         {group, block, vector, per * vector <= 64, 1, stream},
                         reason),
               reason);
    };
    // Interleaved rows: a thread per row, a warp's loads 32 consecutive
    // rows at one column.
    if (rows.isInterleaved()) {
      rowVariant(1, 256);
      rowVariant(1, 128);
      return;
    }
    if (rows.cols <= 1024) {
      rowVariant(32, 256);
      rowVariant(128, 128);
      return;
    }
    rowVariant(256, 256);
    rowVariant(512, 512);
    rowVariant(128, 128);
    rowVariant(1024, 1024);
    // One reduction reads the row once either way: a warp per row
    // streaming it, no block barrier between rows.
    if (findSingleReduction(region))
      rowVariant(32, 256);
    // The same rows read as read-once data (16-byte accesses only).
    if (vector * narrowestBytes(region) == 16) {
      rowVariant(1024, 1024, true);
      rowVariant(512, 512, true);
    }
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getRowsStrategy() {
  static const RowsStrategy strategy;
  return strategy;
}
