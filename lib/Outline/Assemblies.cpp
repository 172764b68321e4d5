//===- Assemblies.cpp - Tensors assembled from parts ----------------------===//
//
// See Assemblies.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/Assemblies.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::cuda_agent;

static bool isStaticTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

bool cuda_agent::isAssembly(Operation *op) {
  if (!op || !llvm::all_of(op->getOperandTypes(), isStaticTensor) ||
      !llvm::all_of(op->getResultTypes(), isStaticTensor))
    return false;
  if (isa<tensor::ConcatOp>(op))
    return true;
  auto insert = dyn_cast<tensor::InsertSliceOp>(op);
  return insert && insert.getOffsets().empty() && insert.getSizes().empty() &&
         insert.getStrides().empty() &&
         insert.getSourceType().getRank() == insert.getDestType().getRank() &&
         llvm::all_of(insert.getStaticStrides(),
                      [](int64_t stride) { return stride == 1; });
}

SmallVector<AssemblyPart> cuda_agent::getAssemblyParts(Operation *op) {
  auto shapeOf = [](Value v) {
    return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
  };
  SmallVector<AssemblyPart> parts;
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    int64_t offset = 0;
    for (Value input : concat.getInputs()) {
      AssemblyPart part{input, SmallVector<int64_t>(shapeOf(input).size(), 0),
                        shapeOf(input)};
      part.offsets[concat.getDim()] = offset;
      offset += part.sizes[concat.getDim()];
      parts.push_back(std::move(part));
    }
    return parts;
  }
  auto insert = cast<tensor::InsertSliceOp>(op);
  parts.push_back({insert.getSource(),
                   SmallVector<int64_t>(insert.getStaticOffsets()),
                   shapeOf(insert.getSource())});
  parts.push_back({insert.getDest(),
                   SmallVector<int64_t>(insert.getDestType().getRank(), 0),
                   shapeOf(insert.getDest())});
  return parts;
}
