//===- CpuReferencePipeline.cpp - Regions as plain C-callable loops ---------===//
//
// See CpuReferencePipeline.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/CpuReferencePipeline.h"
#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void cuda_agent::buildCpuReferencePipeline(OpPassManager &pm) {
  addBufferizeToOutParams(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Strided copies would call the memrefCopy runtime function: loops instead.
  pm.addNestedPass<func::FuncOp>(createAgentStridedCopiesPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // LLVM intrinsics where there is one, libm for the rest.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLlvm;
  funcToLlvm.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLlvm));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}
