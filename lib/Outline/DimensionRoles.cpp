//===- DimensionRoles.cpp - What a product's dimensions are -----*- C++ -*-===//
//
// See DimensionRoles.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/DimensionRoles.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

bool cuda_agent::movesDataDims(ArrayRef<int64_t> permutation,
                               ArrayRef<int64_t> shape) {
  int64_t last = -1;
  for (int64_t from : permutation) {
    if (shape[from] == 1)
      continue;
    if (from < last)
      return true;
    last = from;
  }
  return false;
}

std::optional<int64_t>
cuda_agent::reducedOutputChannels(linalg::LinalgOp conv, AffineMap readMap,
                                  ArrayRef<utils::IteratorType> iterators) {
  if (conv.getNumDpsInputs() != 2 || conv->getNumResults() != 1 ||
      !readMap.isPermutation())
    return std::nullopt;
  auto type = dyn_cast<ShapedType>(conv->getResult(0).getType());
  AffineMap outMap = conv.getMatchingIndexingMap(conv.getDpsInitOperand(0));
  AffineMap inMap = conv.getMatchingIndexingMap(conv.getDpsInputOperand(0));
  AffineMap filterMap = conv.getMatchingIndexingMap(conv.getDpsInputOperand(1));
  if (!type || !type.hasStaticShape() ||
      outMap.getNumResults() != readMap.getNumResults())
    return std::nullopt;
  int64_t channels = 1;
  bool reducesSome = false;
  for (unsigned p = 0; p < outMap.getNumResults(); ++p) {
    auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(p));
    if (!dim)
      return std::nullopt;
    unsigned d = dim.getPosition();
    bool channel = filterMap.isFunctionOfDim(d) && !inMap.isFunctionOfDim(d);
    bool reduced =
        iterators[readMap.getDimPosition(p)] == utils::IteratorType::reduction;
    if (channel != reduced)
      return std::nullopt;
    if (channel) {
      channels *= type.getDimSize(p);
      reducesSome = true;
    }
  }
  if (!reducesSome)
    return std::nullopt;
  return channels;
}
