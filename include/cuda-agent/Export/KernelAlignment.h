//===- KernelAlignment.h - The buffer alignment a kernel needs --*- C++ -*-===//
//
// A kernel that loads a float4 from a buffer needs that buffer 16-byte
// aligned. Where it runs on buffers someone else places (IREE guarantees 64
// bytes), the widest global access of its PTX says what it needs.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_EXPORT_KERNELALIGNMENT_H
#define CUDA_AGENT_EXPORT_KERNELALIGNMENT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::cuda_agent {

/// The widest global memory access in `ptx`, in bytes: vector loads and
/// stores (`ld.global.nc.v4.f32` needs 16), atomics and reductions,
/// `cp.async` copies (their size operand) and bulk copies (16). A scalar
/// access counts its type's size. Returns 1 when there is no global access.
int64_t ptxGlobalAccessAlignment(llvm::StringRef ptx);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_EXPORT_KERNELALIGNMENT_H
