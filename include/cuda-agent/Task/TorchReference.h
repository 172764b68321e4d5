//===- TorchReference.h - Regions as PyTorch modules ------------*- C++ -*-===//
//
// The reference the language-model prompts quote in the form kernel models
// were trained on (KernelBench). It belongs to no agent backend.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_TORCHREFERENCE_H
#define CUDA_AGENT_TASK_TORCHREFERENCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::cuda_agent {

/// The region as a PyTorch program in KernelBench form (`class Model` whose
/// `forward(in0, ...)` returns the outputs in order, `get_inputs()` with
/// random tensors of the operands' shapes and dtypes, `get_init_inputs()`),
/// the form kernel models were trained on. Matmul, transpose, softmax and
/// NHWC convolution become their torch calls; other structured ops are
/// written from their indexing maps and bodies (docs/llm-agents.md). An
/// error says what it cannot spell; the prompt then keeps only the C loops.
llvm::Expected<std::string> renderTorchReference(llvm::StringRef regionMlir);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_TORCHREFERENCE_H
