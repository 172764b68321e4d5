//===- ElementTypes.h - Element type spellings ------------------*- C++ -*-===//
//
// The one mapping between MLIR element types and the dtype names used by
// kernel tasks, launch plans and the runner ("f32", "bf16", "i32", ...).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_ELEMENTTYPES_H
#define CUDA_AGENT_OUTLINE_ELEMENTTYPES_H

#include "mlir/IR/Types.h"

#include <string>

namespace mlir::cuda_agent {

/// Returns the dtype name of `type` (f32, f16, bf16, f64, i1, i8, i16, i32,
/// i64), or "" when plans cannot hold it.
std::string getDtypeName(Type type);

/// Returns the element type named `dtype` ("u8" is i8), or null.
Type parseDtypeName(MLIRContext *ctx, StringRef dtype);

/// Whether regions may have `type` as an operand element type: f32, f16,
/// bf16, f64 (what torch-mlir computes a layer norm's variance in), i32 and
/// i64 (an argmax's index) (docs/design.md, Contracts).
bool isRegionElementType(Type type);

/// The region element types in words, for errors ("f32, f16, ... and i64").
StringRef getRegionElementTypesText();

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_ELEMENTTYPES_H
