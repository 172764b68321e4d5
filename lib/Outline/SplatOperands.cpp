//===- SplatOperands.cpp - Fold splat tensor operands into bodies ---------===//
//
// See SplatOperands.h. The generic is rebuilt without the folded inputs and
// takes the old body, whose block arguments for them are replaced by scalar
// constants at the block's start and erased.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/SplatOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The splat value of `value` when an `arith.constant` of a ranked tensor
/// defines it, else null.
static TypedAttr splatOf(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant || !isa<RankedTensorType>(constant.getType()))
    return {};
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return {};
  return dense.getSplatValue<TypedAttr>();
}

unsigned cuda_agent::foldSplatOperands(Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp generic) {
    if (llvm::any_of(generic.getDpsInputOperands(), [](OpOperand *input) {
          return splatOf(input->get()) != nullptr;
        }))
      generics.push_back(generic);
  });
  unsigned folded = 0;
  for (linalg::GenericOp generic : generics) {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<std::pair<unsigned, TypedAttr>> splats; // block arg, value
    for (OpOperand *input : generic.getDpsInputOperands()) {
      unsigned index = input->getOperandNumber();
      if (TypedAttr value = splatOf(input->get())) {
        splats.push_back({index, value});
        continue;
      }
      inputs.push_back(input->get());
      maps.push_back(generic.getMatchingIndexingMap(input));
    }
    for (OpOperand &init : generic.getDpsInitsMutable())
      maps.push_back(generic.getMatchingIndexingMap(&init));
    OpBuilder builder(generic);
    auto rebuilt = linalg::GenericOp::create(
        builder, generic.getLoc(), generic->getResultTypes(), inputs,
        generic.getDpsInits(), maps, generic.getIteratorTypesArray());
    rebuilt->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
    rebuilt.getRegion().takeBody(generic.getRegion());
    Block &body = rebuilt.getRegion().front();
    builder.setInsertionPointToStart(&body);
    for (auto [index, value] : llvm::reverse(splats)) {
      Value scalar =
          arith::ConstantOp::create(builder, generic.getLoc(), value);
      body.getArgument(index).replaceAllUsesWith(scalar);
      body.eraseArgument(index);
      ++folded;
    }
    llvm::SetVector<Value> operands(generic->operand_begin(),
                                    generic->operand_end());
    generic->replaceAllUsesWith(rebuilt->getResults());
    generic->erase();
    for (Value operand : operands)
      if (splatOf(operand) && operand.use_empty())
        operand.getDefiningOp()->erase();
  }
  return folded;
}
