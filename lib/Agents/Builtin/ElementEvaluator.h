//===- ElementEvaluator.h - Region values at one element --------*- C++ -*-===//
//
// The builtin agent's kernels compute each output element from the region's
// inputs: this evaluator writes the statements for the value of any region
// tensor at an element, inlining producers through their indexing maps,
// reading inputs the way the kernel says (loadInput: scalar, vector lane,
// shared-memory tile, register cache) and taking values a row kernel has
// already reduced from `known`. A pad of an input is read with bounds.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_ELEMENTEVALUATOR_H
#define CUDA_AGENT_AGENTS_BUILTIN_ELEMENTEVALUATOR_H

#include "KernelText.h"

#include "cuda-agent/Task/CudaExpr.h"
#include "cuda-agent/Task/LinalgRegion.h"

#include <functional>
#include <optional>
#include <map>

namespace mlir::cuda_agent::builtin {

/// Values of the region's tensors at an element, written as statements:
/// producers are inlined through their indexing maps, inputs are read by the
/// kernel's `loadInput`, and values a row kernel already reduced come from
/// `known`.
class ElementEvaluator {
public:
  using InputReader =
      std::function<std::string(unsigned input, ArrayRef<std::string> idx)>;

  ElementEvaluator(const LinalgRegion &region, StatementWriter &writer)
      : region(region), writer(writer) {
    loadInput = [this](unsigned i, ArrayRef<std::string> idx) {
      return loadAt(i, idx);
    };
  }
  /// loadInput's default names this evaluator: not copied.
  ElementEvaluator(const ElementEvaluator &) = delete;
  ElementEvaluator &operator=(const ElementEvaluator &) = delete;

  /// Reads inputs with `reader` (a vector lane, a shared-memory tile, a
  /// register cache) instead of scalar reads.
  void setInputReader(InputReader reader) {
    loadInput = std::move(reader);
    scalarReads = false;
  }
  /// The type the element offsets of scalar reads are computed in.
  OffsetType offsets;
  /// Values of whole tensors known everywhere (a row's reductions).
  llvm::DenseMap<Value, std::string> known;
  /// Values of whole tensors known at one element only: (indices, name).
  llvm::DenseMap<Value, std::pair<SmallVector<std::string>, std::string>>
      knownAt;
  /// Tensors whose value is asked for, not computed (each reads as its
  /// name): the first read records its indices in `probedAt`, a read at
  /// other indices fails. A kernel learns so at which element of its
  /// reduction an epilogue reads it (a pooling between two transposes).
  llvm::DenseMap<Value, std::string> probed;
  llvm::DenseMap<Value, SmallVector<std::string>> probedAt;
  /// The part (getAssemblyParts) of each assembled tensor
  /// (LinalgRegion::assemblies) that the element being written is in: the
  /// kernel's branch says which. An assembled tensor is read only where this
  /// says.
  llvm::DenseMap<Value, unsigned> partOf;
  /// The indices of the element being written, where partOf holds: an
  /// assembled tensor is read at this element only (an elementwise reader
  /// of a concatenation), where the branch says which part holds it.
  SmallVector<std::string> writtenAt;

  /// Forgets the values evaluated so far (the next element, or lane).
  void forget() { memo.clear(); }
  /// Where the statements go.
  StatementWriter &getWriter() { return writer; }

  /// Reads input `i` at element `offset` into a fresh value of its compute
  /// type.
  std::string loadElement(unsigned i, StringRef offset) {
    Type type = elementOf(region.inputs[i]);
    return writer.bind(
        getCType(type)->compute,
        loadAs(type, ("in" + Twine(i) + "[" + offset + "]").str()));
  }

  /// Reads input `i` at its indices `idx`.
  std::string loadAt(unsigned i, ArrayRef<std::string> idx) {
    return loadElement(i,
                       linearize(idx, shapeOf(region.inputs[i]), offsets.name()));
  }

  /// The value of `tensor` at its indices `idx`: known values first, then
  /// splats, inputs (loadInput) and producers evaluated at the element.
  FailureOr<std::string> valueAt(Value tensor, ArrayRef<std::string> idx,
                                 std::string &why);

  /// Binds the block arguments of `generic` at loop indices `dims` (all but
  /// `skipArg`) into `names`.
  LogicalResult bindOperands(linalg::GenericOp generic,
                             ArrayRef<std::string> dims,
                             llvm::DenseMap<Value, std::string> &names,
                             std::string &why, Value skipArg = {});

  /// The results of `generic` at loop indices `dims` (memoized).
  FailureOr<SmallVector<std::string>> evaluate(linalg::GenericOp generic,
                                               ArrayRef<std::string> dims,
                                               std::string &why);

private:
  /// Whether valueAt reads `tensor` from the region's input: a block
  /// argument whose value no table (known, knownAt, probed, splats) gives.
  bool readsInput(Value tensor) const {
    return isa<BlockArgument>(tensor) && !known.count(tensor) &&
           !knownAt.count(tensor) && !probed.count(tensor) &&
           !region.splats.count(tensor);
  }
  /// The value of the pad `pad` at its indices `idx`: its source's where
  /// that is inside, else the pad value.
  FailureOr<std::string> padValueAt(const RegionPad &pad,
                                    ArrayRef<std::string> idx,
                                    std::string &why);

  const LinalgRegion &region;
  StatementWriter &writer;
  InputReader loadInput;
  /// Whether loadInput is the scalar read (loadAt).
  bool scalarReads = true;
  std::map<std::string, SmallVector<std::string>> memo;
};

/// The indices (C expressions) at which region tensor `out`, at its
/// indices `idx`, reads `read`, learnt by evaluating it with `read` probed
/// (ElementEvaluator::probed; the statements are thrown away): `idx` itself
/// where `out` reads it at the element, a permutation of it through
/// transposes (torch's 3-D pooling: channels last, then back; a product's
/// output transposed). Fails (with `why`) where `out` reads it at more than
/// one element or not at all.
FailureOr<SmallVector<std::string>> readAtElement(const LinalgRegion &region,
                                                  Value out, Value read,
                                                  ArrayRef<std::string> idx,
                                                  std::string &why);

/// The index (a C expression) in a part at `offset` of the assembled
/// tensor's `index`.
std::string indexInPart(const std::string &index, int64_t offset);

/// The source's indices (C expressions) of the element of `pad` at its
/// indices `idx`: each less the dimension's low padding.
SmallVector<std::string> padSourceIndex(const RegionPad &pad,
                                        ArrayRef<std::string> idx);

/// The conditions under which the source indices `at` (padSourceIndex) are
/// inside the pad's source, one per padded dimension; none when the pad adds
/// nothing.
SmallVector<std::string> padBoundsConds(const RegionPad &pad,
                                        ArrayRef<std::string> at);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_ELEMENTEVALUATOR_H
