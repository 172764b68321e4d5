//===- RegionModule.cpp - A task's region parsed on its own ---------------===//

#include "cuda-agent/Task/RegionModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace mlir::cuda_agent;

void cuda_agent::loadRegionDialects(MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  math::MathDialect, tensor::TensorDialect>();
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

llvm::Expected<RegionModule>
cuda_agent::parseRegionModule(llvm::StringRef regionMlir) {
  RegionModule region;
  region.context =
      std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
  loadRegionDialects(*region.context);
  std::string firstError;
  {
    ScopedDiagnosticHandler handler(region.context.get(), [&](Diagnostic &d) {
      if (firstError.empty())
        firstError = d.str();
      return success();
    });
    region.module =
        parseSourceString<ModuleOp>(regionMlir, region.context.get());
  }
  if (!region.module)
    return llvm::createStringError("cannot parse the region: %s",
                                   firstError.c_str());
  region.func = region.module->lookupSymbol<func::FuncOp>("region");
  if (!region.func || region.func.isExternal())
    return llvm::createStringError("cannot parse the region: no @region");
  return region;
}
