//===- SplitReduction.h - Outer reductions in two launches ------*- C++ -*-===//
//
// A reduction over outer dimensions with few outputs (a vector times a
// row-major matrix, a sum over dim 0) gives a thread per output too few
// threads to keep the memory busy: the split kernels cut the outermost
// reduced dimension into slices, each block a slice of a group of
// consecutive outputs, and add the slices' partials in a second launch.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_SPLITREDUCTION_H
#define CUDA_AGENT_AGENTS_BUILTIN_SPLITREDUCTION_H

#include "Strategy.h"

namespace mlir::cuda_agent::builtin {

/// How a split kernel covers its outputs and its outermost reduced
/// dimension.
struct SplitShape {
  /// Consecutive outputs per block: a row of them is `columns / vector`
  /// threads, the block's other threads the next rows.
  int columns;
  /// Rows in flight per thread, each into its own accumulators.
  int unroll;
  /// Blocks per SM the slices aim for: the slices are as many as fill
  /// `blocksPerSm` x the SMs with blocks (at least 2, else no variant).
  int blocksPerSm;
};

/// The region's one reduction, into a filled output (one init, a splat),
/// else failure with `why`: the reduction the serial and split kernels
/// compute, whatever else the region holds.
FailureOr<linalg::GenericOp> findFilledReduction(const LinalgRegion &region,
                                                 std::string &why);

/// The statements that write every region output at element `e`, whose
/// indices in the outputs are `idx`, where each result in `accumulators`
/// has the value of its C name (a single reduction's `acc`, a fold's
/// `acc0`, `acc1`, ...) at its indices `accIdx` (`idx` unless an epilogue
/// permutes them: readAtElement, ElementEvaluator.h): the elementwise
/// epilogue inlined by the evaluator (nothing when the outputs are the
/// results themselves), then
/// one store per output, each line indented by `indent`. Fails (with `why`)
/// where an output reads a result elsewhere than at `accIdx`.
FailureOr<std::string>
writeOutputStores(const LinalgRegion &region,
                  ArrayRef<std::pair<Value, std::string>> accumulators,
                  ArrayRef<std::string> accIdx, ArrayRef<std::string> idx,
                  StringRef indent, unsigned &counter, std::string &why);

/// The split variant of `shape` for `region`'s single reduction into a
/// filled output, with its elementwise epilogue: launch `partial` sums a
/// block's slice of rows into the workspace ([slices][outputs]), launch
/// `finish` adds the slices in order to the init and writes the outputs.
/// Fails (with `why`) where the outputs' rows are not whole 16-byte
/// vectors, no input is read a vector of consecutive outputs at a time, or
/// the outputs already fill the SMs.
FailureOr<Variant> writeSplitReduction(const LinalgRegion &region,
                                       const GpuTarget &target,
                                       const SplitShape &shape,
                                       std::string &why);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_SPLITREDUCTION_H
