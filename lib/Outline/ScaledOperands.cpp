//===- ScaledOperands.cpp - A product of scaled operands, scaled after ----===//
//
// See ScaledOperands.h. The scale's generic keeps its body: it moves, as
// it is, to the product's result (same element type, identity maps), so the
// factor's computation (torch-mlir truncates an f64 constant in the body)
// comes with it. The product's result is scaled once per moved operand.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/ScaledOperands.h"
#include "cuda-agent/Outline/DeadProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Whether `value`, in `generic`'s body, depends on no block argument and
/// no loop index: a constant, or ops of constants and values from above.
static bool isLoopInvariant(Value value, linalg::GenericOp generic) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner()->getParentOp() != generic;
  Operation *op = value.getDefiningOp();
  if (op->getParentOp() != generic)
    return true;
  if (isa<linalg::IndexOp>(op) || op->getNumRegions() != 0 ||
      !isPure(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isLoopInvariant(operand, generic);
  });
}

/// Whether `generic` is x * c: elementwise (identity maps, all parallel),
/// one input of its result's type, its init unread, its body a multiply of
/// the input's element by a loop-invariant factor.
static bool isScale(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      generic.getDpsInputs()[0].getType() != generic->getResult(0).getType())
    return false;
  Block &body = generic.getRegion().front();
  if (!body.getArgument(1).use_empty())
    return false;
  auto mul = body.getTerminator()->getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value in = body.getArgument(0);
  Value factor = mul.getLhs() == in   ? mul.getRhs()
                 : mul.getRhs() == in ? mul.getLhs()
                                      : Value();
  return factor && isLoopInvariant(factor, generic);
}

/// The scale that operand `input` of a contraction reads, directly or
/// through reshapes that only it reads, or null.
static linalg::GenericOp scaleRead(OpOperand &input) {
  Value value = input.get();
  while (value.hasOneUse()) {
    Operation *op = value.getDefiningOp();
    if (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      value = op->getOperand(0);
      continue;
    }
    auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
    return generic && generic.hasPureTensorSemantics() && isScale(generic)
               ? generic
               : linalg::GenericOp();
  }
  return {};
}

/// Whether `product` is a contraction that starts from a fill of zero.
static bool startsFromZero(linalg::LinalgOp product) {
  if (!product.hasPureTensorSemantics() || product->getNumResults() != 1 ||
      product.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(product) ||
      linalg::isaConvolutionOpInterface(product))
    return false;
  auto fill = product.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  return fill && (matchPattern(fill.value(), m_AnyZeroFloat()) ||
                  matchPattern(fill.value(), m_Zero()));
}

unsigned cuda_agent::hoistOperandScales(Operation *root) {
  SmallVector<linalg::LinalgOp> products;
  root->walk([&](linalg::LinalgOp op) {
    if (startsFromZero(op))
      products.push_back(op);
  });
  unsigned moved = 0;
  IRRewriter builder(root->getContext());
  for (linalg::LinalgOp product : products) {
    auto resultType =
        dyn_cast<RankedTensorType>(product->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      continue;
    for (OpOperand *input : product.getDpsInputOperands()) {
      linalg::GenericOp scale = scaleRead(*input);
      if (!scale || getElementTypeOrSelf(scale->getResult(0).getType()) !=
                        resultType.getElementType())
        continue;
      // The operand read as it lies.
      scale->getResult(0).replaceAllUsesWith(scale.getDpsInputs()[0]);
      // The same scale over the product's result.
      builder.setInsertionPointAfter(product);
      Location loc = scale.getLoc();
      Value empty = tensor::EmptyOp::create(
          builder, loc, resultType.getShape(), resultType.getElementType());
      AffineMap identity =
          builder.getMultiDimIdentityMap(resultType.getRank());
      auto scaled = linalg::GenericOp::create(
          builder, loc, resultType, product->getResult(0), empty,
          {identity, identity},
          SmallVector<utils::IteratorType>(resultType.getRank(),
                                           utils::IteratorType::parallel));
      IRMapping mapping;
      scale.getRegion().cloneInto(&scaled.getRegion(), mapping);
      product->getResult(0).replaceAllUsesExcept(scaled.getResult(0), scaled);
      Value init = scale.getDpsInits()[0];
      builder.eraseOp(scale);
      eraseDeadProducers(builder, init);
      ++moved;
    }
  }
  return moved;
}
