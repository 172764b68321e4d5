//===- Floors.cpp - Times no correct candidate can beat ---------*- C++ -*-===//
//
// The rate tables come from the compiler's own GPU description, which is
// header-only so that this MLIR-free runner can include it.
//
//===----------------------------------------------------------------------===//

#include "Floors.h"

#include "cuda-agent/Target/GpuTarget.h"

#include <algorithm>

using namespace mlir::cuda_agent;

PeakRate mlir::cuda_agent::getPeakRate(const Plan &plan) {
  bool half = false, single = false, doubles = false;
  for (const BufferSpec &buffer : plan.buffers) {
    if (buffer.role == Role::Temp)
      continue;
    half |= buffer.dtype == DType::F16 || buffer.dtype == DType::BF16;
    single |= buffer.dtype == DType::F32;
    doubles |= buffer.dtype == DType::F64;
  }
  const GpuTarget &target = getGpuTarget(plan.chip.c_str());
  std::string of = std::string(" of ") + target.chip;
  if (half)
    return {target.peakFlopsF16, "f16/bf16 tensor-core peak" + of};
  if (single)
    return {target.peakFlopsTf32, "TF32 tensor-core peak" + of};
  if (doubles)
    return {target.peakFlopsF32, "FP32 (= FP64 tensor-core) peak" + of};
  return {2 * target.peakFlopsF16, "int8 tensor-core peak" + of};
}

uint64_t mlir::cuda_agent::getFloorBytes(const Plan &plan) {
  uint64_t bytes = 0;
  for (const BufferSpec &buffer : plan.buffers)
    if (buffer.role != Role::Temp)
      bytes += buffer.numBytes() * (buffer.role == Role::InOut ? 2 : 1);
  return plan.bytes > 0 ? std::min<uint64_t>(bytes, plan.bytes) : bytes;
}
