//===- CudaExpr.h - linalg bodies as CUDA C statements ----------*- C++ -*-===//
//
// The builtin agent writes kernels from a region's structure and the prompts
// quote the region as C loops (CReference.h); both use this part. It
// turns scalar MLIR (a linalg.generic body: arith, math, linalg.index) into
// CUDA C statements, and knows the C spelling of each element type: how it
// is stored, the type it is computed in (f16 and bf16 compute in float and
// round where the IR truncates), and how literals are written exactly.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_CUDAEXPR_H
#define CUDA_AGENT_TASK_CUDAEXPR_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <string>

namespace mlir::cuda_agent {

/// How an element type is spelt in CUDA C.
struct CType {
  std::string storage; ///< in memory: float, __half, __nv_bfloat16, int, ...
  std::string compute; ///< in registers: float for f16/bf16
};

/// The C types of `type`, or nullopt when the builtin agent does not handle
/// it.
std::optional<CType> getCType(Type type);

/// `ref` (an lvalue of `type`'s storage type) as a value of its compute
/// type.
std::string loadAs(Type type, StringRef ref);

/// `value` (of `type`'s compute type) converted to its storage type.
std::string storeAs(Type type, StringRef value);

/// An exact C literal of a scalar constant (float, integer, bool) in its
/// compute type, or nullopt.
std::optional<std::string> spellLiteral(Attribute attr);

/// Device helpers the emitted statements may call (NaN-propagating
/// maximum/minimum); goes before the kernels.
StringRef getPrelude();

/// Emits the statements of a block of scalar ops into `out`, one
/// `const T vN = ...;` per op result, with `names` mapping the block's
/// arguments (and any outer value) to C expressions; `dims` are the loop
/// indices `linalg.index` reads. Fails on an op it cannot spell, naming it
/// in `why`.
class StatementWriter {
public:
  StatementWriter(std::string &out, unsigned &counter)
      : out(out), counter(counter) {}

  /// Spells every op of `block` except its terminator and `skip`.
  LogicalResult writeBlock(Block &block,
                           llvm::DenseMap<Value, std::string> &names,
                           ArrayRef<std::string> dims, Operation *skip,
                           std::string &why);

  /// A fresh C name.
  std::string fresh() { return "v" + std::to_string(counter++); }

  /// Declares `const T name = expr;` and returns the name.
  std::string bind(StringRef ctype, StringRef expr);

  /// Appends raw statements.
  void append(StringRef text) { out += text.str(); }

  /// Declares `name` the same for every element the statements run for (a
  /// per-row value in a row loop): f32 divisions by it become a
  /// multiplication by its reciprocal.
  void markInvariant(StringRef name) { invariants.insert(name); }

  /// The value of a `tensor.extract` (a gather: an upsampling's, a
  /// replicate pad's) of `tensor` at its C indices `idx`, as a C name, or
  /// failure with `why`. Unset, a body that gathers cannot be spelled.
  using GatherReader = std::function<FailureOr<std::string>(
      Value tensor, ArrayRef<std::string> idx, std::string &why)>;
  GatherReader readGathered;

private:
  LogicalResult writeOp(Operation &op,
                        llvm::DenseMap<Value, std::string> &names,
                        ArrayRef<std::string> dims, std::string &why);
  std::string &out;
  unsigned &counter;
  llvm::StringSet<> invariants;
};

/// The associative combiner of a reduction body: the op producing the
/// yielded value, which takes the output block argument as one operand.
struct Combiner {
  Operation *op = nullptr;
  unsigned otherOperand = 0; ///< the operand that is not the accumulator
  std::string identity;      ///< C literal of the combiner's identity
  /// C expression combining `a` and `b`.
  std::string combine(StringRef a, StringRef b) const;
};

/// Finds the combiner of a reduction generic's body whose output block
/// argument is `acc`; fails (with `why`) when the accumulator is used
/// elsewhere or the op is not add, mul, max or min.
FailureOr<Combiner> findCombiner(Block &body, BlockArgument acc,
                                 std::string &why);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_CUDAEXPR_H
