//===- DefaultLoweringPipeline.h - The default lowering ---------*- C++ -*-===//
//
// MLIR's honest GPU baseline as one pipeline: linalg on tensors ->
// bufferization -> scf.parallel -> gpu.launch -> NVVM -> cubin, with the host
// either left in func/arith/gpu form (what launch-plan extraction reads) or
// lowered to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_PIPELINES_DEFAULTLOWERINGPIPELINE_H
#define CUDA_AGENT_PIPELINES_DEFAULTLOWERINGPIPELINE_H

#include "cuda-agent/Lowering/DefaultLowering.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::cuda_agent {

/// How far the host side is lowered.
enum class HostStage {
  /// To the LLVM dialect, with the mgpu* runtime calls (ready for
  /// mlir-translate --mlir-to-llvmir).
  LLVM,
  /// Stop right after gpu-module-to-binary: the host is func/arith/gpu ops
  /// (constants, gpu.alloc, gpu.memcpy, gpu.launch_func, gpu.dealloc, calls).
  GPU,
};

/// Options of the default lowering.
struct DefaultLoweringOptions {
  /// The NVVM target chip.
  std::string chip = "sm_90";
  /// The NVVM target features; sm_90 needs PTX 8.0 or newer.
  std::string features = "+ptx80";
  /// How far the host side is lowered.
  HostStage hostStage = HostStage::LLVM;
  /// Attach the PTX of every kernel module to its gpu.binary as
  /// `cuda_agent.ptx`.
  bool keepPtx = false;
  /// The CUDA toolkit (ptxas, libdevice); empty means upstream's lookup:
  /// $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH, else the place found at build time.
  /// Without libdevice, kernels that call math functions fail in ptxas.
  std::string toolkitPath;
};

/// Adds the front half every lowering of a region shares: decompose
/// aggregated ops, bufferize with identity layouts across function
/// boundaries, and turn results into out-parameters after the inputs.
void addBufferizeToOutParams(OpPassManager &pm);

/// Adds the default lowering to `pm`, which must run on a builtin.module of
/// functions on static-shape tensors (linalg, arith, math, tensor). Function
/// arguments and results become device buffers; results become out-params.
/// Every non-external function is lowered, the private `cuda_agent.region`
/// functions of agent-outline included; external declarations are kept.
/// A region carrying the kernel agent-generate chose (`cuda_agent.kernel`)
/// is spliced right after bufferization and launches that kernel instead.
void buildDefaultLoweringPipeline(OpPassManager &pm,
                                  const DefaultLoweringOptions &options);

/// The command-line form of DefaultLoweringOptions.
struct DefaultLoweringPipelineOptions
    : public PassPipelineOptions<DefaultLoweringPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU architecture the kernels are compiled for, for "
                     "example `chip=sm_80`."),
      llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("The NVVM target features, for example "
                     "`features=+ptx83`; the PTX version must support the "
                     "chip."),
      llvm::cl::init("+ptx80")};
  Option<HostStage> host{
      *this, "host",
      llvm::cl::desc("How far the host code is lowered, for example "
                     "`host=gpu`: `llvm` (the default) lowers it to the LLVM "
                     "dialect, `gpu` stops after gpu-module-to-binary with the "
                     "host still in func, arith and gpu ops."),
      llvm::cl::init(HostStage::LLVM),
      llvm::cl::values(
          clEnumValN(HostStage::LLVM, "llvm", "lower the host to LLVM"),
          clEnumValN(HostStage::GPU, "gpu",
                     "stop with the host in func/arith/gpu ops"))};
  Option<bool> keepPtx{
      *this, "keep-ptx",
      llvm::cl::desc("Attach the PTX of each kernel module to its gpu.binary "
                     "as the string attribute `cuda_agent.ptx`, for example "
                     "`keep-ptx=true`."),
      llvm::cl::init(false)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit that provides ptxas and libdevice, for "
                     "example `toolkit=/usr/local/cuda`; by default it is "
                     "taken from $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH."),
      llvm::cl::init("")};

  /// Returns the options as the pipeline builder takes them.
  DefaultLoweringOptions toOptions() const;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_DEFAULTLOWERINGPIPELINE_H
