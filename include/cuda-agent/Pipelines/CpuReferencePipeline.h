//===- CpuReferencePipeline.h - Regions as plain C-callable loops -*- C++ -*-===//
//
// The CPU reference: a region lowered to plain loop nests on the host, as a
// C-callable function taking one bare pointer per input and then per output.
// It shares nothing with the GPU path after bufferization, so comparing the
// two checks the default lowering, and later an agent's kernels, on any
// machine.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_PIPELINES_CPUREFERENCEPIPELINE_H
#define CUDA_AGENT_PIPELINES_CPUREFERENCEPIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::cuda_agent {

/// Adds the CPU reference lowering to `pm` (on a builtin.module): bufferize
/// to out-parameters, free temporaries, linalg to serial loops, and to the
/// LLVM dialect with bare-pointer memrefs (`void f(T *in0, ..., T *out0)`).
/// `mlir-translate --mlir-to-llvmir` and any C compiler finish the job.
void buildCpuReferencePipeline(OpPassManager &pm);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_CPUREFERENCEPIPELINE_H
