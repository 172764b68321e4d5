//===- LinalgRegion.h - A region read as its linalg ops ---------*- C++ -*-===//
//
// The builtin agent's kernels and the prompts' C loop-nest reference are both
// written from a region's structure: its tensor arguments, the linalg ops of
// its body (named ops generalized), the values of its fills and constants
// and the tensors it returns. This file reads a parsed region into that form
// and holds the small index helpers both writers share (row-major offsets,
// indexing maps applied to loop indices, the kernel parameter list).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_LINALGREGION_H
#define CUDA_AGENT_TASK_LINALGREGION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::cuda_agent {

/// A `tensor.pad` of a region argument inside the region (the outliner fuses
/// static pads with a constant value into the regions that read them): the
/// padded tensor at index i is `source[i - low]` where that is inside the
/// source, else `value`. Read it with bounds; it need not exist in memory.
/// The pad of a slice of the argument is read as a pad of the argument, its
/// amounts less what the slice leaves out: they may be negative (the padded
/// tensor ends before the argument does).
struct RegionPad {
  /// The padded region argument.
  Value source;
  /// Elements added before and after each dimension.
  SmallVector<int64_t> low, high;
  /// The pad value as a C literal of the compute type.
  std::string value;
};

/// A region as its linalg ops: what the builtin agent and the C reference
/// read.
struct LinalgRegion {
  func::FuncOp func;
  SmallVector<Value> inputs, outputs;
  SmallVector<linalg::GenericOp> generics;
  /// Tensors that hold one value everywhere (fills, splat constants): the
  /// value as a C literal of the compute type.
  llvm::DenseMap<Value, std::string> splats;
  /// Scalar constants of the function body.
  llvm::DenseMap<Value, std::string> scalars;
  /// The region's pads by their result; only readers that opt in
  /// (`allowPads`) get a region with pads.
  llvm::DenseMap<Value, RegionPad> pads;
  /// Reshapes, slices and pads of computed tensors inside the region (a
  /// blocked scan's chain, ScanChains.h); only readers that opt in
  /// (`allowViews`) get a region with them.
  SmallVector<Operation *> views;
  /// Tensors assembled from parts (Assemblies.h: concatenations,
  /// insert_slices), each a region output or read by generics of the
  /// region (the outliner's grouping: elementwise, at the element they
  /// write): readers write each part where its elements go.
  SmallVector<Operation *> assemblies;
};

/// Reads the top-level ops of `func` (a parsed `@region`) into `region`,
/// generalizing named linalg ops in place; fails with the reason in `why`.
/// Contractions and convolutions are refused unless `allowContractions`,
/// `tensor.pad`s (of a region argument, static, with a constant value) unless
/// `allowPads`: a reader that allows them must read every operand that is a
/// key of `region.pads` with bounds. Reshapes, slices and pads of computed
/// tensors are refused unless `allowViews` (they go to `region.views`).
LogicalResult readLinalgRegion(func::FuncOp func, LinalgRegion &region,
                               std::string &why,
                               bool allowContractions = false,
                               bool allowPads = false,
                               bool allowViews = false);

/// The product of `dims` (1 for none).
int64_t product(ArrayRef<int64_t> dims);

/// The shape of a ranked tensor value.
inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The element type of a ranked tensor value.
inline Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Whether `g` has reduction loops.
inline bool isReduction(linalg::GenericOp g) {
  return g.getNumReductionLoops() > 0;
}

/// The region's one generic with reduction loops; null where it has none or
/// several.
linalg::GenericOp findSingleReduction(const LinalgRegion &region);

/// `parts` joined by `sep`.
std::string join(ArrayRef<std::string> parts, StringRef sep = ", ");

/// The row-major offset of the indices `idx` in a tensor of `shape`, as a C
/// expression of `indexType`.
std::string linearize(ArrayRef<std::string> idx, ArrayRef<int64_t> shape,
                      StringRef indexType = "long long");

/// `expr` as a C expression of the loop indices `dims`: sums and constant
/// multiples of dimensions and constants (a convolution's out * stride + tap
/// * dilation, a slice's offset and stride); fails (with `why`) otherwise.
FailureOr<std::string> renderIndexExpr(AffineExpr expr,
                                       ArrayRef<std::string> dims,
                                       std::string &why);

/// The operand indices `map` gives at loop indices `dims` (each result
/// rendered by renderIndexExpr).
FailureOr<SmallVector<std::string>>
applyIndexingMap(AffineMap map, ArrayRef<std::string> dims, std::string &why);

/// The C parameter list of the region's kernels: `const T *__restrict__ inN`
/// per input, `T *__restrict__ outN` per output, then the workspace when
/// `workspace`.
std::string renderParameters(const LinalgRegion &region,
                             bool workspace = false);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_LINALGREGION_H
