//===- KernelText.h - Pieces of the builtin agent's kernels -----*- C++ -*-===//
//
// The text every strategy writes the same way: the kernel signature, the
// launch plan JSON, vector loads and stores of consecutive elements, a
// row-major position split into indices, and the vector width a region's
// element types allow.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_KERNELTEXT_H
#define CUDA_AGENT_AGENTS_BUILTIN_KERNELTEXT_H

#include "Strategy.h"

#include "cuda-agent/Task/CudaExpr.h"

#include "llvm/Support/JSON.h"

namespace mlir::cuda_agent::builtin {

/// `extern "C" __global__ void name(<the region's parameters>)`, with
/// `__launch_bounds__(maxThreads)` when given (`maxThreads, minBlocks` when
/// that is given too) and the workspace parameter when `workspace`.
std::string kernelSignature(const LinalgRegion &region, StringRef name,
                            int maxThreads = 0, bool workspace = false,
                            int minBlocks = 0);

/// The launch plan of `variant` (launches, workspace bytes).
llvm::json::Value launchPlan(const Variant &variant);

/// launchPlan() as compact JSON text, the candidate's plan.
std::string launchJson(const Variant &variant);

/// The C type a kernel computes element offsets in: 64-bit, or 32-bit where
/// every tensor of the region has fewer than 2^31 elements (an address then
/// costs half the integer instructions; a window's taps stay constant
/// offsets of one base).
struct OffsetType {
  bool narrow = false;
  StringRef name() const { return narrow ? "int" : "long long"; }
  /// The suffix of an integer literal of the type.
  StringRef suffix() const { return narrow ? "" : "LL"; }
};

/// The narrowest OffsetType that holds an offset into any tensor of
/// `region`.
OffsetType getOffsetType(const LinalgRegion &region);

/// Index strings of the row-major position `linear` in `shape`, computed in
/// `index`.
SmallVector<std::string> delinearize(StringRef linear, ArrayRef<int64_t> shape,
                                     OffsetType offsets = {});

/// `count` consecutive elements of `type` at `ptr` (aligned to the whole
/// access) read with one vector access; returns the vector's name. With
/// `stream`, a 16-byte access is marked read-once (ca_load_stream).
std::string loadVector(StatementWriter &writer, Type type, int count,
                       StringRef ptr, bool stream = false);

/// Lane `lane` of a vector loadVector() read, in its compute type.
std::string laneOf(Type type, StringRef vector, int lane);

/// Stores `values` (compute type) to consecutive elements of `type` at
/// `ptr`: one vector access when there are several, aligned to the whole.
std::string storeVector(Type type, StringRef ptr, ArrayRef<std::string> values);

/// `text`'s lines two spaces further in (empty lines dropped).
std::string indent(StringRef text);

/// The bytes of the region's narrowest element type (at most 4).
unsigned narrowestBytes(const LinalgRegion &region);

/// The elements per vector access for rows of `length` elements: 16 bytes
/// of the region's narrowest type (4 f32, 8 f16/bf16) where the length
/// allows, else 4, else 1.
int widestVector(const LinalgRegion &region, int64_t length);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_KERNELTEXT_H
