//===- ConcatParts.cpp - Concatenations written in parts ------------------===//
//
// See ConcatParts.h. The part index goes at the concatenated dimension's
// position of each part's output map, before the dimension's own index: the
// result is (..., parts, size, ...), collapsed back afterwards.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/ConcatParts.h"
#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// The all-parallel linalg op that computes `value` alone and that only
/// `concat` reads (once), with a body that does not read its init; else
/// null. Fills stay what they are (clonable, per region).
static linalg::LinalgOp writesOnlyPart(Value value, tensor::ConcatOp concat) {
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || isa<linalg::FillOp>(op) || !op.hasPureTensorSemantics() ||
      op->getNumResults() != 1 || !value.hasOneUse() ||
      *value.getUsers().begin() != concat.getOperation() ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return {};
  return op;
}

/// `map` with the part index `part` inserted before its result `dim`.
static AffineMap withPart(AffineMap map, unsigned dim, int64_t part) {
  SmallVector<AffineExpr> results(map.getResults());
  results.insert(results.begin() + dim,
                 getAffineConstantExpr(part, map.getContext()));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// Rewrites `concat` into its parts written in place, if it can.
static bool writeInParts(tensor::ConcatOp concat, IRRewriter &rewriter) {
  RankedTensorType type = concat.getResultType();
  unsigned dim = concat.getDim();
  auto inputs = concat.getInputs();
  if (inputs.size() < 2 || !type.hasStaticShape())
    return false;
  int64_t size = cast<RankedTensorType>(inputs.front().getType()).getDimSize(dim);
  for (Value input : inputs) {
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!inputType.hasStaticShape() || inputType.getDimSize(dim) != size)
      return false;
  }
  if (llvm::none_of(inputs, [&](Value input) {
        return static_cast<bool>(writesOnlyPart(input, concat));
      }))
    return false;

  // (..., parts, size, ...) and its collapse into the concatenation's shape.
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  shape.insert(shape.begin() + dim, static_cast<int64_t>(inputs.size()));
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t first = d <= dim ? d : d + 1;
    groups.push_back(d == dim ? ReassociationIndices{first, first + 1}
                              : ReassociationIndices{first});
  }

  // Producers as generics first: nothing is rewritten unless all can be.
  SmallVector<linalg::GenericOp> producers;
  for (Value input : inputs) {
    linalg::GenericOp producer;
    if (linalg::LinalgOp op = writesOnlyPart(input, concat)) {
      FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
      if (failed(generic))
        return false;
      producer = *generic;
    }
    producers.push_back(producer);
  }

  Location loc = concat.getLoc();
  rewriter.setInsertionPoint(concat);
  Value parts = tensor::EmptyOp::create(rewriter, loc, shape,
                                        type.getElementType());
  for (auto [part, input, producer] : llvm::enumerate(inputs, producers)) {
    linalg::GenericOp writer;
    if (producer) {
      SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
      maps.back() = withPart(maps.back(), dim, part);
      writer = linalg::GenericOp::create(
          rewriter, loc, TypeRange{parts.getType()}, producer.getInputs(),
          ValueRange{parts}, maps, producer.getIteratorTypesArray());
      rewriter.inlineRegionBefore(producer.getRegion(), writer.getRegion(),
                                  writer.getRegion().end());
    } else {
      // A copy into the part.
      auto inputType = cast<RankedTensorType>(input.getType());
      AffineMap identity =
          rewriter.getMultiDimIdentityMap(inputType.getRank());
      SmallVector<utils::IteratorType> iterators(
          inputType.getRank(), utils::IteratorType::parallel);
      writer = linalg::GenericOp::create(
          rewriter, loc, TypeRange{parts.getType()}, ValueRange{input},
          ValueRange{parts},
          ArrayRef<AffineMap>{identity, withPart(identity, dim, part)},
          iterators, [](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l, args.front());
          });
    }
    parts = writer.getResult(0);
  }
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(concat, type, parts,
                                                       groups);
  for (linalg::GenericOp producer : producers)
    if (producer)
      rewriter.eraseOp(producer);
  return true;
}

unsigned cuda_agent::writeConcatsInParts(Operation *root) {
  SmallVector<tensor::ConcatOp> concats;
  root->walk([&](tensor::ConcatOp concat) { concats.push_back(concat); });
  IRRewriter rewriter(root->getContext());
  unsigned rewritten = 0;
  for (tensor::ConcatOp concat : concats)
    rewritten += writeInParts(concat, rewriter);
  return rewritten;
}

bool cuda_agent::hasPartIndex(AffineMap outMap) {
  return llvm::any_of(outMap.getResults(),
                      [](AffineExpr e) { return isa<AffineConstantExpr>(e); });
}

AffineMap cuda_agent::withoutPartIndices(AffineMap outMap) {
  SmallVector<AffineExpr> results;
  for (AffineExpr result : outMap.getResults())
    if (!isa<AffineConstantExpr>(result))
      results.push_back(result);
  return AffineMap::get(outMap.getNumDims(), outMap.getNumSymbols(), results,
                        outMap.getContext());
}
