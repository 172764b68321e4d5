//===- AttentionChains.cpp - Attention as one region ----------------------===//
//
// See cuda-agent/Outline/AttentionChains.h. Runs on the grouper's groups
// (RegionGrouping.h): a product's group, a softmax's group of row
// reductions that reads it and a product's group that reads the softmax
// become one group, with the reshapes between them (torch-mlir's attention
// multiplies heads x queries as one batch dimension and takes the softmax
// over heads and queries apart: an expand_shape of the scores and a
// collapse_shape of the probabilities).
//
//===----------------------------------------------------------------------===//

#include "RegionGrouping.h"

#include "cuda-agent/Outline/AttentionChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The combiner of reduction `r` when its body yields `OpTy(input, acc)`
/// of its one input and its accumulator.
template <typename OpTy> bool yieldsCombination(linalg::GenericOp r) {
  Block &body = r.getRegion().front();
  auto op = body.getTerminator()->getOperand(0).getDefiningOp<OpTy>();
  if (!op || op->getBlock() != &body)
    return false;
  Value in = body.getArgument(0), acc = body.getArgument(1);
  return (op.getLhs() == in && op.getRhs() == acc) ||
         (op.getLhs() == acc && op.getRhs() == in);
}

/// Whether `e` is exp(x - max): one generic that subtracts and
/// exponentiates, or an exponential of a generic that subtracts, with x read
/// at the element and `max` (a row value) read by the subtraction.
bool isExpOfDifference(Value e, Value x, Value max) {
  auto exp = e.getDefiningOp<linalg::GenericOp>();
  if (!exp || exp.getNumReductionLoops() != 0 || exp.getNumResults() != 1)
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
  if (!diff || diff.getNumReductionLoops() != 0 || diff.getNumResults() != 1)
    return false;
  auto sub = diff.getRegion().front().getTerminator()->getOperand(0)
                 .getDefiningOp<arith::SubFOp>();
  return sub && isDifference(diff, sub);
}

} // namespace

bool cuda_agent::isLinearIn(Value p, Value e, unsigned key, std::string &why) {
  llvm::DenseMap<Value, bool> memo;
  std::function<bool(Value)> dependsOnE = [&](Value v) -> bool {
    if (v == e)
      return true;
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    // A reduction's values per row are known where P is computed.
    auto g = v.getDefiningOp<linalg::GenericOp>();
    bool depends = g && g.getNumReductionLoops() == 0 &&
                   llvm::any_of(g.getDpsInputs(), dependsOnE);
    memo[v] = depends;
    return depends;
  };
  llvm::SmallPtrSet<Operation *, 8> checked;
  std::function<bool(Value)> linear = [&](Value v) -> bool {
    if (v == e)
      return true;
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g || g.getNumReductionLoops() != 0 || g.getNumResults() != 1) {
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
    auto zeroOrDep = [&](Value x) {
      return dep.contains(x) || matchPattern(x, m_AnyZeroFloat());
    };
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


FailureOr<AttentionSoftmax>
cuda_agent::analyzeAttentionSoftmax(ArrayRef<linalg::GenericOp> reductions,
                                    Value p, std::string &why) {
  AttentionSoftmax softmax;
  for (linalg::GenericOp r : reductions) {
    if (r.getNumDpsInputs() != 1 || r.getNumResults() != 1 ||
        r.getNumReductionLoops() != 1 ||
        !linalg::isReductionIterator(r.getIteratorTypesArray().back()) ||
        !r.getMatchingIndexingMap(r.getDpsInputOperand(0)).isIdentity()) {
      why = "a reduction that is not over the keys of one tensor";
      return failure();
    }
    Value input = r.getDpsInputs()[0];
    if (yieldsCombination<arith::MaximumFOp>(r) &&
        (!softmax.x || softmax.x == input)) {
      softmax.x = input;
      softmax.maxima.push_back(r);
    } else if (yieldsCombination<arith::AddFOp>(r) && !softmax.sum) {
      softmax.sum = r;
      softmax.e = input;
    } else {
      why = "a reduction other than the softmax's maxima of one tensor and "
            "its sum";
      return failure();
    }
  }
  if (softmax.maxima.empty() || !softmax.sum) {
    why = "no softmax (a max and a sum over the keys)";
    return failure();
  }
  if (!llvm::any_of(softmax.maxima, [&](linalg::GenericOp max) {
        return isExpOfDifference(softmax.e, softmax.x, max.getResult(0));
      })) {
    why = "the sum is not of exp(x - max)";
    return failure();
  }
  if (!isLinearIn(p, softmax.e, cast<ShapedType>(p.getType()).getRank() - 1,
                  why))
    return failure();
  return softmax;
}

namespace mlir::cuda_agent::outline {

namespace {

/// `value` read through the reshape that defines it, if one does: its
/// source, the reshape going to `views`.
Value throughReshape(Value value, SmallVectorImpl<Operation *> &views) {
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return value;
  views.push_back(def);
  return def->getOperand(0);
}

/// The extents of `product`'s reduced dimension and of its columns, when
/// it is an f32 contraction of one row, column and reduced dimension each.
std::optional<std::pair<int64_t, int64_t>>
productExtents(linalg::LinalgOp product) {
  if (product.getNumDpsInputs() != 2 || product->getNumResults() != 1 ||
      !getElementTypeOrSelf(product->getResult(0).getType()).isF32())
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(product);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = product.getStaticLoopRanges();
  return std::make_pair(ranges[dims->k.front()], ranges[dims->n.front()]);
}

/// The only root of `group` when it is a product productExtents reads
/// whose reduced extent (`reduced`) or column extent is a head dimension.
linalg::LinalgOp attentionProduct(const Group &group, bool reduced) {
  linalg::LinalgOp product = onlyRoot(group, OpClass::Contraction);
  if (!product)
    return {};
  std::optional<std::pair<int64_t, int64_t>> extents = productExtents(product);
  if (!extents ||
      !isAttentionHeadDim(reduced ? extents->first : extents->second))
    return {};
  return product;
}

/// The index of the group holding `op`, or -1.
int groupOf(ArrayRef<Group> groups, Operation *op) {
  for (auto [i, g] : llvm::enumerate(groups))
    if (llvm::is_contained(g.ops, op))
      return i;
  return -1;
}

/// Merges the attention whose second product is the root of `groups[c]`
/// into that group, if there is one; returns whether it did.
bool mergeAttentionInto(SmallVectorImpl<Group> &groups, int c,
                        function_ref<bool(ArrayRef<Operation *>)> isConvex) {
  // O = P V: the second product, its first operand the probabilities.
  linalg::LinalgOp second = attentionProduct(groups[c], /*reduced=*/false);
  if (!second)
    return false;
  SmallVector<Operation *> views;
  Value probabilities =
      throughReshape(second.getDpsInputOperand(0)->get(), views);
  int b = groupOf(groups, probabilities.getDefiningOp());
  if (b < 0 || b == c)
    return false;
  // The softmax: reductions over the same rows, maxima and a sum whose
  // probabilities are linear in its exponentials (the attention kernel's
  // class: analyzeAttentionSoftmax).
  const Group &softmax = groups[b];
  if (softmax.rootClasses.size() < 2 ||
      !llvm::all_of(softmax.rootClasses,
                    [](OpClass k) { return k == OpClass::Reduction; }) ||
      !llvm::all_equal(softmax.rowSignatures))
    return false;
  SmallVector<linalg::GenericOp> reductions;
  for (Operation *op : softmax.ops)
    if (auto r = dyn_cast<linalg::GenericOp>(op);
        r && r.getNumReductionLoops() != 0)
      reductions.push_back(r);
  std::string why;
  if (reductions.size() != softmax.rootClasses.size() ||
      failed(analyzeAttentionSoftmax(reductions, probabilities, why)))
    return false;
  // The scores: the one computed value the softmax reads from outside.
  int a = -1;
  bool fromOneProduct = true;
  for (Operation *op : softmax.ops)
    for (Value operand : op->getOperands()) {
      SmallVector<Operation *> scoreViews;
      Value source = throughReshape(operand, scoreViews);
      int g = groupOf(groups, source.getDefiningOp());
      if (g < 0 || g == b)
        continue;
      fromOneProduct &= a < 0 || a == g;
      a = g;
      for (Operation *view : scoreViews)
        if (!llvm::is_contained(views, view))
          views.push_back(view);
    }
  if (!fromOneProduct || a < 0 || a == c)
    return false;
  if (!attentionProduct(groups[a], /*reduced=*/true))
    return false;
  // One region: nothing but its output read outside it.
  SmallVector<Operation *> ops(groups[a].ops);
  llvm::append_range(ops, softmax.ops);
  llvm::append_range(ops, groups[c].ops);
  llvm::append_range(ops, views);
  llvm::SmallPtrSet<Operation *, 32> members(ops.begin(), ops.end());
  bool closed = llvm::all_of(ops, [&](Operation *op) {
    return llvm::is_contained(groups[c].ops, op) ||
           llvm::none_of(op->getResults(), [&](Value result) {
             return isReadOutside(result, members);
           });
  });
  llvm::sort(ops, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  if (!closed || !isConvex(ops))
    return false;
  Group merged;
  merged.ops = std::move(ops);
  for (int g : {a, b, c}) {
    llvm::append_range(merged.rootClasses, groups[g].rootClasses);
    llvm::append_range(merged.rowSignatures, groups[g].rowSignatures);
  }
  merged.attention = true;
  groups[c] = std::move(merged);
  for (int g : {std::max(a, b), std::min(a, b)})
    groups.erase(groups.begin() + g);
  return true;
}

} // namespace

void mergeAttentionChains(SmallVectorImpl<Group> &groups,
                          function_ref<bool(ArrayRef<Operation *>)> isConvex) {
  for (int c = 0; c < int(groups.size());)
    c = mergeAttentionInto(groups, c, isConvex) ? 0 : c + 1;
}

} // namespace mlir::cuda_agent::outline
