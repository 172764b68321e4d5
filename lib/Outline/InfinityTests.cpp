//===- InfinityTests.cpp - A row's all(x == -inf) as max(x) == -inf -------===//
//
// See InfinityTests.h. The reduction keeps its iterators and its maps: the
// extreme reads x through the map the reduction read the comparisons
// through (the comparing generic is elementwise with identity maps), and
// the comparison is an all-parallel generic over the reduction's result.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/InfinityTests.h"
#include "cuda-agent/Outline/DeadProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <optional>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
/// A reduction all(x == inf) of a float tensor x, read through `xMap`; the
/// infinity is -inf when `negative`.
struct AllInfinite {
  Value x;
  AffineMap xMap;
  bool negative;
};
} // namespace

/// Whether `value` is `element == inf` or `inf == element` (`cmpf oeq`, the
/// element perhaps extended first: torch-mlir compares in f64), with the
/// infinity's sign in `negative`.
static bool testsInfinity(Value value, Value element, bool &negative) {
  auto cmp = value.getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return false;
  auto unextended = [](Value v) -> Value {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      return ext.getIn();
    return v;
  };
  for (auto [tested, other] : {std::pair(cmp.getLhs(), cmp.getRhs()),
                               std::pair(cmp.getRhs(), cmp.getLhs())}) {
    APFloat infinity(0.0);
    if (unextended(tested) != element ||
        !matchPattern(other, m_ConstantFloat(&infinity)) ||
        !infinity.isInfinity())
      continue;
    negative = infinity.isNegative();
    return true;
  }
  return false;
}

/// The single value that `generic`'s body yields, or null.
static Value yielded(linalg::GenericOp generic) {
  Operation *yield = generic.getRegion().front().getTerminator();
  return yield->getNumOperands() == 1 ? yield->getOperand(0) : Value();
}

/// `reduction` as all(x == inf), when it reduces with `andi` from a `true`
/// fill either the comparisons of an elementwise generic (identity maps)
/// or comparisons in its own body.
static std::optional<AllInfinite> matchAllInfinite(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || op->getNumResults() != 1)
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape() ||
      !resultType.getElementType().isInteger(1))
    return std::nullopt;
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.value(), m_One()))
    return std::nullopt;
  auto andi = yielded(op) ? yielded(op).getDefiningOp<arith::AndIOp>()
                          : arith::AndIOp();
  if (!andi)
    return std::nullopt;
  Block &body = op.getRegion().front();
  Value in = body.getArgument(0), out = body.getArgument(1);
  Value predicate = andi.getLhs() == out   ? andi.getRhs()
                    : andi.getRhs() == out ? andi.getLhs()
                                           : Value();
  if (!predicate)
    return std::nullopt;

  OpOperand *input = op.getDpsInputOperand(0);
  AllInfinite found{input->get(), op.getMatchingIndexingMap(input), false};
  if (predicate != in) {
    // The comparison is the reduction's own.
    if (!isa<FloatType>(in.getType()) ||
        !testsInfinity(predicate, in, found.negative))
      return std::nullopt;
    return found;
  }
  // The comparisons come from an elementwise generic over x.
  auto compare = input->get().getDefiningOp<linalg::GenericOp>();
  if (!compare || compare.getNumDpsInputs() != 1 ||
      compare.getNumDpsInits() != 1 ||
      compare.getNumParallelLoops() != compare.getNumLoops() ||
      !llvm::all_of(compare.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return std::nullopt;
  Value element = compare.getRegion().front().getArgument(0);
  if (!isa<FloatType>(element.getType()) || !yielded(compare) ||
      !testsInfinity(yielded(compare), element, found.negative))
    return std::nullopt;
  found.x = compare.getDpsInputs()[0];
  return found;
}

unsigned cuda_agent::foldInfinityTests(Operation *root) {
  SmallVector<std::pair<linalg::GenericOp, AllInfinite>> matches;
  root->walk([&](linalg::GenericOp op) {
    if (std::optional<AllInfinite> found = matchAllInfinite(op))
      matches.push_back({op, *found});
  });
  IRRewriter builder(root->getContext());
  for (auto &[op, test] : matches) {
    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    auto maskType = cast<RankedTensorType>(op->getResult(0).getType());
    auto floatType = cast<FloatType>(getElementTypeOrSelf(test.x.getType()));
    auto extremeType = maskType.clone(floatType);
    auto infinityAttr = [&](OpBuilder &b) {
      return b.getFloatAttr(floatType, APFloat::getInf(
                                           floatType.getFloatSemantics(),
                                           test.negative));
    };

    // max(x) from -inf (all(x == -inf)), min(x) from +inf.
    Value infinity = arith::ConstantOp::create(builder, loc,
                                               infinityAttr(builder));
    Value empty = tensor::EmptyOp::create(builder, loc, extremeType.getShape(),
                                          floatType);
    Value init =
        linalg::FillOp::create(builder, loc, infinity, empty).getResult(0);
    OpOperand *output = op.getDpsInitOperand(0);
    auto extreme = linalg::GenericOp::create(
        builder, loc, extremeType, test.x, init,
        {test.xMap, op.getMatchingIndexingMap(output)},
        op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value next =
              test.negative
                  ? arith::MaximumFOp::create(b, l, args[0], args[1])
                        .getResult()
                  : arith::MinimumFOp::create(b, l, args[0], args[1])
                        .getResult();
          linalg::YieldOp::create(b, l, next);
        });

    // The extreme compared with the infinity, elementwise.
    unsigned rank = maskType.getRank();
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    Value masks = tensor::EmptyOp::create(builder, loc, maskType.getShape(),
                                          builder.getI1Type());
    auto tested = linalg::GenericOp::create(
        builder, loc, maskType, extreme.getResult(0), masks,
        {identity, identity},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value bound = arith::ConstantOp::create(b, l, infinityAttr(b));
          Value equal = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OEQ, args[0], bound);
          linalg::YieldOp::create(b, l, equal);
        });

    // The comparisons' generic and the fill of `true`, unread now.
    SmallVector<Value> operands(op->getOperands());
    builder.replaceOp(op, tested.getResults());
    eraseDeadProducers(builder, operands);
  }
  return matches.size();
}
