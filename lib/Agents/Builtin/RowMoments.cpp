//===- RowMoments.cpp - Centered second moments from the first pass -------===//
//
// A batch norm's variance is `sum((a - m)^2)` over the row, with `m` the
// row's mean: a second pass over the row, after the first pass's sum gives
// m. In f64 the same value is `S2 - 2 m S1 + n m^2`, with S1 and S2 the sums
// of a and a * a, which the first pass can take beside its own reductions:
// the row is read once less. torch-mlir computes a batch norm's variance in
// f64 from f32 data, where the expanded form loses nothing that matters
// (the cancellation costs |mean|^2 / variance ulps of f64); f32 moments keep
// their own pass.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

/// The two operands of the body's one op of type `OpTy` that `generic`
/// yields, as the tensors they read, when both are block arguments of
/// inputs read through identity maps (or, for `rowOperand`, the second
/// through any map); else nothing.
template <typename OpTy>
static std::optional<std::pair<OpOperand *, OpOperand *>>
yieldedBinary(linalg::GenericOp generic) {
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (generic->getNumResults() != 1 || yield.getNumOperands() != 1)
    return std::nullopt;
  auto op = yield.getOperand(0).getDefiningOp<OpTy>();
  if (!op || op->getBlock() != &body)
    return std::nullopt;
  auto inputOf = [&](Value v) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= generic.getNumDpsInputs())
      return nullptr;
    return generic.getDpsInputOperand(arg.getArgNumber());
  };
  OpOperand *lhs = inputOf(op.getLhs()), *rhs = inputOf(op.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  return std::make_pair(lhs, rhs);
}

/// The elementwise generic over the whole row that defines `v`.
static linalg::GenericOp wholeRowGeneric(Value v, const RowShape &rs) {
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || isReduction(generic) ||
      generic.getNumLoops() != rs.fullShape().size() ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return {};
  return generic;
}

void RowKernelWriter::findCenteredMoments(
    linalg::GenericOp first,
    ArrayRef<std::pair<linalg::GenericOp, std::string>> passSums) {
  for (linalg::GenericOp h : region.generics) {
    FailureOr<Combiner> add = sumOfInput(h);
    if (h == first || failed(add) || computedEarlier.contains(h) ||
        h->getNumResults() != 1 || !elementOf(h.getResult(0)).isF64() ||
        h.getStaticLoopRanges() != first.getStaticLoopRanges() ||
        h.getIteratorTypesArray() != first.getIteratorTypesArray() ||
        h.getIndexingMapsArray().back() !=
            first.getIndexingMapsArray().back() ||
        !h.getIndexingMapsArray().front().isIdentity())
      continue;
    // sum(t), t = d * d, d = a - m: m per row, a read from nothing per row.
    linalg::GenericOp square = wholeRowGeneric(h.getDpsInputs()[0], rs);
    auto factors = square ? yieldedBinary<arith::MulFOp>(square) : std::nullopt;
    if (!factors || factors->first->get() != factors->second->get() ||
        !square.getMatchingIndexingMap(factors->first).isIdentity() ||
        !square.getMatchingIndexingMap(factors->second).isIdentity())
      continue;
    linalg::GenericOp centered = wholeRowGeneric(factors->first->get(), rs);
    auto terms = centered ? yieldedBinary<arith::SubFOp>(centered)
                          : std::nullopt;
    if (!terms || !centered.getMatchingIndexingMap(terms->first).isIdentity())
      continue;
    Value a = terms->first->get(), m = terms->second->get();
    auto perRow = m.getDefiningOp<linalg::GenericOp>();
    AffineMap mMap = centered.getMatchingIndexingMap(terms->second);
    SmallVector<unsigned> mLoops;
    for (AffineExpr e : mMap.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        mLoops.push_back(dim.getPosition());
    if (!elementOf(a).isF64() || !perRow || isReduction(perRow) ||
        perRow.getNumLoops() != rs.rowLoops.size() ||
        mMap.getNumResults() != mLoops.size() ||
        ArrayRef<unsigned>(mLoops) != ArrayRef<unsigned>(rs.rowLoops))
      continue;
    if (auto producer = a.getDefiningOp<linalg::GenericOp>();
        producer && (isReduction(producer) ||
                     producer.getNumLoops() != rs.fullShape().size() ||
                     !readsNothingPerRow(producer, rs)))
      continue;
    std::string n = std::to_string(moments.size());
    CenteredMoment moment{a, m, *add, "msum" + n, "msquares" + n};
    // The f64 sum of a that the mean comes from, if the pass takes it.
    for (auto [r, acc] : passSums)
      if (succeeded(sumOfInput(r)) && r.getDpsInputs()[0] == a &&
          r.getIndexingMapsArray().front().isIdentity() &&
          r.getIndexingMapsArray() == h.getIndexingMapsArray() &&
          elementOf(r.getResult(0)).isF64()) {
        moment.sum = acc;
        moment.passSum = true;
        break;
      }
    src += "  double " +
           (moment.passSum ? "" : moment.sum + " = 0.0, ") +
           moment.squares + " = 0.0;\n";
    moments.insert({h.getOperation(), moment});
  }
}

LogicalResult RowKernelWriter::accumulateMoments(ElementEvaluator &eval,
                                                 ArrayRef<std::string> idx,
                                                 std::string &why) {
  for (auto &[op, moment] : moments) {
    FailureOr<std::string> a = eval.valueAt(moment.a, idx, why);
    if (failed(a))
      return failure();
    eval.getWriter().append(
        (moment.passSum ? ""
                        : "    " + moment.sum + " = " +
                              moment.add.combine(moment.sum, *a) + ";\n") +
        "    " + moment.squares + " = " +
        moment.add.combine(moment.squares, *a + " * " + *a) + ";\n");
  }
  return success();
}

void RowKernelWriter::addMomentAccumulators(
    SmallVectorImpl<PassAccumulator> &accs) const {
  for (auto &[op, moment] : moments) {
    if (!moment.passSum)
      accs.push_back({moment.add, "double", moment.sum});
    accs.push_back({moment.add, "double", moment.squares});
  }
}

LogicalResult RowKernelWriter::writeCenteredMoment(linalg::GenericOp g) {
  const CenteredMoment &moment = moments.find(g.getOperation())->second;
  std::string m = known.lookup(moment.m);
  if (m.empty()) {
    why = "a centered moment whose mean is not known per row";
    return failure();
  }
  // sum((a - m)^2) = S2 - 2 m S1 + n m^2, the fill's value combined once.
  std::string init = region.splats.lookup(g.getDpsInitOperand(0)->get());
  std::string value = llvm::formatv("({0} - 2.0 * {1} * {2} + {3}.0 * {1} * {1})",
                                    moment.squares, m, moment.sum, rs.cols)
                          .str();
  std::string result = "red" + std::to_string(reductions++);
  src += "  const double " + result + " = " + moment.add.combine(init, value) +
         ";\n";
  known[g.getResult(0)] = result;
  return success();
}
