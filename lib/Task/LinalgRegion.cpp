//===- LinalgRegion.cpp - A region read as its linalg ops -----------------===//
//
// Reads a parsed region's top-level ops (tensor arguments, fills, constants,
// linalg ops generalized, the returned tensors) for the writers that spell it
// as C: the builtin agent and the prompts' loop-nest reference.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Task/LinalgRegion.h"
#include "cuda-agent/Outline/Assemblies.h"
#include "cuda-agent/Outline/SliceReads.h"
#include "cuda-agent/Task/CudaExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Reads a `tensor.pad` of a region argument, or of a slice of one that the
/// outliner moved in with it (SliceReads.h: padOfSlice), with static padding
/// and a constant value.
static FailureOr<RegionPad> readPad(tensor::PadOp pad, std::string &why) {
  RegionPad read;
  read.source = pad.getSource();
  std::optional<PadOfSlice> sliced = padOfSlice(pad);
  if (sliced)
    read.source = sliced->slice.getSource();
  if (!isa<BlockArgument>(read.source) ||
      !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty()) {
    why = "a tensor.pad of other than a region argument by static amounts";
    return failure();
  }
  Attribute value;
  Value padding = pad.getConstantPaddingValue();
  if (!padding || !matchPattern(padding, m_Constant(&value))) {
    why = "a tensor.pad whose value is not a constant";
    return failure();
  }
  std::optional<std::string> literal = spellLiteral(value);
  if (!literal) {
    why = "a pad value the builtin agent cannot spell";
    return failure();
  }
  read.value = *literal;
  if (sliced) {
    read.low = sliced->low;
    read.high = sliced->high;
  } else {
    read.low.assign(pad.getStaticLow().begin(), pad.getStaticLow().end());
    read.high.assign(pad.getStaticHigh().begin(), pad.getStaticHigh().end());
  }
  return read;
}

LogicalResult cuda_agent::readLinalgRegion(func::FuncOp func,
                                           LinalgRegion &region,
                                           std::string &why,
                                           bool allowContractions,
                                           bool allowPads, bool allowViews) {
  region.func = func;
  IRRewriter rewriter(func.getContext());
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::FillOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    if (!allowContractions &&
        (isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(
             op.getOperation()) ||
         linalg::isaContractionOpInterface(op))) {
      why = "contractions and convolutions are not in the builtin agent's "
            "part 1 (memory-bound regions)";
      return failure();
    }
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op))) {
      why = "cannot generalize '" + op->getName().getStringRef().str() + "'";
      return failure();
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !getCType(type.getElementType())) {
      why = "argument type is not a static tensor of a handled element type";
      return failure();
    }
    region.inputs.push_back(arg);
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<tensor::EmptyOp>(op))
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Attribute value = constant.getValue();
      if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
        if (!dense.isSplat()) {
          why = "non-splat tensor constants are not handled";
          return failure();
        }
        value = dense.getSplatValue<Attribute>();
      }
      std::optional<std::string> literal = spellLiteral(value);
      if (!literal) {
        why = "a constant the builtin agent cannot spell";
        return failure();
      }
      if (isa<ShapedType>(constant.getType()))
        region.splats[constant] = *literal;
      else
        region.scalars[constant] = *literal;
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      auto it = region.scalars.find(fill.getInputs()[0]);
      if (it == region.scalars.end()) {
        why = "a fill whose value is not a constant";
        return failure();
      }
      region.splats[fill.getResult(0)] = it->second;
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (!generic.hasPureTensorSemantics()) {
        why = "a linalg.generic on buffers";
        return failure();
      }
      for (Value result : generic.getResults())
        if (!getCType(elementOf(result))) {
          why = "a result element type the builtin agent does not handle";
          return failure();
        }
      region.generics.push_back(generic);
      continue;
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      if (!allowPads) {
        why = "a tensor.pad inside the region (a read with bounds of the "
              "unpadded input) is not written yet";
        return failure();
      }
      FailureOr<RegionPad> read = readPad(pad, why);
      if (succeeded(read)) {
        region.pads[pad.getResult()] = std::move(*read);
        continue;
      }
      if (!allowViews)
        return failure();
      region.views.push_back(pad);
      continue;
    }
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) && allowViews) {
      region.views.push_back(&op);
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // Read by the pads under which the outliner moved it in.
      if (isSliceUnderPads(slice))
        continue;
      if (!allowViews) {
        why = "a tensor.extract_slice inside the region other than under a "
              "pad that reads its source with bounds";
        return failure();
      }
      region.views.push_back(slice);
      continue;
    }
    if (isa<tensor::ConcatOp, tensor::InsertSliceOp>(op)) {
      if (!isAssembly(&op) || !getCType(elementOf(op.getResult(0)))) {
        why = "a '" + op.getName().getStringRef().str() +
              "' of dynamic shape or offsets, strides, a rank-reducing "
              "slice or an unhandled element type";
        return failure();
      }
      region.assemblies.push_back(&op);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      region.outputs.assign(ret.getOperands().begin(), ret.getOperands().end());
      continue;
    }
    why = "'" + op.getName().getStringRef().str() + "' is not handled";
    return failure();
  }
  for (Value out : region.outputs)
    if (!out.getDefiningOp<linalg::GenericOp>() &&
        !isAssembly(out.getDefiningOp())) {
      why = "a region output that no linalg.generic, tensor.concat or "
            "tensor.insert_slice computes";
      return failure();
    }
  for (Operation *assembly : region.assemblies)
    if (!llvm::all_of(assembly->getUsers(),
                      llvm::IsaPred<func::ReturnOp, linalg::GenericOp>)) {
      why = "a '" + assembly->getName().getStringRef().str() +
            "' read inside the region by another op than a linalg.generic";
      return failure();
    }
  if (region.generics.empty() && region.assemblies.empty()) {
    why = "no computation";
    return failure();
  }
  return success();
}

int64_t cuda_agent::product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

linalg::GenericOp cuda_agent::findSingleReduction(const LinalgRegion &region) {
  linalg::GenericOp found;
  for (linalg::GenericOp g : region.generics) {
    if (!isReduction(g))
      continue;
    if (found)
      return {};
    found = g;
  }
  return found;
}

std::string cuda_agent::join(ArrayRef<std::string> parts, StringRef sep) {
  return llvm::join(parts.begin(), parts.end(), sep);
}

std::string cuda_agent::linearize(ArrayRef<std::string> idx,
                                  ArrayRef<int64_t> shape,
                                  StringRef indexType) {
  if (idx.empty())
    return "0";
  std::string offset = "(" + indexType.str() + ")(" + idx[0] + ")";
  for (size_t i = 1; i < idx.size(); ++i)
    offset = "(" + offset + " * " + std::to_string(shape[i]) + " + (" + idx[i] +
             "))";
  return offset;
}

FailureOr<std::string> cuda_agent::renderIndexExpr(AffineExpr expr,
                                                   ArrayRef<std::string> dims,
                                                   std::string &why) {
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(c.getValue());
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin || (expr.getKind() != AffineExprKind::Add &&
               expr.getKind() != AffineExprKind::Mul)) {
    why = "an indexing map with other than sums and constant multiples of "
          "loop indices";
    return failure();
  }
  FailureOr<std::string> lhs = renderIndexExpr(bin.getLHS(), dims, why);
  FailureOr<std::string> rhs = renderIndexExpr(bin.getRHS(), dims, why);
  if (failed(lhs) || failed(rhs))
    return failure();
  const char *op = expr.getKind() == AffineExprKind::Add ? " + " : " * ";
  return "(" + *lhs + op + *rhs + ")";
}

FailureOr<SmallVector<std::string>>
cuda_agent::applyIndexingMap(AffineMap map, ArrayRef<std::string> dims,
                             std::string &why) {
  SmallVector<std::string> idx;
  for (AffineExpr e : map.getResults()) {
    FailureOr<std::string> index = renderIndexExpr(e, dims, why);
    if (failed(index))
      return failure();
    idx.push_back(*index);
  }
  return idx;
}

std::string cuda_agent::renderParameters(const LinalgRegion &region,
                                         bool workspace) {
  SmallVector<std::string> params;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    params.push_back("const " + getCType(elementOf(in))->storage +
                     " *__restrict__ in" + std::to_string(i));
  for (auto [i, out] : llvm::enumerate(region.outputs))
    params.push_back(getCType(elementOf(out))->storage + " *__restrict__ out" +
                     std::to_string(i));
  if (workspace)
    params.push_back("unsigned char *__restrict__ workspace");
  return join(params);
}
