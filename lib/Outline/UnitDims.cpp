//===- UnitDims.cpp - Drop unit dimensions from linalg generics -*- C++ -*-===//
//
// See UnitDims.h. The rewrite is upstream's (populateFoldUnitExtentDims*),
// driven as upstream's pass drives it: one walk for the dropping patterns,
// which are not meant for a greedy driver, then the canonicalizations that
// fold `collapse_shape(expand_shape(x))` back to `x`. It only runs when some
// generic reads a keepdim operand (a constant index in its map), and leaves
// products and the generics around them alone.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/UnitDims.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::cuda_agent;

static bool isProduct(linalg::LinalgOp op) {
  return linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op);
}

static bool readsKeepdim(linalg::GenericOp op) {
  return llvm::any_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return llvm::any_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>);
  });
}

/// The products under `root` and the generics the outliner may fuse with
/// them: the elementwise chains before and after a product, and a reduction
/// that reads or feeds one of those (not followed further). A reshape between
/// any two of them would split a product from its epilogue.
static DenseSet<Operation *> productNeighbourhoods(Operation *root) {
  DenseSet<Operation *> kept;
  SmallVector<Operation *> work;
  root->walk([&](linalg::LinalgOp op) {
    if (isProduct(op) && kept.insert(op).second)
      work.push_back(op);
  });
  auto visit = [&](Operation *other) {
    auto generic = dyn_cast_or_null<linalg::GenericOp>(other);
    if (!generic || !kept.insert(generic).second)
      return;
    if (generic.getNumReductionLoops() == 0)
      work.push_back(generic); // an epilogue or prologue: follow it
  };
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value operand : op->getOperands())
      visit(operand.getDefiningOp());
    for (Operation *user : op->getUsers())
      visit(user);
  }
  return kept;
}

LogicalResult cuda_agent::dropUnitDimsFromGenerics(Operation *root) {
  bool any = false;
  root->walk([&](linalg::GenericOp op) { any |= readsKeepdim(op); });
  if (!any)
    return success(); // leave every other program untouched
  DenseSet<Operation *> kept = productNeighbourhoods(root);
  linalg::ControlDropUnitDims options;
  options.controlFn = [&](Operation *op) {
    SmallVector<unsigned> dims;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && !kept.contains(generic))
      dims = llvm::to_vector(llvm::seq<unsigned>(0, generic.getNumLoops()));
    // A generic of only unit loops keeps them: a rank-0 region has nothing
    // to gain and no shape to launch over.
    if (generic && llvm::all_of(generic.getStaticLoopRanges(),
                                [](int64_t range) { return range == 1; }))
      dims.clear();
    return dims;
  };
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
  walkAndApplyPatterns(root, std::move(patterns));
  RewritePatternSet cleanup(context);
  linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(cleanup, options);
  return applyPatternsGreedily(root, std::move(cleanup));
}
