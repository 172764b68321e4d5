//===- Executor.h - A plan run on the caller's memory and stream -*- C++ -*-===//
//
// PlanExecutor is the plan runner for a host program that owns the memory:
// it loads a plan's kernels once into the primary context of one GPU (the
// context the CUDA runtime, and so PyTorch, uses) and enqueues the plan's
// launches and copies on a stream the caller gives, with the device address
// of every buffer given by the caller too. It allocates nothing, checks
// nothing on the device and never synchronizes, so a plan costs what its
// launches cost. PlanRunner (Runner.h) is the verifier's runner; this one is
// what the Python package's extension wraps.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_EXECUTOR_H
#define CUDA_AGENT_RUN_EXECUTOR_H

#include "Driver.h"
#include "Plan.h"

#include <cstdint>
#include <vector>

namespace mlir::cuda_agent {

class PlanExecutor {
public:
  /// Initializes the driver, retains device `ordinal`'s primary context and
  /// loads every object and kernel of `plan`. Throws RunnerError(kExitCuda)
  /// naming the launch whose module or kernel fails.
  PlanExecutor(const Driver &driver, const Plan &plan, int ordinal);
  ~PlanExecutor();
  PlanExecutor(const PlanExecutor &) = delete;
  PlanExecutor &operator=(const PlanExecutor &) = delete;

  /// Enqueues every step of the plan on `stream` (0: the legacy default
  /// stream) with buffer `i` at `buffers[i]`: one address per entry of
  /// Plan::buffers (views already resolve to their base), each at least
  /// numBytes() long and 16-byte aligned. Temps hold whatever the caller put
  /// there; plans expect them zeroed. Throws RunnerError(kExitUsage) for a
  /// wrong count or a null or misaligned address of a non-empty buffer, and
  /// RunnerError(kExitCuda) naming the step whose enqueue fails.
  void enqueue(const std::vector<CUdeviceptr> &buffers, CUstream stream);

private:
  /// Loads every object once and looks up every launch's kernel.
  void loadKernels();

  const Driver &driver;
  const Plan &plan;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions; ///< one per step; null for copies
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_EXECUTOR_H
