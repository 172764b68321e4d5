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
/// them: the elementwise chain after a product (its epilogue) with the
/// reductions that read it (not followed further), and a product's
/// elementwise operand producers (casts, transposes; not followed further).
/// A reshape between any two of them would split a product from what it
/// fuses. What comes before a prologue (a layer norm feeding a linear layer)
/// is not part of it.
static DenseSet<Operation *> productNeighbourhoods(Operation *root) {
  DenseSet<Operation *> kept;
  SmallVector<Operation *> work;
  auto isElementwise = [](linalg::GenericOp generic) {
    return generic.getNumReductionLoops() == 0;
  };
  root->walk([&](linalg::LinalgOp op) {
    if (!isProduct(op) || !kept.insert(op).second)
      return;
    work.push_back(op);
    for (Value operand : op->getOperands())
      if (auto producer = operand.getDefiningOp<linalg::GenericOp>())
        if (isElementwise(producer))
          kept.insert(producer);
  });
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Operation *user : op->getUsers()) {
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (generic && kept.insert(generic).second && isElementwise(generic))
        work.push_back(generic); // the epilogue goes on
    }
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
