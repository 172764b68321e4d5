//===- GpuTarget.h - What the compiler assumes of a GPU ---------*- C++ -*-===//
//
// The one description of the hardware that the compiler and the runner plan
// with: SM count, shared memory, copy bandwidth and peak arithmetic rates per
// precision. The builtin agent sizes its grids from it, prompts quote its
// floors, and the runner's roofline and compute floors default to it. It is
// header-only and has no dependencies, so the MLIR-free runner includes it as
// it is. The runner measures the real device where it can (SM count, shared
// memory limits); these numbers are what code generation assumes when no
// device is at hand.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TARGET_GPUTARGET_H
#define CUDA_AGENT_TARGET_GPUTARGET_H

#include <cstring>

namespace mlir::cuda_agent {

/// One GPU the compiler can plan for.
struct GpuTarget {
  /// The architecture name as NVRTC and NVVM spell it, e.g. "sm_90".
  const char *chip;
  /// The product these numbers were taken from.
  const char *product;
  /// Streaming multiprocessors.
  int smCount;
  /// Resident blocks per SM that grid-sizing heuristics aim for.
  int blocksPerSmTarget;
  /// Dynamic shared memory one block can opt in to, in bytes.
  int maxSharedBytesPerBlock;
  /// Device-to-device copy bandwidth (read + write bytes per second),
  /// measured: the memory-bound roofline.
  double copyBandwidth;
  /// Peak dense rates in FLOP/s: plain FP32 (FFMA), TF32 tensor cores and
  /// FP16/BF16 tensor cores with FP32 accumulation.
  double peakFlopsF32;
  double peakFlopsTf32;
  double peakFlopsF16;

  /// The number of resident blocks that fill the device.
  constexpr int fullOccupancyBlocks() const {
    return smCount * blocksPerSmTarget;
  }
};

/// The H200 (sm_90, 132 SMs, HBM3e). The copy bandwidth was measured on it
/// (device-to-device, 4.23 TB/s); the peak rates are the datasheet's dense
/// figures for the SXM part.
inline constexpr GpuTarget kH200Target = {
    /*chip=*/"sm_90",
    /*product=*/"NVIDIA H200",
    /*smCount=*/132,
    /*blocksPerSmTarget=*/4,
    /*maxSharedBytesPerBlock=*/227 * 1024,
    /*copyBandwidth=*/4.23e12,
    /*peakFlopsF32=*/67e12,
    /*peakFlopsTf32=*/495e12,
    /*peakFlopsF16=*/990e12,
};

/// The target the compiler plans for when a chip has no entry of its own.
inline constexpr const GpuTarget &kDefaultGpuTarget = kH200Target;

/// The description of `chip` ("sm_90"), or the default target when the chip
/// has no entry (its numbers then are only a plan, never a check).
inline const GpuTarget &getGpuTarget(const char *chip) {
  if (chip && std::strcmp(chip, kH200Target.chip) == 0)
    return kH200Target;
  return kDefaultGpuTarget;
}

/// getGpuTarget(chip)'s numbers under `chip`'s own name, so that code
/// generation can tell an sm_80 from an sm_90 even when both plan with the
/// default target's numbers (`chip` must outlive the copy).
inline GpuTarget getGpuTargetFor(const char *chip) {
  GpuTarget target = getGpuTarget(chip);
  if (chip && *chip)
    target.chip = chip;
  return target;
}

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TARGET_GPUTARGET_H
