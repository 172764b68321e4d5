//===- TransposedProducts.cpp - A product's transpose as its output map ---===//
//
// See TransposedProducts.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/TransposedProducts.h"
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
