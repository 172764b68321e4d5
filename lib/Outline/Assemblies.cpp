//===- Assemblies.cpp - Tensors assembled from parts ----------------------===//
//
// See Assemblies.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/Assemblies.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

void cuda_agent::expandRankReducingInserts(Operation *root) {
  SmallVector<tensor::InsertSliceOp> inserts;
  root->walk([&](tensor::InsertSliceOp insert) {
    if (insert.getSourceType().getRank() < insert.getDestType().getRank() &&
        isStaticTensor(insert.getSourceType()) &&
        isStaticTensor(insert.getDestType()) && insert.getOffsets().empty() &&
        insert.getSizes().empty() && insert.getStrides().empty())
      inserts.push_back(insert);
  });
  if (inserts.empty())
    return;
  IRRewriter rewriter(root->getContext());
  llvm::SmallPtrSet<Operation *, 4> expansions;
  for (tensor::InsertSliceOp insert : inserts) {
    auto box = RankedTensorType::get(insert.getStaticSizes(),
                                     insert.getSourceType().getElementType());
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(insert.getSourceType(), box);
    if (!groups)
      continue;
    rewriter.setInsertionPoint(insert);
    auto expand = tensor::ExpandShapeOp::create(
        rewriter, insert.getLoc(), box, insert.getSource(), *groups);
    rewriter.modifyOpInPlace(
        insert, [&] { insert.getSourceMutable().assign(expand); });
    expansions.insert(expand);
  }
  // Only the expansions made here fold into their producers; reshapes of
  // empties (the inits the fusion expands, and any others) fold into
  // empties of the new shape.
  RewritePatternSet patterns(root->getContext());
  tensor::populateFoldTensorEmptyPatterns(patterns);
  linalg::populateFoldReshapeOpsByExpansionPatterns(
      patterns, [&](OpOperand *fused) {
        return expansions.contains(fused->getOwner()) &&
               fused->get().hasOneUse();
      });
  (void)applyPatternsGreedily(root, std::move(patterns));
}
