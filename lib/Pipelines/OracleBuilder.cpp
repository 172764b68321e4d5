//===- OracleBuilder.cpp - The f64 oracle of a region ------------*- C++ -*-===//
//
// Promotes a copy of a region to f64 in place: every result and block
// argument whose type is f16/bf16/f32 (or a shaped type of them) becomes f64,
// float constants are converted exactly, casts between float types that
// promotion made trivial are dropped, tensor (and scalar) inputs are extended
// by an elementwise linalg.generic at entry and results truncated the same
// way before the return, so the signature, and with it every buffer of the
// launch plan, stays the reference's. The promoted copy is then lowered by
// lowerToLaunchPlan like any region.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/OracleBuilder.h"
#include "cuda-agent/Pipelines/BundleEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Whether `type` is a float type the oracle computes in f64.
static bool isPromoted(Type type) { return type.isF16() || type.isBF16() || type.isF32(); }

/// `type` with every promoted float type (scalar or element) made f64.
static Type promote(Type type) {
  Builder builder(type.getContext());
  if (isPromoted(type))
    return builder.getF64Type();
  if (auto shaped = dyn_cast<ShapedType>(type))
    if (isPromoted(shaped.getElementType()))
      return shaped.clone(builder.getF64Type());
  return type;
}

/// `attr` (a constant's value) in f64, or null when it has no promoted type.
static TypedAttr promoteAttr(TypedAttr attr) {
  Type type = promote(attr.getType());
  if (type == attr.getType())
    return nullptr;
  if (auto number = dyn_cast<FloatAttr>(attr))
    return FloatAttr::get(type, number.getValueAsDouble());
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense)
    return nullptr;
  auto toDouble = [](APFloat value) {
    bool lost = false;
    value.convert(APFloat::IEEEdouble(), llvm::RoundingMode::NearestTiesToEven, &lost);
    return value;
  };
  auto shaped = cast<ShapedType>(type);
  if (dense.isSplat())
    return DenseElementsAttr::get(shaped, toDouble(dense.getSplatValue<APFloat>()));
  SmallVector<APFloat> values;
  for (APFloat value : dense.getValues<APFloat>())
    values.push_back(toDouble(value));
  return DenseElementsAttr::get(shaped, values);
}

/// Converts `value` elementwise to `to` (a float type or a tensor of one):
/// arith.extf/truncf on a scalar, a linalg.generic over a tensor.
static Value convertFloat(OpBuilder &builder, Location loc, Value value, Type to) {
  auto cast = [&](OpBuilder &b, Location l, Value v, Type t) -> Value {
    unsigned from = v.getType().getIntOrFloatBitWidth(), width = t.getIntOrFloatBitWidth();
    if (from < width)
      return arith::ExtFOp::create(b, l, t, v);
    return arith::TruncFOp::create(b, l, t, v);
  };
  auto tensorType = dyn_cast<RankedTensorType>(to);
  if (!tensorType)
    return cast(builder, loc, value, to);
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < tensorType.getRank(); ++d)
    if (tensorType.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(builder, loc, value, d));
  Value init = tensor::EmptyOp::create(builder, loc, tensorType, dynamicSizes);
  unsigned rank = tensorType.getRank();
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{tensorType}, ValueRange{value}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, cast(b, l, args[0], tensorType.getElementType()));
      });
  return generic.getResult(0);
}

/// Whether `type` can be extended or truncated by convertFloat().
static bool isConvertible(Type type) {
  if (isPromoted(type))
    return true;
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isPromoted(tensor.getElementType());
}

FailureOr<OwningOpRef<ModuleOp>> cuda_agent::buildF64Oracle(func::FuncOp region) {
  if (region.isExternal())
    return failure();
  // Nothing to promote: the reference already is its own oracle.
  bool hasPromoted = false;
  region.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      hasPromoted |= promote(type) != type;
    for (Region &nested : op->getRegions())
      for (Block &block : nested)
        for (BlockArgument arg : block.getArguments())
          hasPromoted |= promote(arg.getType()) != arg.getType();
  });
  if (!hasPromoted)
    return failure();

  MLIRContext *context = region.getContext();
  OwningOpRef<ModuleOp> module = ModuleOp::create(region.getLoc());
  auto oracle = cast<func::FuncOp>(region->clone());
  module->push_back(oracle);
  // Calls would need their callees promoted too; regions have none.
  bool callsOut = false;
  oracle.walk([&](Operation *op) { callsOut |= isa<func::CallOp>(op); });
  if (callsOut)
    return failure();

  Block &entry = oracle.getBody().front();
  // Retype the body: results, block arguments of nested regions, constants.
  oracle.walk([&](Operation *op) {
    if (op == oracle.getOperation())
      return;
    for (Region &nested : op->getRegions())
      for (Block &block : nested)
        for (BlockArgument arg : block.getArguments())
          arg.setType(promote(arg.getType()));
    for (OpResult result : op->getResults())
      result.setType(promote(result.getType()));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (TypedAttr promoted = promoteAttr(constant.getValue()))
        constant.setValueAttr(promoted);
  });
  // Casts between float types that are now both f64 are no-ops.
  SmallVector<Operation *> trivialCasts;
  oracle.walk([&](Operation *op) {
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
        op->getOperand(0).getType() == op->getResult(0).getType())
      trivialCasts.push_back(op);
  });
  for (Operation *op : trivialCasts) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
  // Inputs: extended at entry; the entry block keeps the signature's types.
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    Type promoted = promote(arg.getType());
    if (promoted == arg.getType() || arg.use_empty())
      continue;
    if (!isConvertible(arg.getType()))
      return failure();
    Value extended = convertFloat(builder, arg.getLoc(), arg, promoted);
    arg.replaceAllUsesExcept(extended, extended.getDefiningOp());
  }
  // Results: truncated back to the signature's types before each return.
  WalkResult returns = oracle.walk([&](func::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    for (auto [operand, type] :
         llvm::zip(ret->getOpOperands(), oracle.getFunctionType().getResults())) {
      if (operand.get().getType() == type)
        continue;
      if (!isConvertible(type))
        return WalkResult::interrupt();
      operand.set(convertFloat(builder, ret.getLoc(), operand.get(), type));
    }
    return WalkResult::advance();
  });
  if (returns.wasInterrupted())
    return failure();
  // An op whose verifier ties a float type to something else (a bitcast, an
  // attribute naming the type) makes the promotion invalid: no oracle.
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  if (failed(verify(*module)))
    return failure();
  return module;
}

FailureOr<LaunchPlan> cuda_agent::lowerF64Oracle(func::FuncOp region,
                                                 const DefaultLoweringOptions &options) {
  FailureOr<OwningOpRef<ModuleOp>> oracle = buildF64Oracle(region);
  if (failed(oracle))
    return failure();
  auto promoted = (**oracle).lookupSymbol<func::FuncOp>(region.getSymName());
  return lowerToLaunchPlan(promoted, options);
}
