//===- TransposedProducts.cpp - A product's transpose as its output map ---===//
//
// See TransposedProducts.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/TransposedProducts.h"
#include "cuda-agent/Outline/DeadProducers.h"
#include "cuda-agent/Outline/DimensionRoles.h"
#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The contraction `transpose` can be folded into, or null.
static linalg::LinalgOp foldableProduct(linalg::TransposeOp transpose) {
  auto input = dyn_cast<RankedTensorType>(transpose.getInput().getType());
  if (!transpose.hasPureTensorSemantics() || !input ||
      !input.hasStaticShape() ||
      !movesDataDims(transpose.getPermutation(), input.getShape()))
    return {};
  auto product = transpose.getInput().getDefiningOp<linalg::LinalgOp>();
  if (!product || !product.hasPureTensorSemantics() ||
      product->getNumResults() != 1 || !transpose.getInput().hasOneUse() ||
      !linalg::isaContractionOpInterface(product) ||
      linalg::isaConvolutionOpInterface(product))
    return {};
  return product;
}

/// `init` (the product's) under the transposed shape `type`: a fill of the
/// same value where it is a fill, else `init` transposed by `permutation`.
static Value transposedInit(RewriterBase &rewriter, Location loc, Value init,
                            RankedTensorType type,
                            ArrayRef<int64_t> permutation) {
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return linalg::FillOp::create(rewriter, loc, fill.value(), empty)
        .getResult(0);
  return linalg::TransposeOp::create(rewriter, loc, init, empty, permutation)
      .getResult()[0];
}

unsigned cuda_agent::foldTransposedProducts(Operation *root) {
  SmallVector<linalg::TransposeOp> transposes;
  root->walk([&](linalg::TransposeOp op) {
    if (foldableProduct(op))
      transposes.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (linalg::TransposeOp transpose : transposes) {
    FailureOr<linalg::GenericOp> product =
        asGeneric(rewriter, foldableProduct(transpose));
    if (failed(product))
      continue;
    linalg::GenericOp generic = *product;
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    // Result dimension i of the transpose is dimension permutation[i] of the
    // product's result.
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    AffineMap output = maps.back();
    SmallVector<AffineExpr> results;
    for (int64_t from : permutation)
      results.push_back(output.getResult(from));
    maps.back() = AffineMap::get(output.getNumDims(), 0, results,
                                 rewriter.getContext());
    rewriter.setInsertionPoint(transpose);
    auto type = cast<RankedTensorType>(transpose.getResult()[0].getType());
    Value init = transposedInit(rewriter, transpose.getLoc(),
                                generic.getDpsInitOperand(0)->get(), type,
                                permutation);
    auto folded = linalg::GenericOp::create(
        rewriter, generic.getLoc(), TypeRange{type}, generic.getInputs(),
        ValueRange{init}, maps, generic.getIteratorTypesArray());
    rewriter.inlineRegionBefore(generic.getRegion(), folded.getRegion(),
                                folded.getRegion().end());
    rewriter.replaceOp(transpose, folded.getResults());
    rewriter.eraseOp(generic);
  }
  return transposes.size();
}

/// The reassociation of the transpose's input and the permutation of the
/// collapsed transpose that equal `collapse` of `transpose`, when each group
/// of `collapse` is a run of consecutive input dimensions in order.
static bool collapsedTranspose(linalg::TransposeOp transpose,
                               tensor::CollapseShapeOp collapse,
                               SmallVector<ReassociationIndices> &inputGroups,
                               SmallVector<int64_t> &permutation) {
  ArrayRef<int64_t> perm = transpose.getPermutation();
  SmallVector<ReassociationIndices> groups =
      collapse.getReassociationIndices();
  // Each group's first input dimension; the groups sorted by it are the
  // input's collapse.
  SmallVector<std::pair<int64_t, unsigned>> starts;
  for (auto [index, group] : llvm::enumerate(groups)) {
    for (unsigned j = 1; j < group.size(); ++j)
      if (perm[group[j]] != perm[group[j - 1]] + 1)
        return false;
    starts.push_back({perm[group.front()], index});
  }
  llvm::sort(starts);
  permutation.assign(groups.size(), 0);
  for (auto [position, start] : llvm::enumerate(starts)) {
    const ReassociationIndices &group = groups[start.second];
    ReassociationIndices inputGroup;
    for (int64_t dim : group)
      inputGroup.push_back(perm[dim]);
    inputGroups.push_back(inputGroup);
    permutation[start.second] = position;
  }
  return true;
}

unsigned cuda_agent::collapseBeforeTransposes(Operation *root) {
  SmallVector<linalg::TransposeOp> transposes;
  root->walk([&](linalg::TransposeOp op) { transposes.push_back(op); });
  unsigned moved = 0;
  IRRewriter rewriter(root->getContext());
  for (linalg::TransposeOp transpose : transposes) {
    Value result = transpose.getResult()[0];
    auto input = dyn_cast<RankedTensorType>(transpose.getInput().getType());
    if (!transpose.hasPureTensorSemantics() || !input ||
        !input.hasStaticShape() || !result.hasOneUse())
      continue;
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.user_begin());
    SmallVector<ReassociationIndices> inputGroups;
    SmallVector<int64_t> permutation;
    if (!collapse ||
        !collapsedTranspose(transpose, collapse, inputGroups, permutation))
      continue;
    rewriter.setInsertionPoint(collapse);
    Location loc = transpose.getLoc();
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, transpose.getInput(), inputGroups);
    auto type = cast<RankedTensorType>(collapse.getType());
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value transposed = linalg::TransposeOp::create(rewriter, loc, collapsed,
                                                   empty, permutation)
                           .getResult()[0];
    rewriter.replaceOp(collapse, transposed);
    Value init = transpose.getInit();
    rewriter.eraseOp(transpose);
    eraseDeadProducers(rewriter, init);
    ++moved;
  }
  return moved;
}
