//===- RowAnalysis.cpp - Which regions are row programs -------------------===//
//
// A row program's reductions all reduce the same trailing dimensions into
// outputs over the leading ones, initialized by fills; every other operand
// is the whole rows, one value per row, one value per column (an input, or
// computed from such by elementwise generics over the columns, as an
// activation of a matrix-vector product's vector), an input read by a
// projection or permutation of the loops, or one value for all (rank 0);
// a whole-rows output may be moved by a transpose (getTransposedRows).
// This file checks that and finds a softmax's max and sum
// of exponentials, which the row kernels compute in one pass
// (OnlineSoftmax.cpp).
//
//===----------------------------------------------------------------------===//

#include "Rows.h"
#include "KernelText.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

bool cuda_agent::builtin::isWholeRows(Value out, const RowShape &rs) {
  auto g = out.getDefiningOp<linalg::GenericOp>();
  return g && !isReduction(g) &&
         g.getNumLoops() == rs.rowDims.size() + rs.colDims.size();
}

linalg::GenericOp cuda_agent::builtin::getTransposedRows(Value out,
                                                        const RowShape &rs) {
  auto g = out.getDefiningOp<linalg::GenericOp>();
  if (!g || isReduction(g) || g.getNumDpsInputs() != 1 ||
      g.getNumResults() != 1)
    return {};
  Value rows = g.getDpsInputs()[0];
  AffineMap map = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
  Block &body = g.getRegion().front();
  if (!map.isPermutation() || map.isIdentity() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      body.getTerminator()->getOperand(0) != body.getArgument(0) ||
      shapeOf(rows) != ArrayRef<int64_t>(rs.fullShape()))
    return {};
  // The rows are computed in the region (an input moved so is an
  // elementwise region's), and the transpose's result is only returned.
  auto producer = rows.getDefiningOp<linalg::GenericOp>();
  if (!producer || isReduction(producer) ||
      producer.getNumLoops() != rs.fullShape().size() ||
      !llvm::all_of(out.getUsers(),
                    [](Operation *user) { return isa<func::ReturnOp>(user); }))
    return {};
  return g;
}

bool RowShape::isTrailing() const {
  for (auto [i, loop] : llvm::enumerate(rowLoops))
    if (loop != i)
      return false;
  return true;
}

SmallVector<std::string>
RowShape::loopIndices(ArrayRef<std::string> row,
                      ArrayRef<std::string> col) const {
  SmallVector<std::string> idx(row.size() + col.size());
  for (auto [k, loop] : llvm::enumerate(rowLoops))
    idx[loop] = row[k];
  for (auto [k, loop] : llvm::enumerate(colLoops))
    idx[loop] = col[k];
  return idx;
}

/// Each loop's stride in a row-major tensor of the loops' shape.
static SmallVector<int64_t> loopStridesOf(const RowShape &rs) {
  SmallVector<int64_t> shape = rs.fullShape();
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// The runs of consecutive column loops (each one run of memory in a tensor
/// of the loops' shape): their extents and the strides of their last loops.
static void columnRuns(const RowShape &rs, SmallVectorImpl<int64_t> &extents,
                       SmallVectorImpl<int64_t> &strides) {
  SmallVector<int64_t> loopStrides = loopStridesOf(rs);
  for (auto [k, loop] : llvm::enumerate(rs.colLoops)) {
    if (k > 0 && loop == rs.colLoops[k - 1] + 1) {
      extents.back() *= rs.colDims[k];
      strides.back() = loopStrides[loop];
      continue;
    }
    extents.push_back(rs.colDims[k]);
    strides.push_back(loopStrides[loop]);
  }
}

SmallVector<int64_t> RowShape::fullShape() const {
  SmallVector<int64_t> shape(rowDims.size() + colDims.size());
  for (auto [k, loop] : llvm::enumerate(rowLoops))
    shape[loop] = rowDims[k];
  for (auto [k, loop] : llvm::enumerate(colLoops))
    shape[loop] = colDims[k];
  return shape;
}

std::string RowShape::offsetOf(StringRef row, StringRef c) const {
  if (isTrailing())
    return (row + " * " + std::to_string(cols) + "LL + " + c).str();
  SmallVector<int64_t> extents, strides;
  columnRuns(*this, extents, strides);
  // The row's own offset, then each run's.
  SmallVector<int64_t> loopStrides = loopStridesOf(*this);
  std::string expr;
  auto add = [&](const std::string &index, int64_t stride) {
    expr += (expr.empty() ? "" : " + ") + index +
            (stride == 1 ? "" : " * " + std::to_string(stride) + "LL");
  };
  SmallVector<std::string> rowIdx = delinearize(row, rowDims);
  for (auto [k, loop] : llvm::enumerate(rowLoops))
    add(rowIdx[k], loopStrides[loop]);
  SmallVector<std::string> runIdx = delinearize(c, extents);
  for (auto [k, index] : llvm::enumerate(runIdx))
    add(index, strides[k]);
  return expr;
}

bool RowShape::isInterleaved() const {
  return !rowLoops.empty() &&
         rowLoops.back() == rowLoops.size() + colLoops.size() - 1;
}

int64_t RowShape::innermostRun() const {
  if (isInterleaved())
    return 1;
  SmallVector<int64_t> extents, strides;
  columnRuns(*this, extents, strides);
  return extents.back();
}

/// Whether `map` reads one value per row: its results are the row loops in
/// order (over the whole rows), or the identity of a generic over the rows.
static bool isPerRowMap(AffineMap map, const RowShape &rs) {
  if (map.getNumResults() != rs.rowLoops.size())
    return false;
  bool overRows = map.getNumDims() == rs.rowLoops.size();
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != (overRows ? i : rs.rowLoops[i]))
      return false;
  }
  return true;
}

/// Whether `map` reads one row of `shape` per group of rows: the leading q
/// row dimensions (0 < q < all of them), then the columns, as a batched
/// matrix-vector product reads its vector of each batch.
static bool isGroupColumns(AffineMap map, const RowShape &rs,
                           ArrayRef<int64_t> shape) {
  unsigned p = rs.rowDims.size(), c = rs.colDims.size();
  unsigned q = map.getNumResults() - c;
  if (map.getNumResults() <= c || q >= p)
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != (i < q ? i : p + (i - q)))
      return false;
  }
  SmallVector<int64_t> want(rs.rowDims.begin(), rs.rowDims.begin() + q);
  want.append(rs.colDims.begin(), rs.colDims.end());
  return shape == ArrayRef<int64_t>(want);
}

/// Whether `map` reads a tensor of `shape` by a projection of the loops that
/// keeps their order (a group norm's weight of each group and channel
/// within the group, `(n, g, c, hw) -> (g, c)`), other than all of them: the
/// row kernels read such an operand one element at a time.
static bool isOrderedProjection(AffineMap map, ArrayRef<int64_t> loopShape,
                                ArrayRef<int64_t> shape) {
  if (map.getNumResults() == 0 || map.getNumResults() >= loopShape.size() ||
      shape.size() != map.getNumResults())
    return false;
  int64_t last = -1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || int64_t(d.getPosition()) <= last ||
        shape[i] != loopShape[d.getPosition()])
      return false;
    last = d.getPosition();
  }
  return true;
}

/// Whether `map` reads a tensor of `shape` through a permutation of the
/// loops other than the identity (a softmax or norm over a permuted input,
/// `x.permute(0, 2, 3, 1)`, the transpose an elementwise generic of the
/// region): the row kernels read such an operand one element at a time at
/// its own indices, as a projection's. Only elementwise generics: a
/// reduction that reads its input so (a vector times a row-major matrix)
/// is the split and sliced kernels', which read it along its rows.
static bool isPermutedRead(AffineMap map, ArrayRef<int64_t> loopShape,
                           ArrayRef<int64_t> shape) {
  if (!map.isPermutation() || map.isIdentity() ||
      shape.size() != loopShape.size())
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (shape[i] != loopShape[cast<AffineDimExpr>(e).getPosition()])
      return false;
  return true;
}

/// The generics of `region` that compute one value per column (over the
/// columns' shape, every result read through the identity): each reads
/// splats, rank-0 values, and inputs or other such generics' results of the
/// columns' shape through the identity, with its inits unread; each result is
/// read only by generics over the whole rows through the minor identity (one
/// value per column) or by other such generics. Found as the largest set
/// that is closed under those rules.
static llvm::SmallPtrSet<Operation *, 4>
findPerColumnGenerics(const LinalgRegion &region, const RowShape &rs) {
  unsigned rank = rs.rowDims.size() + rs.colDims.size();
  auto overColumns = [&](linalg::GenericOp g) {
    if (isReduction(g) || g.getStaticLoopRanges() != rs.colDims)
      return false;
    for (OpOperand &operand : g->getOpOperands()) {
      AffineMap map = g.getMatchingIndexingMap(&operand);
      if (g.isDpsInit(&operand)) {
        if (!map.isIdentity() || !g.getMatchingBlockArgument(&operand).use_empty())
          return false;
        continue;
      }
      Value v = operand.get();
      if (region.splats.count(v) || shapeOf(v).empty())
        continue;
      if (!map.isIdentity() || shapeOf(v) != ArrayRef<int64_t>(rs.colDims))
        return false;
    }
    return true;
  };
  llvm::SmallPtrSet<Operation *, 4> set;
  for (linalg::GenericOp g : region.generics)
    if (overColumns(g))
      set.insert(g);
  // Drop those whose operands or readers break the rules until none does.
  for (bool changed = true; changed;) {
    changed = false;
    for (linalg::GenericOp g : region.generics) {
      if (!set.contains(g))
        continue;
      bool ok = llvm::all_of(g.getDpsInputs(), [&](Value v) {
        Operation *producer = v.getDefiningOp();
        return isa<BlockArgument>(v) || region.splats.count(v) ||
               (producer && set.contains(producer));
      });
      for (Value result : g->getResults())
        for (OpOperand &use : result.getUses()) {
          auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
          if (!reader || reader.isDpsInit(&use)) {
            ok = false;
            continue;
          }
          AffineMap map = reader.getMatchingIndexingMap(&use);
          ok &= set.contains(reader) ||
                (reader.getNumLoops() == rank && map.isMinorIdentity() &&
                 map.getNumResults() == rs.colDims.size());
        }
      if (!ok) {
        set.erase(g);
        changed = true;
      }
    }
  }
  return set;
}

FailureOr<RowShape> cuda_agent::builtin::analyzeRows(const LinalgRegion &region,
                                                     std::string &why) {
  RowShape rs;
  bool found = false;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    SmallVector<unsigned> rowLoops, colLoops;
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<int64_t> rowDims, colDims;
    SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
    for (auto [i, iterator] : llvm::enumerate(iterators)) {
      bool reduced = iterator == utils::IteratorType::reduction;
      (reduced ? colLoops : rowLoops).push_back(i);
      (reduced ? colDims : rowDims).push_back(ranges[i]);
    }
    if (found && (rowLoops != rs.rowLoops || rowDims != rs.rowDims ||
                  colDims != rs.colDims)) {
      why = "reductions over different row shapes";
      return failure();
    }
    found = true;
    rs.rowDims = rowDims;
    rs.colDims = colDims;
    rs.rowLoops = rowLoops;
    rs.colLoops = colLoops;
    if (g.getNumDpsInits() != 1 ||
        !isPerRowMap(g.getMatchingIndexingMap(g.getDpsInitOperand(0)), rs) ||
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
  // Strided rows read only whole rows, values per row and rank-0 values.
  if (rs.isTrailing())
    rs.perColumn = findPerColumnGenerics(region, rs);
  unsigned p = rs.rowDims.size(), rank = p + rs.colDims.size();
  SmallVector<int64_t> full = rs.fullShape();
  for (linalg::GenericOp g : region.generics) {
    if (rs.perColumn.contains(g))
      continue;
    unsigned loops = g.getNumLoops();
    if (loops != rank && loops != p) {
      why = "an elementwise op over another shape than the rows";
      return failure();
    }
    // A transpose of the rows into an output reads them at its own element.
    bool movesRows = bool(getTransposedRows(g->getResult(0), rs));
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
      bool ok =
          region.splats.count(v) || shape.empty() ||
          movesRows ||
          (loops == rank && map.isIdentity() &&
           shape == ArrayRef<int64_t>(full)) ||
          (isPerRowMap(map, rs) && shape == ArrayRef<int64_t>(rs.rowDims)) ||
          (rs.isTrailing() && loops == rank && map.isMinorIdentity() &&
           map.getNumResults() == rs.colDims.size() &&
           shape == ArrayRef<int64_t>(rs.colDims)) ||
          (rs.isTrailing() && loops == rank &&
           isGroupColumns(map, rs, shape)) ||
          (loops == rank && !v.getDefiningOp() &&
           isOrderedProjection(map, full, shape)) ||
          (loops == p && !v.getDefiningOp() &&
           isOrderedProjection(map, rs.rowDims, shape)) ||
          (loops == rank && !v.getDefiningOp() && !isReduction(g) &&
           isPermutedRead(map, full, shape));
      if (!ok) {
        why = "an operand that is not the rows, one value per row, per "
              "column or per column of a group of rows with the matching "
              "indexing map, an input read by a projection or a "
              "permutation of the loops, or a rank-0 value";
        return failure();
      }
      // A value the kernel holds per row (a reduction's, or a generic's over
      // the rows) read as anything else: where rows and columns have one
      // shape, the maps above take it, and the kernel would read the row's
      // value at every column.
      auto producer = v.getDefiningOp<linalg::GenericOp>();
      if (producer && !rs.perColumn.contains(producer) &&
          (isReduction(producer) || producer.getNumLoops() == p) &&
          !isPerRowMap(map, rs)) {
        why = "a value computed per row is read other than per row";
        return failure();
      }
    }
  }
  // Outputs are generic results (readRegion checked): whole rows or one
  // value per row, by the loops of their producer (isWholeRows).
  return rs;
}

FailureOr<Combiner> cuda_agent::builtin::sumOfInput(linalg::GenericOp g) {
  if (!isReduction(g) || g.getNumDpsInputs() != 1)
    return failure();
  Block &body = g.getRegion().front();
  std::string why;
  FailureOr<Combiner> add = findCombiner(body, body.getArgument(1), why);
  if (failed(add) || !isa<arith::AddFOp>(add->op) ||
      add->op->getOperand(add->otherOperand) != body.getArgument(0))
    return failure();
  return add;
}

linalg::GenericOp cuda_agent::builtin::findExpSum(const LinalgRegion &region,
                                                  linalg::GenericOp max,
                                                  const Combiner &maxOf) {
  if (!isa<arith::MaxNumFOp, arith::MaximumFOp>(maxOf.op) ||
      max.getNumDpsInputs() != 1 ||
      maxOf.op->getOperand(maxOf.otherOperand) !=
          max.getRegion().front().getArgument(0))
    return {};
  Value x = max.getDpsInputs()[0];
  for (linalg::GenericOp sum : region.generics) {
    if (sum == max || failed(sumOfInput(sum)))
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
