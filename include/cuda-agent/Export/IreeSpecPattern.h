//===- IreeSpecPattern.h - A region's ops as an IREE spec pattern -*- C++ -*-===//
//
// The preprocessing spec (DIR/spec.mlir) finds each exported region in a
// user's module with IREE 3.13's
// `transform.iree.match.cast_compatible_dag_from_root`, whose pattern is the
// region's body. This component builds that pattern and checks, before the
// spec claims a region, that the pattern occurs in the user's module as IREE
// sees it when the spec runs (functions inlined, canonicalized and CSE'd:
// constants hoisted out of linalg bodies). The check follows the matcher's
// rules: ops compared by name, attributes and operand types from the root
// up through their operands, `tensor.empty` by name only, the pattern's
// block arguments bound to the payload's values, and the bodies of the
// matched ops compared structurally.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_EXPORT_IREESPECPATTERN_H
#define CUDA_AGENT_EXPORT_IREESPECPATTERN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::cuda_agent {

/// The attribute that makes IREE's matcher compare only an op's name (and
/// not follow its operands): on `tensor.empty`, which IREE CSEs across
/// regions before the spec runs.
inline constexpr llvm::StringLiteral kIreeNameOnlyAttr =
    "match.operation_name_only";

/// A region function's body as the matcher's pattern, in the form IREE
/// gives the user's module: named elementwise ops written generic,
/// canonicalized and CSE'd (constants hoisted out of bodies and shared), the
/// root (the op defining the result) last, `tensor.empty` compared by name
/// only, and every read of an argument after its first given an argument
/// of its own. IREE 3.13's matcher rejects a block argument read twice
/// ("input operand with conflicting uses"), so the spec checks instead that
/// the values bound to the copies are the same.
struct IreeSpecPattern {
  OwningOpRef<func::FuncOp> func;
  /// Why IREE 3.13's matcher cannot find the region in any module (then
  /// `func` may be null); empty when it can.
  std::string unmatchable;
  /// For each argument of the pattern, the region argument it stands for:
  /// the first arguments are the region's own, in order; the copies follow.
  SmallVector<unsigned> regionArgument;

  /// How many arguments the region has (the pattern's first ones).
  size_t regionArguments() const {
    return llvm::count_if(llvm::enumerate(regionArgument),
                          [](auto pair) { return pair.index() == pair.value(); });
  }
};

/// The pattern of `region`, a region function of an outlined module.
IreeSpecPattern buildIreeSpecPattern(func::FuncOp region);

/// `input`, the user's module, in the form IREE 3.13 gives it before the
/// preprocessing spec runs: named elementwise ops generic, functions
/// inlined, canonicalized and CSE'd. Fails (with a diagnostic) when the
/// passes do.
FailureOr<OwningOpRef<ModuleOp>> ireePreprocessingForm(ModuleOp input);

/// Whether the matcher finds `pattern` rooted at some op of `payload` (a
/// module from ireePreprocessingForm), with the copies of an argument bound
/// to one value.
bool ireePatternOccursIn(const IreeSpecPattern &pattern, ModuleOp payload);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_EXPORT_IREESPECPATTERN_H
