//===- KernelTask.h - What an agent is asked to write -----------*- C++ -*-===//
//
// A KernelTask describes one outlined region to a kernel-writing agent: its
// MLIR, its operands (shape, dtype, role, in kernel-argument order), its
// size (flops, bytes) and the target. Agent backends see only this; nothing
// below them knows which agent produced a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_KERNELTASK_H
#define CUDA_AGENT_TASK_KERNELTASK_H

#include "cuda-agent/Runner/Protocol.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::cuda_agent {

/// Version of the candidate contract (docs/design.md, Contracts): part of every
/// kernel database key.
constexpr int kContractVersion = 1;

/// One kernel argument: `in<i>` for the region's inputs, then `out<i>`.
struct OperandSpec {
  std::string name;
  SmallVector<int64_t> shape;
  std::string dtype; // f32, f16, bf16, i32
  bool isOutput = false;
};

struct KernelTask {
  std::string regionHash;
  std::string kind; // elementwise, reduction, contraction, convolution, mixed
  std::string regionMlir; // The region as a module holding a public @region.
  SmallVector<OperandSpec> operands; // Inputs, then outputs.
  int64_t flops = 0;
  int64_t bytes = 0;
  std::string arch = "sm_90";
  /// The region's longest reduction (the product of one op's reduction loop
  /// extents) and its accumulator's dtype: a candidate may sum in another
  /// order than the reference's sequential loop, so the verifier widens its
  /// tolerance by this length. 0 and "" when the region reduces nothing.
  int64_t reductionLength = 0;
  std::string reductionAccumulator;
  /// wire::kPrecisionTf32 when the user allows it (`precision=tf32`) and the
  /// region has a product of f32 operands; empty otherwise. The verifier
  /// then uses TF32's tolerance, and regionHash is the region's hash salted
  /// with the precision, so that the kernel database and the jobs keep such
  /// kernels apart from exact ones: one is never served for the other.
  std::string precision;
};

/// Builds the task of `region`, a function outlined by agent-outline (on
/// tensors, with `cuda_agent.region`), under the user's `precision` (one of
/// wire::kPrecisionF32, like torch.set_float32_matmul_precision("highest"),
/// or wire::kPrecisionTf32, like "high"). Fails with an error on the function when
/// it is not such a region.
FailureOr<KernelTask> buildKernelTask(func::FuncOp region, StringRef arch,
                                      StringRef precision = wire::kPrecisionF32);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_KERNELTASK_H
