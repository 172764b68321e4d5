//===- KernelSplicer.h - Splice verified kernels into regions ---*- C++ -*-===//
//
// The last step of the agent flow: a region whose candidate kernel was
// verified and found faster gets its body replaced by launches of that
// kernel, from a `gpu.binary` holding its cubin. Everything else in the
// program still lowers the default way.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_SPLICE_KERNELSPLICER_H
#define CUDA_AGENT_SPLICE_KERNELSPLICER_H

#include "cuda-agent/Lowering/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::cuda_agent {

/// File name of a candidate bundle's CUDA source.
constexpr llvm::StringLiteral kCandidateSourceName = "kernel.cu";

/// Name of the attribute recording where a spliced kernel came from.
constexpr llvm::StringLiteral kSplicedAttrName = "cuda_agent.spliced";

/// Name of the attribute by which agent-generate hands a region's winning
/// kernel to agent-splice: `{plan = "<plan.json text>", objects = {<file> =
/// "<bytes>", ...}}`.
constexpr llvm::StringLiteral kKernelAttrName = "cuda_agent.kernel";

/// Attaches `plan` (with its objects and provenance) to the region function
/// `func` as `cuda_agent.kernel`, for spliceFromAttributes.
void attachKernel(func::FuncOp func, const LaunchPlan &plan);

/// Replaces the body of `func`, a bufferized region function (static
/// identity-layout memref arguments: the inputs, then the outputs; no
/// results), with `gpu.launch_func`s of `plan`'s kernels, one `gpu.binary`
/// per kernel object, `gpu.alloc`s for its temporaries and workspace. The
/// plan's input and output buffers, in order, must match the arguments in
/// shape and element type. Provenance
/// (the plan's extra keys: agent, model, speedup, ...) and the CUDA source
/// when the plan carries one land in `cuda_agent.spliced`. On failure the
/// function is unchanged.
LogicalResult spliceKernel(func::FuncOp func, const LaunchPlan &plan);

/// Splices every region function of `module` (with `cuda_agent.region`)
/// whose hash has a candidate bundle in `dir`/<hash>/ (plan.json, the
/// objects it names, and `kernel.cu`, the source, when there is one);
/// regions without one keep their body. Returns how many were spliced.
FailureOr<unsigned> spliceFromDirectory(ModuleOp module, StringRef dir);

/// Reads the plan (with its objects) that attachKernel put on `func`;
/// emits an error on `func` when it is missing or malformed.
FailureOr<LaunchPlan> readAttachedKernel(func::FuncOp func);

/// Splices every region function of `module` that carries
/// `cuda_agent.kernel` (see attachKernel) and removes that attribute.
/// Returns how many were spliced.
FailureOr<unsigned> spliceFromAttributes(ModuleOp module);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_SPLICE_KERNELSPLICER_H
