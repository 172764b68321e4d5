//===- CudaAgentPlugin.cpp - Pass plugin for stock mlir-opt -----------------===//
//
// Lets `mlir-opt --load-pass-plugin=build/lib/CudaAgentPlugin.so
// --pass-pipeline='builtin.module(agent-outline)'` run our passes.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/InitAll.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "CudaAgentPlugin", LLVM_VERSION_STRING,
          []() { mlir::cuda_agent::registerAllPasses(); }};
}
