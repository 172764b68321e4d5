//===- BlockScan.cpp - A masked reduction as a warp scan -------------------===//
//
// A blocked scan's step (python/cuda_agent/_scan.py; any frontend's
// triangular mask) is a reduction of B <= 32 terms per output,
//
//   out[r, i] = fill (+) reduce_k select(k <= i, v[r, k], identity),
//
// B operations per output element. The same values are the inclusive scan
// of v[r, 0..B) (+)-combined with the fill: one load per element and log2(B)
// warp shuffles. A warp holds 32 / B rows (B dividing 32; else one row and
// idle lanes), lane p of a row loads v[r, p] and the rows are scanned by
// `__shfl_up_sync` steps that stay within a row. With many rows a warp takes
// 4 or 8 groups of rows, their loads issued together (`-x4`, `-x8`). The region must be the one
// reduction, its term the select of an elementwise generic whose true value
// does not depend on i, and the select's false value the combiner's
// identity.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "Strategy.h"
#include "cuda-agent/Outline/MasksAndPositions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// Whether the constant `v` is the identity of the combiner `op`.
bool isIdentityOf(Value v, Operation *op) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  if (!attr)
    return false;
  APFloat value = attr.getValue();
  if (isa<arith::AddFOp>(op))
    return value.isZero();
  if (isa<arith::MulFOp>(op))
    return value.isExactlyValue(1.0);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return value.isInfinity() && value.isNegative();
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return value.isInfinity() && !value.isNegative();
  return false;
}

/// Whether `v`, a value of `body` (the generic `g`'s), varies with loop
/// dimension `dim`: through an operand whose map reads it or an index.
bool dependsOnDim(Value v, linalg::GenericOp g, int64_t dim) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &g.getRegion().front())
      return false;
    return g.getMatchingIndexingMap(&g->getOpOperand(arg.getArgNumber()))
        .isFunctionOfDim(dim);
  }
  Operation *op = v.getDefiningOp();
  if (!op || !g->isProperAncestor(op))
    return false; // from outside the body: a constant
  if (auto index = dyn_cast<linalg::IndexOp>(op))
    return int64_t(index.getDim()) == dim;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return dependsOnDim(operand, g, dim);
  });
}

/// What the kernel needs of a matched region.
struct ScanShape {
  linalg::GenericOp reduction;
  Combiner combiner;
  SmallVector<int64_t> rowShape; ///< the dimensions before i
  int64_t length = 0;            ///< B
};

FailureOr<ScanShape> matchScan(const LinalgRegion &region, std::string &why) {
  why = "not a masked reduction over a triangle (a blocked scan's step)";
  if (region.outputs.size() != 1)
    return failure();
  auto g = region.outputs[0].getDefiningOp<linalg::GenericOp>();
  if (!g || !isReduction(g) || g.getNumReductionLoops() != 1 ||
      g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      !region.splats.count(g.getDpsInitOperand(0)->get()))
    return failure();
  unsigned loops = g.getNumLoops();
  SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
  if (loops < 2 || iterators.back() != utils::IteratorType::reduction)
    return failure();
  int64_t i = loops - 2, k = loops - 1;
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  bool leading = outMap.getNumResults() == loops - 1 &&
                 outMap.isProjectedPermutation();
  for (unsigned r = 0; leading && r < outMap.getNumResults(); ++r)
    leading = outMap.getDimPosition(r) == r;
  if (ranges[i] != ranges[k] || ranges[k] > 32 || !leading ||
      !g.getMatchingIndexingMap(g.getDpsInputOperand(0)).isIdentity())
    return failure();
  Block &reduceBody = g.getRegion().front();
  FailureOr<Combiner> combiner =
      findCombiner(reduceBody, reduceBody.getArgument(1), why);
  if (failed(combiner))
    return failure();
  why = "not a masked reduction over a triangle (a blocked scan's step)";
  if (combiner->op->getOperand(combiner->otherOperand) !=
      reduceBody.getArgument(0))
    return failure();
  // The term: select(k <= i, v, identity) of an elementwise generic.
  auto masked = g.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!masked || !llvm::is_contained(region.generics, masked) ||
      isReduction(masked) || masked.getNumLoops() != loops ||
      masked->getNumResults() != 1 ||
      !masked.getIndexingMapMatchingResult(masked->getResult(0)).isIdentity())
    return failure();
  Block &body = masked.getRegion().front();
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                    : arith::CmpIOp();
  if (!cmp || !isUpTo(cmp, i, k) ||
      !isIdentityOf(select.getFalseValue(), combiner->op) ||
      dependsOnDim(select.getTrueValue(), masked, i))
    return failure();
  why.clear();
  return ScanShape{g, *combiner,
                   SmallVector<int64_t>(ranges.begin(), ranges.begin() + i),
                   ranges[k]};
}

/// A warp per 32 / B rows, `threads` per block; with `unroll` U > 1 each warp
/// scans U groups of rows, U warps' worth apart: the U loads are issued
/// before the first shuffle, so that a warp keeps U loads in flight instead
/// of one.
FailureOr<Variant> writeScan(const LinalgRegion &region, ScanShape scan,
                             int threads, int unroll, std::string &why) {
  Value out = region.outputs[0];
  Type type = elementOf(out);
  std::string ctype = getCType(type)->compute;
  int64_t length = scan.length;
  // Rows of B lanes each, B dividing 32; otherwise a row per warp.
  int64_t segment = 32 % length == 0 ? length : 32;
  int64_t perWarp = 32 / segment;
  int64_t rows = product(scan.rowShape);
  int64_t warps = threads / 32;
  int64_t perBlock = perWarp * warps * unroll;
  std::string fill =
      region.splats.lookup(scan.reduction.getDpsInitOperand(0)->get());
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, "scan", threads) +
      " {\n";
  // Warp w of block b scans the row groups b * U * warps + u * warps + w.
  src += llvm::formatv(
             "  const int lane = threadIdx.x % 32;\n"
             "  const int p = lane % {0};\n"
             "  const long long first = (blockIdx.x * (long long){1} + "
             "threadIdx.x / 32) * {2} + lane / {0};\n"
             "  const long long kc = p < {3} ? p : {3} - 1;\n",
             segment, warps * unroll, perWarp, length)
             .str();
  unsigned counter = 0;
  for (int u = 0; u < unroll; ++u) {
    std::string body;
    StatementWriter writer(body, counter);
    ElementEvaluator eval(region, writer);
    std::string rc = "rc" + std::to_string(u);
    // The term at i = B - 1 (k <= i for every k) and k = the lane's position,
    // clamped so that idle lanes read inside.
    SmallVector<std::string> at = delinearize(rc, scan.rowShape);
    at.push_back(std::to_string(length - 1));
    at.push_back("kc");
    FailureOr<std::string> term =
        eval.valueAt(scan.reduction.getDpsInputs()[0], at, why);
    if (failed(term))
      return failure();
    src += llvm::formatv(
               "  const long long r{0} = first + {1};\n"
               "  const bool active{0} = r{0} < {2}LL && p < {3};\n"
               "  const long long {4} = r{0} < {2}LL ? r{0} : {2}LL - 1;\n",
               u, u * warps * perWarp, rows, length, rc)
               .str();
    src += body;
    src += llvm::formatv("  {0} acc{1} = active{1} ? ({0})({2}) : {3};\n", ctype,
                         u, *term, scan.combiner.identity)
               .str();
  }
  // Hillis-Steele within each row: every lane shuffles (no early exit).
  for (int64_t d = 1; d < length; d *= 2)
    for (int u = 0; u < unroll; ++u) {
      std::string v = "acc" + std::to_string(u);
      src += llvm::formatv("  {{\n"
                           "    const {0} o = __shfl_up_sync(0xffffffffu, {3}, {1});\n"
                           "    if (p >= {1})\n      {3} = {2};\n"
                           "  }\n",
                           ctype, d, scan.combiner.combine("o", v), v)
                 .str();
    }
  for (int u = 0; u < unroll; ++u) {
    SmallVector<std::string> outAt =
        delinearize("rc" + std::to_string(u), scan.rowShape);
    outAt.push_back("p");
    src += llvm::formatv(
               "  if (active{0})\n    out0[{1}] = {2};\n", u,
               linearize(outAt, shapeOf(out)),
               storeAs(type, scan.combiner.combine(fill, "acc" + std::to_string(u))))
               .str();
  }
  src += "}\n";
  int64_t blocks = (rows + perBlock - 1) / perBlock;
  if (blocks > (int64_t(1) << 31) - 1) {
    why = "more rows than a one-dimensional grid holds";
    return failure();
  }
  std::string name = llvm::formatv("scan-t{0}", threads).str();
  if (unroll > 1)
    name += llvm::formatv("-x{0}", unroll).str();
  return Variant{name, src, {{"scan", {blocks, 1, 1}, {threads, 1, 1}}}};
}

class BlockScanStrategy final : public Strategy {
public:
  StringRef getName() const override { return "block-scan"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    // Not a scan is another strategy's class: no reason.
    std::string reason;
    return succeeded(matchScan(region, reason));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &, Precision,
                   VariantList &list) const override {
    std::string reason;
    FailureOr<ScanShape> scan = matchScan(region, reason);
    if (failed(scan)) {
      list.add(failure(), reason);
      return;
    }
    // Unrolled first where there are rows to spare: many short rows (a
    // blocked scan's first level) are bound by the loads in flight.
    constexpr int64_t kUnrollRows = 4096;
    if (product(scan->rowShape) >= kUnrollRows) {
      list.add(writeScan(region, *scan, 256, 4, reason), reason);
      list.add(writeScan(region, *scan, 256, 8, reason), reason);
    }
    list.add(writeScan(region, *scan, 256, 1, reason), reason);
    list.add(writeScan(region, *scan, 128, 1, reason), reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getBlockScanStrategy() {
  static const BlockScanStrategy strategy;
  return strategy;
}
