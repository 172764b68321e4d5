//===- DefaultLoweringPipeline.cpp - The default lowering -------*- C++ -*-===//
//
// Upstream's gpu-lower-to-nvvm-pipeline split into its pieces (so that the
// host can stop right after gpu-module-to-binary) and preceded by the
// linalg -> gpu.launch steps, with the cuda-agent passes where the upstream
// recipe falls short. Comments name the pitfall each step avoids.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::cuda_agent;

/// Adds canonicalize and cse to `pm`.
static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void cuda_agent::addBufferizeToOutParams(OpPassManager &pm) {
  // linalg.softmax is left alone by the linalg-to-loops conversions.
  pm.addNestedPass<func::FuncOp>(createAgentDecomposeAggregatedPass());
  pm.addPass(createCanonicalizerPass());
  // Tensors the caller passes are values: copied before they are written.
  pm.addNestedPass<func::FuncOp>(createAgentReadOnlyArgumentsPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results become out-params, so that every buffer a kernel writes is
  // either an argument or a temporary of the host function.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  addCleanup(pm);
}

/// linalg on tensors -> functions on device buffers whose loops are
/// gpu.launch ops.
static void addLinalgToGpuLaunch(OpPassManager &pm) {
  // A thread per output element: few outputs with a long reduction would
  // leave most of the GPU idle and each thread reading millions of elements.
  pm.addNestedPass<func::FuncOp>(createAgentSplitLongReductionsPass());
  // A reduction loop outside a parallel one would become a host loop
  // launching one kernel per step.
  pm.addNestedPass<func::FuncOp>(createAgentParallelLoopsOutwardPass());
  addBufferizeToOutParams(pm);
  // Regions whose kernel agent-generate chose launch it; the rest lower
  // below.
  pm.addPass(createAgentSplicePass());

  // No canonicalization between tiling and conversion: it would merge the
  // tile loops back into one loop.
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  // Slices, concatenations and pads copy into or out of subviews: copy
  // kernels, not host copies.
  funcPm.addPass(createAgentStridedCopiesPass());
  funcPm.addPass(createConvertLinalgToParallelLoopsPass());
  funcPm.addPass(createAgentGpuLoopsPass());
  // The last (contiguous) loop dimension goes to threadIdx.x.
  funcPm.addPass(createGpuMapParallelLoopsPass(
      GpuMapParallelLoopsPassOptions{/*mappingPolicyStr=*/"innermost-first"}));
  funcPm.addPass(createConvertParallelLoopToGpuPass());
  addCleanup(pm);

  // Kernels get device pointers; and without sinking, kernels would take
  // their constants as scalar arguments.
  pm.addNestedPass<func::FuncOp>(createAgentDeviceBuffersPass());
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  addCleanup(pm);
}

/// The toolkit to compile kernels with: the option, else upstream's own
/// lookup (CUDA_ROOT, CUDA_PATH, CUDA_HOME), else /usr/local/cuda. Without
/// one, libdevice is not found and kernels calling math functions fail.
static std::string resolveToolkit(const DefaultLoweringOptions &options) {
  if (!options.toolkitPath.empty())
    return options.toolkitPath;
  for (const char *var : {"CUDA_ROOT", "CUDA_PATH", "CUDA_HOME"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
  return "/usr/local/cuda";
}

/// gpu.module -> gpu.binary with a cubin for `options.chip`.
static void addKernelsToBinary(OpPassManager &pm,
                               const DefaultLoweringOptions &options) {
  std::string toolkit = resolveToolkit(options);
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createStripDebugInfoPass());
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(memref::createExpandStridedMetadataPass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.useBarePtrCallConv = true;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  // The math ops it has no libdevice call for (math.trunc) as LLVM's
  // intrinsics, which NVPTX selects.
  gpuPm.addPass(createConvertMathToLLVMPass());
  gpuPm.addPass(LLVM::createNVVMOptimizeForTargetPass());
  addCleanup(gpuPm);
  gpuPm.addPass(createReconcileUnrealizedCastsPass());

  if (options.keepPtx) {
    pm.addPass(createAgentGpuModuleToBinaryPass(
        AgentGpuModuleToBinaryPassOptions{toolkit}));
  } else {
    GpuModuleToBinaryPassOptions toBinary;
    toBinary.compilationTarget = "bin";
    toBinary.toolkitPath = toolkit;
    pm.addPass(createGpuModuleToBinaryPass(toBinary));
  }
}

/// Host func/arith/gpu ops -> LLVM dialect with mgpu* runtime calls.
static void addHostToLLVM(OpPassManager &pm) {
  // Synchronous gpu.alloc/gpu.dealloc do not lower: put everything on one
  // stream first.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  GpuToLLVMConversionPassOptions gpuToLlvm;
  gpuToLlvm.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(gpuToLlvm));
  addCleanup(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void cuda_agent::buildDefaultLoweringPipeline(
    OpPassManager &pm, const DefaultLoweringOptions &options) {
  addLinalgToGpuLaunch(pm);
  addKernelsToBinary(pm, options);
  if (options.hostStage == HostStage::LLVM)
    addHostToLLVM(pm);
}

DefaultLoweringOptions DefaultLoweringPipelineOptions::toOptions() const {
  DefaultLoweringOptions options;
  options.chip = chip;
  options.features = features;
  options.hostStage = host;
  options.keepPtx = keepPtx;
  options.toolkitPath = toolkit;
  return options;
}
