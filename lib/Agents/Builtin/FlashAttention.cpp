//===- FlashAttention.cpp - Attention a block of queries at a time --------===//
//
// An attention region (cuda-agent/Outline/AttentionChains.h): scores
// S = Q K^T through elementwise ops (scales, masks) to X, a softmax over the
// keys written as a max of X, E = exp(X - max), a sum of E and
// probabilities P that are E times values per row (a division by the sum,
// a guard that zeroes a row whose max is -inf), and O = P V. The kernel
// (Dao et al., 2022, "FlashAttention") keeps S and P out of memory: each
// block of four warps takes 64 queries (16 rows a warp), stages their Q in
// shared memory and streams the keys 64 at a time; a step computes the
// warp's 16 x 64 scores with mma.sync 3xTF32 (MatmulTf32.h), evaluates X
// from each score through the region's ops, updates the rows' running max
// and sum (online softmax, OnlineSoftmax.cpp: the sums and the output
// rescaled when the max grows) and adds E V to the output rows, again on
// the tensor cores: the scores' accumulators are the A fragments of the
// second product, its keys taken in the order the accumulators hold them
// (a thread's columns 2t and 2t + 1 as the fragment's k = t and t + 4, V's
// rows read in the same order). Each step's E V is summed apart and added
// to the output in f32 (no accumulator over more than 64 keys). At the end
// the output rows are P's ops applied to the sum of E V: P is linear in E
// (checked: products and quotients by values per row, sums, selects of it
// and zero), so that is the sum of P V; then the second product's
// epilogue.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "Matmul.h"
#include "MatmulTf32.h"
#include "Rows.h"

#include "cuda-agent/Outline/AttentionChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// A block's queries, its warps (16 query rows each) and the keys a step
/// streams.
constexpr int kQueries = 64;
constexpr int kWarps = 4;
constexpr int kKeys = 64;

/// An attention region read from its ops.
struct Attention {
  Contraction scores, output;
  /// The max reductions of X (the softmax's, a guard's), the sum of E.
  SmallVector<Value> maxima;
  linalg::GenericOp max, sum;
  Value x, e, probabilities;
  /// The reshape between the scores and X, and between P and the second
  /// product's operand, where there are.
  Operation *scoreView = nullptr, *probabilityView = nullptr;
  /// Indices of the scores' result (C names `qm`, `kn` and the batch
  /// indices) and of X and P at the same element.
  SmallVector<std::string> scoreIndices, rowIndices;
};

/// The indices of the expanded side of `view` (an expand or collapse shape)
/// at the element whose indices on its collapsed side are `idx`.
SmallVector<std::string> expandedIndices(Operation *view,
                                         ArrayRef<std::string> idx) {
  SmallVector<ReassociationIndices> groups;
  ArrayRef<int64_t> expanded;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(view)) {
    groups = expand.getReassociationIndices();
    expanded = expand.getResultType().getShape();
  } else {
    auto collapse = cast<tensor::CollapseShapeOp>(view);
    groups = collapse.getReassociationIndices();
    expanded = collapse.getSrcType().getShape();
  }
  SmallVector<std::string> out;
  for (auto [group, index] : llvm::zip(groups, idx)) {
    if (group.size() == 1) {
      out.push_back(index);
      continue;
    }
    SmallVector<int64_t> extents;
    for (int64_t d : group)
      extents.push_back(expanded[d]);
    llvm::append_range(out, delinearize(index, extents));
  }
  return out;
}

/// Whether `v` is a float constant zero.
bool isZero(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return f && f.getValue().isZero();
}

/// Whether `e` is exp(x - max): one generic that subtracts and
/// exponentiates, or an exponential of a generic that subtracts, with x read
/// at the element and `max` (a row value) read by the subtraction.
bool isExpOfDifference(Value e, Value x, Value max) {
  auto exp = e.getDefiningOp<linalg::GenericOp>();
  if (!exp || isReduction(exp) || exp.getNumResults() != 1)
    return false;
  Block &body = exp.getRegion().front();
  auto expOp = dyn_cast_or_null<math::ExpOp>(
      body.getTerminator()->getOperand(0).getDefiningOp());
  if (!expOp)
    return false;
  auto inputOf = [](linalg::GenericOp g, Value arg) -> OpOperand * {
    auto blockArg = dyn_cast<BlockArgument>(arg);
    if (!blockArg || blockArg.getOwner() != &g.getRegion().front() ||
        blockArg.getArgNumber() >= g.getNumDpsInputs())
      return nullptr;
    return g.getDpsInputOperand(blockArg.getArgNumber());
  };
  auto isDifference = [&](linalg::GenericOp g, arith::SubFOp sub) {
    OpOperand *lhs = inputOf(g, sub.getLhs()), *rhs = inputOf(g, sub.getRhs());
    return lhs && rhs && lhs->get() == x &&
           g.getMatchingIndexingMap(lhs).isIdentity() && rhs->get() == max;
  };
  // One generic: exp(x - max).
  if (auto sub = expOp.getOperand().getDefiningOp<arith::SubFOp>())
    return sub->getBlock() == &body && isDifference(exp, sub);
  // exp of a generic's x - max.
  OpOperand *d = inputOf(exp, expOp.getOperand());
  if (!d || !exp.getMatchingIndexingMap(d).isIdentity())
    return false;
  auto diff = d->get().getDefiningOp<linalg::GenericOp>();
  if (!diff || isReduction(diff) || diff.getNumResults() != 1)
    return false;
  auto sub = diff.getRegion().front().getTerminator()->getOperand(0)
                 .getDefiningOp<arith::SubFOp>();
  return sub && isDifference(diff, sub);
}

/// Whether every tensor the generics from `e` to `p` compute is linear in
/// `e` with values that do not vary along the keys (loop dimension `key` of
/// those generics): products and quotients by such values, negations, sums
/// of two such tensors and selects between them and zero. Then P's ops
/// applied to a sum of E's values give the sum of P's.
bool isLinearIn(Value p, Value e, unsigned key, std::string &why) {
  llvm::DenseMap<Value, bool> memo;
  std::function<bool(Value)> dependsOnE = [&](Value v) -> bool {
    if (v == e)
      return true;
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    // A reduction's values per row are known where P is computed.
    auto g = v.getDefiningOp<linalg::GenericOp>();
    bool depends = g && !isReduction(g) &&
                   llvm::any_of(g.getDpsInputs(), dependsOnE);
    memo[v] = depends;
    return depends;
  };
  llvm::SmallPtrSet<Operation *, 8> checked;
  std::function<bool(Value)> linear = [&](Value v) -> bool {
    if (v == e)
      return true;
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g || isReduction(g) || g.getNumResults() != 1) {
      why = "the probabilities are not elementwise ops of exp(x - max)";
      return false;
    }
    if (!checked.insert(g).second)
      return true;
    Block &body = g.getRegion().front();
    llvm::DenseSet<Value> dep;
    for (OpOperand *in : g.getDpsInputOperands()) {
      Value arg = body.getArgument(in->getOperandNumber());
      if (dependsOnE(in->get())) {
        if (!linear(in->get()))
          return false;
        dep.insert(arg);
      } else if (g.getMatchingIndexingMap(in).isFunctionOfDim(key)) {
        why = "the probabilities read a tensor that varies along the keys "
              "besides exp(x - max)";
        return false;
      }
    }
    if (!body.getArgument(g.getNumDpsInputs()).use_empty()) {
      why = "an elementwise op of the probabilities reads its init";
      return false;
    }
    auto zeroOrDep = [&](Value x) { return dep.contains(x) || isZero(x); };
    for (Operation &op : body.without_terminator()) {
      bool any = llvm::any_of(op.getOperands(),
                              [&](Value x) { return dep.contains(x); });
      if (!any)
        continue;
      bool ok = false;
      if (isa<arith::MulFOp>(op))
        ok = dep.contains(op.getOperand(0)) != dep.contains(op.getOperand(1));
      else if (isa<arith::DivFOp>(op))
        ok = dep.contains(op.getOperand(0)) && !dep.contains(op.getOperand(1));
      else if (isa<arith::NegFOp>(op))
        ok = true;
      else if (isa<arith::AddFOp, arith::SubFOp>(op))
        ok = dep.contains(op.getOperand(0)) && dep.contains(op.getOperand(1));
      else if (auto select = dyn_cast<arith::SelectOp>(op))
        ok = !dep.contains(select.getCondition()) &&
             zeroOrDep(select.getTrueValue()) &&
             zeroOrDep(select.getFalseValue());
      if (!ok) {
        why = "the probabilities are not linear in exp(x - max) ('" +
              op.getName().getStringRef().str() + "')";
        return false;
      }
      dep.insert(op.getResult(0));
    }
    if (!zeroOrDep(body.getTerminator()->getOperand(0))) {
      why = "the probabilities are not linear in exp(x - max)";
      return false;
    }
    return true;
  };
  if (!dependsOnE(p)) {
    why = "the probabilities do not read exp(x - max)";
    return false;
  }
  return linear(p);
}

/// Reads the region as an attention, or says why it is not one the kernel
/// covers.
FailureOr<Attention> analyzeAttention(const LinalgRegion &region,
                                      std::string &why) {
  Attention a;
  SmallVector<linalg::GenericOp> products, reductions;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    if (linalg::isaContractionOpInterface(g))
      products.push_back(g);
    else
      reductions.push_back(g);
  }
  if (products.size() != 2) {
    why = "not two products";
    return failure();
  }
  FailureOr<Contraction> scores = analyzeContractionOp(products[0], why);
  if (failed(scores))
    return failure();
  FailureOr<Contraction> output = analyzeContractionOp(products[1], why);
  if (failed(output))
    return failure();
  a.scores = *scores;
  a.output = *output;
  for (Value v : {a.scores.a, a.scores.b, a.scores.result, a.output.b,
                  a.output.result})
    if (!elementOf(v).isF32()) {
      why = "an attention of other than f32 tensors";
      return failure();
    }
  if (!isAttentionHeadDim(a.scores.K) || !isAttentionHeadDim(a.output.N)) {
    why = "a head dimension that is not a multiple of " +
          std::to_string(kAttentionHeadDimStep) + " up to " +
          std::to_string(kMaxAttentionHeadDim);
    return failure();
  }
  if (a.scores.N != a.output.K || a.scores.M != a.output.M ||
      a.scores.batch.size() != a.output.batch.size() ||
      a.scores.batches != a.output.batches) {
    why = "the second product does not reduce over the scores' keys";
    return failure();
  }
  for (auto [d1, d2] : llvm::zip(a.scores.batch, a.output.batch))
    if (a.scores.ranges[d1] != a.output.ranges[d2]) {
      why = "the products' batches differ";
      return failure();
    }
  if (!a.scores.initIsSplat(region) || !a.output.initIsSplat(region)) {
    why = "a product that does not start from one value";
    return failure();
  }
  // The softmax: max reductions of one X, one sum of exp(X - max).
  for (linalg::GenericOp r : reductions) {
    if (r.getNumDpsInputs() != 1 || r.getNumResults() != 1 ||
        r.getNumReductionLoops() != 1 ||
        !linalg::isReductionIterator(r.getIteratorTypesArray().back()) ||
        !r.getMatchingIndexingMap(r.getDpsInputOperand(0)).isIdentity()) {
      why = "a reduction that is not over the keys of one tensor";
      return failure();
    }
    Block &body = r.getRegion().front();
    FailureOr<Combiner> combiner =
        findCombiner(body, body.getArgument(1), why);
    if (failed(combiner))
      return failure();
    if (isa<arith::MaximumFOp>(combiner->op)) {
      if (a.x && a.x != r.getDpsInputs()[0]) {
        why = "maxima of two tensors";
        return failure();
      }
      a.x = r.getDpsInputs()[0];
      a.maxima.push_back(r.getResult(0));
      if (!a.max)
        a.max = r;
    } else if (isa<arith::AddFOp>(combiner->op) && !a.sum) {
      a.sum = r;
    } else {
      why = "a reduction other than the softmax's max and sum";
      return failure();
    }
  }
  if (!a.max || !a.sum) {
    why = "no softmax (a max and a sum over the keys)";
    return failure();
  }
  a.e = a.sum.getDpsInputs()[0];
  if (!llvm::any_of(a.maxima,
                    [&](Value m) { return isExpOfDifference(a.e, a.x, m); })) {
    why = "the sum is not of exp(x - max)";
    return failure();
  }
  // The reshapes: the scores' expansion and the probabilities' collapse.
  for (Operation *view : region.views) {
    if (isa<tensor::ExpandShapeOp>(view) && !a.scoreView)
      a.scoreView = view;
    else if (isa<tensor::CollapseShapeOp>(view) && !a.probabilityView)
      a.probabilityView = view;
    else {
      why = "a reshape other than the scores' and the probabilities'";
      return failure();
    }
  }
  // Where X and P are read: the scores' element, through the reshapes.
  FailureOr<SmallVector<std::string>> idxS = applyIndexingMap(
      a.scores.mapC, a.scores.loopDims("qm", "kn", "0"), why);
  FailureOr<SmallVector<std::string>> idxA = applyIndexingMap(
      a.output.mapA, a.output.loopDims("qm", "0", "kn"), why);
  if (failed(idxS) || failed(idxA))
    return failure();
  a.scoreIndices = *idxS;
  a.rowIndices =
      a.scoreView ? expandedIndices(a.scoreView, *idxS) : *idxS;
  SmallVector<std::string> idxP =
      a.probabilityView ? expandedIndices(a.probabilityView, *idxA) : *idxA;
  a.probabilities = a.probabilityView ? a.probabilityView->getOperand(0)
                                      : a.output.a;
  if (idxP != a.rowIndices ||
      (a.probabilityView && a.probabilityView->getResult(0) != a.output.a)) {
    why = "the second product does not read the probabilities at the "
          "scores' element";
    return failure();
  }
  if (shapeOf(a.x) != shapeOf(a.probabilities) ||
      a.rowIndices.size() != shapeOf(a.x).size()) {
    why = "the softmax is not over the scores";
    return failure();
  }
  if (!isLinearIn(a.probabilities, a.e, shapeOf(a.x).size() - 1, why))
    return failure();
  if (region.outputs.size() != 1) {
    why = "an attention region with more than one output";
    return failure();
  }
  return a;
}

/// The statements evaluating X at the scores' element from the product
/// `acc` (f32, started from the product's init) into `x`.
FailureOr<std::string> writeScoreValue(const LinalgRegion &region,
                                       const Attention &a, unsigned &counter,
                                       std::string &x, std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  if (failed(bindProductAt(eval, region, a.scores.init, a.scores.result,
                           a.scoreIndices, "acc", why)))
    return failure();
  if (a.scoreView) {
    FailureOr<std::string> source =
        eval.valueAt(a.scoreView->getOperand(0), a.scoreIndices, why);
    if (failed(source))
      return failure();
    eval.knownAt[a.scoreView->getResult(0)] = {a.rowIndices, *source};
  }
  FailureOr<std::string> value = eval.valueAt(a.x, a.rowIndices, why);
  if (failed(value))
    return failure();
  x = *value;
  return body;
}

/// The statements storing the output at (qm, d): P's ops applied to the
/// row's sum of E V `acc` (the maxima `m`, the sum `l`), then the second
/// product's epilogue.
FailureOr<std::string> writeOutputValue(const LinalgRegion &region,
                                        const Attention &a, unsigned &counter,
                                        std::string &why) {
  std::string body;
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  for (Value m : a.maxima)
    eval.known[m] = "m";
  eval.known[linalg::GenericOp(a.sum).getResult(0)] = "l";
  eval.knownAt[a.e] = {a.rowIndices, "acc"};
  FailureOr<std::string> p = eval.valueAt(a.probabilities, a.rowIndices, why);
  if (failed(p))
    return failure();
  FailureOr<SmallVector<std::string>> idxO = applyIndexingMap(
      a.output.mapC, a.output.loopDims("qm", "d", "0"), why);
  if (failed(idxO))
    return failure();
  std::string sum =
      writer.bind("float", region.splats.lookup(a.output.init) + " + " + *p);
  FailureOr<std::string> stores =
      writeEpilogueAt(region, a.output.init, a.output.result, *idxO, sum,
                      counter, why);
  if (failed(stores))
    return failure();
  return body + *stores;
}

/// The loop filling a shared tile of `rows` x `cols` floats (stride `ld`)
/// with an operand's values: `row0` + row < `extent` else zero.
std::string tileLoad(StringRef tile, int rows, int64_t cols, int ld,
                     StringRef row0, int64_t extent, StringRef statements,
                     StringRef value) {
  return llvm::formatv("  for (int e = tid; e < {0}; e += {1}) {{\n"
                       "    const int rr = e / {2}, cc = e % {2};\n"
                       "    const long long r = {3} + rr, k = cc;\n"
                       "    float x = 0.0f;\n"
                       "    if (r < {4}LL) {{\n{5}      x = {6};\n    }\n"
                       "    {7}[rr * {8} + cc] = x;\n  }\n",
                       rows * cols, kWarps * 32, cols, row0, extent,
                       statements, value, tile, ld)
      .str();
}

/// The 3xTF32 products of one warp's 16 rows: the A fragment's four values
/// `x0..x3` split, each of `tiles` B fragments read by `bRead` (statements
/// setting y0, y1 for tile j) split, three mma.sync into `acc[j]`.
std::string tf32Step(StringRef aValues, int tiles, StringRef bRead,
                     StringRef acc) {
  return llvm::formatv(
             "{{\n{0}"
             "      unsigned aBig[4], aSmall[4];\n"
             "      const float xs[4] = {{x0, x1, x2, x3};\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        aBig[q] = ca_tf32(xs[q]);\n"
             "        aSmall[q] = ca_tf32(xs[q] - __uint_as_float(aBig[q]));\n"
             "      }\n"
             "#pragma unroll\n"
             "      for (int j = 0; j < {1}; ++j) {{\n{2}"
             "        unsigned bBig[2], bSmall[2];\n"
             "        bBig[0] = ca_tf32(y0);\n"
             "        bBig[1] = ca_tf32(y1);\n"
             "        bSmall[0] = ca_tf32(y0 - __uint_as_float(bBig[0]));\n"
             "        bSmall[1] = ca_tf32(y1 - __uint_as_float(bBig[1]));\n"
             "        ca_mma_tf32({3}[j], aSmall, bBig);\n"
             "        ca_mma_tf32({3}[j], aBig, bSmall);\n"
             "        ca_mma_tf32({3}[j], aBig, bBig);\n"
             "      }\n"
             "    }\n",
             aValues, tiles, bRead, acc)
      .str();
}

FailureOr<Variant> writeFlashAttention(const LinalgRegion &region,
                                       const Attention &a, std::string &why) {
  const Contraction &s = a.scores, &o = a.output;
  int64_t dk = s.K, dv = o.N, queries = s.M, keys = s.N;
  int ldk = int(dk) + 4, ldv = int(dv) + 4;
  int vTiles = int(dv / 8);
  unsigned counter = 0;
  std::string qValue, kValue, vValue, x;
  FailureOr<std::string> qLoad =
      writeOperandValue(region, s, true, "r", "k", counter, qValue, why);
  FailureOr<std::string> kLoad =
      writeOperandValue(region, s, false, "r", "k", counter, kValue, why);
  // V's tile is [key][d]: the loader's row r is the key (the second
  // product's reduced index), its column k the output column.
  FailureOr<std::string> vLoad =
      writeOperandValue(region, o, false, "k", "r", counter, vValue, why);
  if (failed(qLoad) || failed(kLoad) || failed(vLoad))
    return failure();
  FailureOr<std::string> score =
      writeScoreValue(region, a, counter, x, why);
  if (failed(score))
    return failure();
  FailureOr<std::string> store = writeOutputValue(region, a, counter, why);
  if (failed(store))
    return failure();
  Block &maxBody = linalg::GenericOp(a.max).getRegion().front();
  FailureOr<Combiner> maxOf = findCombiner(maxBody, maxBody.getArgument(1), why);
  if (failed(maxOf))
    return failure();

  std::string src = getPrelude().str() + getTf32Helpers().str() + "\n" +
                    kernelSignature(region, "attention", kWarps * 32) + " {\n";
  src += llvm::formatv(
             "  extern __shared__ __align__(16) unsigned char ca_smem[];\n"
             "  float *const Qs = reinterpret_cast<float *>(ca_smem);\n"
             "  float *const Ks = Qs + {0} * {1};\n"
             "  float *const Vs = Ks + {2} * {1};\n"
             "  const int tid = threadIdx.x, lane = tid % 32, warp = tid / "
             "32;\n"
             "  const int g = lane / 4, tig = lane % 4;\n"
             "  const long long m0 = (long long)blockIdx.x * {0};\n"
             "  const float ninf = {3};\n",
             kQueries, ldk, kKeys, maxOf->identity)
             .str();
  src += s.batchIndices();
  src += "  // The block's queries.\n" +
         tileLoad("Qs", kQueries, dk, ldk, "m0", queries, *qLoad, qValue);
  src += llvm::formatv(
             "  float mRow[2] = {{ninf, ninf}, lRow[2] = {{0.0f, "
             "0.0f};\n"
             "  float out[{0}][4];\n"
             "#pragma unroll\n"
             "  for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "    for (int q = 0; q < 4; ++q)\n"
             "      out[j][q] = 0.0f;\n"
             "  for (long long n0 = 0; n0 < {1}LL; n0 += {2}) {{\n"
             "    __syncthreads();\n",
             vTiles, keys, kKeys)
             .str();
  auto indent = [](StringRef text) {
    std::string out;
    SmallVector<StringRef> lines;
    text.split(lines, '\n');
    for (StringRef line : lines)
      if (!line.empty())
        out += "  " + line.str() + "\n";
    return out;
  };
  src += indent(tileLoad("Ks", kKeys, dk, ldk, "n0", keys, *kLoad, kValue));
  src += indent(tileLoad("Vs", kKeys, dv, ldv, "n0", keys, *vLoad, vValue));
  src += "    __syncthreads();\n";
  // The warp's scores: 16 query rows x the step's 64 keys.
  src += llvm::formatv("    float sc[{0}][4];\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        sc[j][q] = {1};\n"
                       "    const int row = warp * 16 + g;\n"
                       "#pragma unroll\n"
                       "    for (int kk = 0; kk < {2}; kk += 8) ",
                       kKeys / 8, region.splats.lookup(s.init), dk)
             .str();
  src += tf32Step(llvm::formatv("      const float x0 = Qs[row * {0} + kk + "
                                "tig], x1 = Qs[(row + 8) * {0} + kk + tig];\n"
                                "      const float x2 = Qs[row * {0} + kk + "
                                "tig + 4], x3 = Qs[(row + 8) * {0} + kk + tig "
                                "+ 4];\n",
                                ldk)
                      .str(),
                  kKeys / 8,
                  llvm::formatv("        const float y0 = Ks[(j * 8 + g) * "
                                "{0} + kk + tig], y1 = Ks[(j * 8 + g) * {0} "
                                "+ kk + tig + 4];\n",
                                ldk)
                      .str(),
                  "sc");
  // X at each score (-inf past the keys), the rows' max over the step.
  src += llvm::formatv(
             "    float stepMax[2] = {{ninf, ninf};\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const long long qm = min(m0 + row + (q / 2) * 8, "
             "{1}LL);\n"
             "        const long long kn0 = n0 + j * 8 + 2 * tig + q % 2;\n"
             "        const long long kn = min(kn0, {2}LL);\n"
             "        const float acc = sc[j][q];\n",
             kKeys / 8, queries - 1, keys - 1)
             .str();
  src += indent(indent(indent(*score)));
  src += llvm::formatv("        sc[j][q] = kn0 < {0}LL ? {1} : ninf;\n"
                       "        stepMax[q / 2] = {2};\n"
                       "      }\n",
                       keys, x, maxOf->combine("stepMax[q / 2]", "sc[j][q]"))
             .str();
  // The running max and sum: E at the new max, the old sums rescaled.
  src += llvm::formatv(
             "    float alpha[2];\n"
             "#pragma unroll\n"
             "    for (int r = 0; r < 2; ++r) {{\n"
             "      float mx = stepMax[r];\n"
             "      mx = {0};\n"
             "      mx = {1};\n"
             "      const float mNew = {2};\n"
             "      alpha[r] = mNew == ninf ? 1.0f : expf(mRow[r] - "
             "mNew);\n"
             "      mRow[r] = mNew;\n"
             "      lRow[r] *= alpha[r];\n"
             "    }\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < {3}; ++j)\n"
             "#pragma unroll\n"
             "      for (int q = 0; q < 4; ++q) {{\n"
             "        const float m = mRow[q / 2];\n"
             "        sc[j][q] = m == ninf ? 0.0f : expf(sc[j][q] - m);\n"
             "        lRow[q / 2] += sc[j][q];\n"
             "      }\n",
             maxOf->combine("mx", "__shfl_xor_sync(0xffffffffu, mx, 1)"),
             maxOf->combine("mx", "__shfl_xor_sync(0xffffffffu, mx, 2)"),
             maxOf->combine("mRow[r]", "mx"), kKeys / 8)
             .str();
  // E V on the tensor cores: the scores' accumulators as A fragments, the
  // keys in their order (k = tig is key 2 tig, k = tig + 4 key 2 tig + 1).
  src += llvm::formatv("    float part[{0}][4];\n"
                       "#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        part[j][q] = 0.0f;\n"
                       "#pragma unroll\n"
                       "    for (int kt = 0; kt < {1}; ++kt) ",
                       vTiles, kKeys / 8)
             .str();
  src += tf32Step("      const float x0 = sc[kt][0], x1 = sc[kt][2], x2 = "
                  "sc[kt][1], x3 = sc[kt][3];\n",
                  vTiles,
                  llvm::formatv("        const float y0 = Vs[(kt * 8 + 2 * "
                                "tig) * {0} + j * 8 + g], y1 = Vs[(kt * 8 + "
                                "2 * tig + 1) * {0} + j * 8 + g];\n",
                                ldv)
                      .str(),
                  "part");
  src += llvm::formatv("#pragma unroll\n"
                       "    for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "      for (int q = 0; q < 4; ++q)\n"
                       "        out[j][q] = out[j][q] * alpha[q / 2] + "
                       "part[j][q];\n"
                       "  }\n",
                       vTiles)
             .str();
  // The rows' sums over their quad of threads, then the outputs.
  src += llvm::formatv(
             "#pragma unroll\n"
             "  for (int r = 0; r < 2; ++r) {{\n"
             "    lRow[r] += __shfl_xor_sync(0xffffffffu, lRow[r], 1);\n"
             "    lRow[r] += __shfl_xor_sync(0xffffffffu, lRow[r], 2);\n"
             "  }\n"
             "#pragma unroll\n"
             "  for (int j = 0; j < {0}; ++j)\n"
             "#pragma unroll\n"
             "    for (int q = 0; q < 4; ++q) {{\n"
             "      const long long qm = m0 + warp * 16 + g + (q / 2) * 8;\n"
             "      if (qm >= {1}LL)\n"
             "        continue;\n"
             "      const long long d = j * 8 + 2 * tig + q % 2;\n"
             "      const float m = mRow[q / 2], l = lRow[q / 2], acc = "
             "out[j][q];\n",
             vTiles, queries)
             .str();
  src += indent(indent(*store));
  src += "    }\n}\n";
  int64_t shared = int64_t(sizeof(float)) * (kQueries * ldk + kKeys * ldk +
                                             kKeys * ldv);
  Variant variant{"flash-3xtf32-q64-k64",
                  std::move(src),
                  {{"attention",
                    {(queries + kQueries - 1) / kQueries, 1, s.batches},
                    {kWarps * 32, 1, 1},
                    shared}},
                  0};
  return variant;
}

/// Attention regions: the flash kernel.
class FlashAttentionStrategy final : public Strategy {
public:
  StringRef getName() const override { return "flash-attention"; }
  bool readsViews() const override { return true; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    return succeeded(analyzeAttention(region, why));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    std::string reason;
    if (!isSm80OrLater(target)) {
      list.add(failure(), reason = "the flash kernel's mma.sync TF32 needs "
                                   "sm_80 or later");
      return;
    }
    FailureOr<Attention> a = analyzeAttention(region, reason);
    if (failed(a)) {
      list.add(failure(), reason);
      return;
    }
    list.add(writeFlashAttention(region, *a, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getFlashAttentionStrategy() {
  static const FlashAttentionStrategy strategy;
  return strategy;
}
