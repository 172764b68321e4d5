//===- cuda-agent-opt.cpp - The cuda-agent opt tool -------------------------===//
//
// mlir-opt with the upstream dialects and passes of the linalg -> GPU -> LLVM
// path and every cuda-agent pass.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::cuda_agent::registerAllDialects(registry);
  mlir::cuda_agent::registerUpstreamPasses();
  mlir::cuda_agent::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "cuda-agent-opt: MLIR with a kernel-writing agent as a "
                  "GPU lowering backend\n",
      registry));
}
