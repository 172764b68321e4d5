//===- Floors.h - Times no correct candidate can beat -----------*- C++ -*-===//
//
// Two lower bounds on a plan's time, below which a measured time is not a
// fast kernel but a kernel that skipped work (or sensed the verifier):
//
//   - the roofline floor: the bytes of every input and output once, at the
//     device's copy bandwidth (of an input, only what the region reads where
//     the plan's "bytes" says less: a slice folded into its reader);
//   - the compute floor: the region's flops (the outliner's count, carried in
//     the reference plan or jobs.json) at the peak rate of the fastest unit
//     the region's dtype allows: the f16/bf16 tensor-core rate when any
//     input or output is f16 or bf16, else the TF32 tensor-core rate for f32,
//     the FP32 rate (which the H200's FP64 tensor cores match) for f64, and
//     twice the f16 rate (int8 tensor cores) for integer-only regions. The
//     rates are those of cuda-agent/Target/GpuTarget.h for the plan's chip.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_FLOORS_H
#define CUDA_AGENT_RUN_FLOORS_H

#include "Plan.h"

#include <cstdint>
#include <string>

namespace mlir::cuda_agent {

/// The peak rate a region of `plan` may reach, and the unit's name.
struct PeakRate {
  double flopsPerSecond;
  std::string unit; ///< e.g. "TF32 tensor-core peak of sm_90"
};

/// The fastest unit allowed for the dtypes of `plan`'s inputs and outputs on
/// its chip (see the file comment).
PeakRate getPeakRate(const Plan &plan);

/// The bytes a run must move at least: every input read once, every output
/// written once (an inout both), no more than the plan's own count
/// (Plan::bytes) where it has one.
uint64_t getFloorBytes(const Plan &plan);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_FLOORS_H
