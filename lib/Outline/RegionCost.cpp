//===- RegionCost.cpp - What an outlined region computes and moves --------===//
//
// See RegionCost.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/RegionCost.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::cuda_agent;

int64_t cuda_agent::countFlops(func::FuncOp func) {
  int64_t flops = 0;
  func.walk([&](linalg::LinalgOp op) {
    int64_t volume = 1;
    for (int64_t range : op.getStaticLoopRanges())
      volume *= range;
    int64_t bodyOps = llvm::count_if(
        op.getBlock()->without_terminator(),
        [](Operation &bodyOp) {
          return !bodyOp.hasTrait<OpTrait::ConstantLike>() &&
                 !isa<CastOpInterface>(bodyOp);
        });
    flops += volume * bodyOps;
  });
  return flops;
}

/// The elements of `arg` the region reads at least. All of them, except
/// where every reader is a linalg input whose map has a result that is not a
/// loop index (a slice folded into its reader, SliceReads.h) and each result
/// a constant or sums and constant multiples of one loop index: then those
/// the largest reader reaches, the product of the ranges of the loops its
/// results use (each loop once: each result takes distinct values over its
/// loop, and a diagonal's two results one value per step). The largest, not the
/// sum: two slices of one argument may overlap, and the floor this sets
/// must never exceed what a correct kernel moves.
static int64_t countReadElements(BlockArgument arg) {
  auto shaped = cast<ShapedType>(arg.getType());
  int64_t all = shaped.getNumElements(), largest = 0;
  for (OpOperand &use : arg.getUses()) {
    auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!reader || reader.isDpsInit(&use))
      return all;
    AffineMap map = reader.getMatchingIndexingMap(&use);
    if (map.isProjectedPermutation())
      return all;
    llvm::SmallBitVector used(map.getNumDims());
    for (AffineExpr result : map.getResults()) {
      llvm::SmallBitVector dims(map.getNumDims());
      bool linear = true;
      result.walk([&](AffineExpr e) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          dims.set(dim.getPosition());
        linear &= isa<AffineDimExpr, AffineConstantExpr>(e) ||
                  e.getKind() == AffineExprKind::Add ||
                  e.getKind() == AffineExprKind::Mul;
      });
      if (!linear || dims.count() > 1)
        return all;
      used |= dims;
    }
    SmallVector<int64_t> ranges = reader.getStaticLoopRanges();
    int64_t reached = 1;
    for (unsigned d : used.set_bits())
      reached *= ranges[d];
    largest = std::max(largest, reached);
  }
  return std::min(all, largest);
}

int64_t cuda_agent::countBytes(func::FuncOp func) {
  auto bytesOf = [](Type type, int64_t elements) {
    return elements *
           ((cast<ShapedType>(type).getElementTypeBitWidth() + 7) / 8);
  };
  int64_t bytes = 0;
  for (BlockArgument arg : func.getArguments())
    if (isa<ShapedType>(arg.getType()))
      bytes += bytesOf(arg.getType(), countReadElements(arg));
  for (Type type : func.getResultTypes())
    if (auto shaped = dyn_cast<ShapedType>(type))
      bytes += bytesOf(type, shaped.getNumElements());
  return bytes;
}
