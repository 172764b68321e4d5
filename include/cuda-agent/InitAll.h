//===- InitAll.h - Registration for every cuda-agent tool -------*- C++ -*-===//
//
// The one place that says which upstream dialects, interfaces and passes the
// tools need (linalg on tensors -> bufferization -> GPU -> NVVM -> LLVM), and
// which of our own passes exist. Tools and the plugin call these; nothing
// else registers anything.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_INITALL_H
#define CUDA_AGENT_INITALL_H

namespace mlir {
class DialectRegistry;

namespace cuda_agent {

/// Registers the upstream dialects on the linalg -> GPU -> LLVM path and
/// their external interface models (bufferization, tiling, convert-to-LLVM,
/// NVVM target, LLVM IR translations).
void registerAllDialects(DialectRegistry &registry);

/// Registers the upstream passes and pipelines on that path.
void registerUpstreamPasses();

/// Registers every cuda-agent pass and pipeline.
void registerAllPasses();

} // namespace cuda_agent
} // namespace mlir

#endif // CUDA_AGENT_INITALL_H
