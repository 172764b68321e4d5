//===- KernelTask.cpp - What an agent is asked to write ----------------------===//
//
// Builds a KernelTask from an outlined region function.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Task/KernelTask.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
/// Whether `region` multiplies f32 operands in a contraction or convolution:
/// the products `precision=tf32` may round.
bool hasF32Product(func::FuncOp region) {
  bool found = false;
  region.walk([&](linalg::LinalgOp op) {
    if (!linalg::isaContractionOpInterface(op) &&
        !linalg::isaConvolutionOpInterface(op))
      return;
    found |= llvm::any_of(op.getDpsInputs(), [](Value input) {
      return getElementTypeOrSelf(input).isF32();
    });
  });
  return found;
}
} // namespace

FailureOr<KernelTask> cuda_agent::buildKernelTask(func::FuncOp region,
                                                  StringRef arch,
                                                  StringRef precision) {
  auto attr = region->getAttrOfType<DictionaryAttr>(kRegionAttrName);
  auto hash = attr ? attr.getAs<StringAttr>("hash") : StringAttr();
  if (!hash || region.isExternal())
    return region.emitError("not an outlined region: a kernel task needs a "
                            "function with a body and a cuda_agent.region "
                            "hash");
  KernelTask task;
  task.regionHash = hash.getValue().str();
  task.arch = arch.str();
  if (precision == wire::kPrecisionTf32 && hasF32Product(region)) {
    task.precision = wire::kPrecisionTf32;
    std::string salted = task.regionHash + " precision=" + task.precision;
    task.regionHash = llvm::toHex(
        llvm::SHA256::hash(ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(salted.data()), salted.size())),
        /*LowerCase=*/true);
  }
  if (auto kind = attr.getAs<StringAttr>("kind"))
    task.kind = kind.getValue().str();
  if (auto flops = attr.getAs<IntegerAttr>("flops"))
    task.flops = flops.getInt();
  if (auto bytes = attr.getAs<IntegerAttr>("bytes"))
    task.bytes = bytes.getInt();

  auto addOperand = [&](Type type, bool isOutput,
                        unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !isRegionElementType(tensor.getElementType()))
      return region.emitError() << "cannot describe operand of type " << type
                                << " in a kernel task (static tensors of "
                                << getRegionElementTypesText() << " only)";
    task.operands.push_back({(isOutput ? "out" : "in") + std::to_string(index),
                             SmallVector<int64_t>(tensor.getShape()),
                             getDtypeName(tensor.getElementType()),
                             isOutput});
    return success();
  };
  for (auto [i, type] : llvm::enumerate(region.getArgumentTypes()))
    if (failed(addOperand(type, /*isOutput=*/false, i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(region.getResultTypes()))
    if (failed(addOperand(type, /*isOutput=*/true, i)))
      return failure();

  // The longest reduction and its accumulator (the verifier's tolerance).
  Type accumulator;
  region.walk([&](linalg::LinalgOp op) {
    int64_t length = 1;
    for (auto [range, type] :
         llvm::zip_equal(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction && range > 0)
        length *= range;
    if (length > task.reductionLength && op.getNumReductionLoops() > 0 &&
        op.getNumDpsInits() > 0) {
      task.reductionLength = length;
      accumulator = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
    }
  });
  if (task.reductionLength > 1 && accumulator)
    task.reductionAccumulator = getDtypeName(accumulator);
  if (task.reductionAccumulator.empty())
    task.reductionLength = 0;

  // The region alone, as the bundles carry it: a public @region.
  OwningOpRef<ModuleOp> module = ModuleOp::create(region.getLoc());
  auto copy = cast<func::FuncOp>(region->clone());
  copy.setSymName("region");
  copy.setPublic();
  module->push_back(copy);
  llvm::raw_string_ostream os(task.regionMlir);
  module->print(os);
  return task;
}
