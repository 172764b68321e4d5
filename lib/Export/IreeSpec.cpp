//===- IreeSpec.cpp - The IREE preprocessing spec of an export ------------===//
//
// For users who keep their own frontend and compile their own module with
// IREE: a transform-dialect spec for `iree-compile
// --iree-preprocessing-transform-spec-filename=DIR/spec.mlir` that finds each
// exported region's ops in that module
// (`transform.iree.match.cast_compatible_dag_from_root`, the region's body as
// the pattern) and replaces them with the region's dispatches, the same
// `hal.dispatch.extern` ops as in `<module>.iree.mlir`, inlined
// (`transform.util.cast_and_call inline_call`). IREE 3.13 runs the spec on
// its own form of the module: functions inlined, `util.func`, constants
// hoisted out of linalg bodies and CSE'd. A region is in the spec only when
// its pattern occurs in the user's module in that form (IreeSpecPattern.h);
// the others are left out, with the reason.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/IreeExport.h"
#include "cuda-agent/Export/IreeSpecPattern.h"
#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The matcher of a region: its pattern (IreeSpecPattern.h) rooted at the
/// op that defines its result. When an argument is read more than once,
/// the values bound to its copies must be one (two handles merged without
/// duplicates hold one value), and the matcher yields the region's own
/// arguments only, in order.
std::string writeMatcher(const IreeSpecPattern &pattern, StringRef name) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "  transform.named_sequence @match_" << name
     << "(%root: !transform.any_op {transform.readonly}) -> "
        "(!transform.any_value, !transform.any_value) {\n"
     << "    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root "
        "%root {\n"
     << "    ^bb0(";
  AsmState state(pattern.func.get());
  Block &body = pattern.func.get().getBody().front();
  llvm::interleaveComma(body.getArguments(), os, [&](BlockArgument arg) {
    arg.printAsOperand(os, state);
    os << ": " << arg.getType();
  });
  os << "):\n";
  for (Operation &op : body.without_terminator()) {
    os << "      ";
    op.print(os, state);
    os << "\n";
  }
  os << "    } : (!transform.any_op) -> (!transform.any_value, "
        "!transform.any_value)\n";
  size_t bound = pattern.regionArgument.size();
  size_t own = pattern.regionArguments();
  if (own == bound) {
    os << "    transform.yield %ins, %outs : !transform.any_value, "
          "!transform.any_value\n  }\n";
    return text;
  }
  // A matcher holds match ops only (no split_handle): each argument's value
  // is reached from the root through the producers of operands.
  constexpr llvm::StringLiteral value = "!transform.any_value";
  constexpr llvm::StringLiteral count = "!transform.param<i64>";
  Operation *root = body.getTerminator()->getPrevNode();
  llvm::DenseMap<Operation *, std::pair<Operation *, unsigned>> reachedFrom;
  SmallVector<Operation *> frontier = {root};
  reachedFrom[root] = {nullptr, 0};
  while (!frontier.empty()) {
    Operation *op = frontier.pop_back_val();
    if (op->hasAttr(kIreeNameOnlyAttr))
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (producer &&
          reachedFrom.try_emplace(producer, op, operand.getOperandNumber())
              .second)
        frontier.push_back(producer);
    }
  }
  unsigned handles = 0;
  auto handleOf = [&](auto &self, Operation *op) -> std::string {
    auto [consumer, operand] = reachedFrom.lookup(op);
    if (!consumer)
      return "%root";
    std::string from = self(self, consumer);
    std::string name = "%op" + std::to_string(handles++);
    os << "    " << name << " = transform.get_producer_of_operand " << from << "["
       << operand << "] : (!transform.any_op) -> !transform.any_op\n";
    return name;
  };
  for (BlockArgument arg : body.getArguments()) {
    OpOperand &use = *arg.getUses().begin();
    std::string owner = handleOf(handleOf, use.getOwner());
    os << "    %in" << arg.getArgNumber() << " = transform.get_operand " << owner
       << "[" << use.getOperandNumber() << "] : (!transform.any_op) -> "
       << value << "\n";
  }
  os << "    %one = transform.param.constant 1 : i64 -> " << count << "\n";
  for (size_t copy = own; copy < bound; ++copy) {
    os << "    %same" << copy << " = transform.merge_handles deduplicate %in"
       << pattern.regionArgument[copy] << ", %in" << copy << " : " << value
       << "\n    %count" << copy << " = transform.num_associations %same"
       << copy << " : (" << value << ") -> " << count
       << "\n    transform.match.param.cmpi eq %count" << copy << ", %one : "
       << count << "\n";
  }
  os << "    %args = transform.merge_handles ";
  llvm::interleaveComma(llvm::seq(own), os, [&](size_t i) { os << "%in" << i; });
  os << " : " << value << "\n    transform.yield %args, %outs : " << value
     << ", " << value << "\n  }\n";
  return text;
}

/// The action: the region's dispatches, inlined after the matched root, its
/// result replacing the root's.
std::string writeReplacement(StringRef name, StringRef dispatchFunction) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "  transform.named_sequence @replace_" << name
     << "(%ins: !transform.any_value {transform.readonly}, %out: "
        "!transform.any_value {transform.readonly}) {\n"
     << "    %root = transform.get_defining_op %out : (!transform.any_value) "
        "-> !transform.any_op\n"
     << "    %module = transform.util.get_nearest_symbol_table %root : "
        "(!transform.any_op) -> !transform.any_op\n"
     << "    %func = transform.util.import_symbol @" << dispatchFunction
     << " into %module if undefined : (!transform.any_op) -> "
        "!transform.any_op\n"
     << "    transform.util.cast_and_call inline_call %func(%ins) -> %out "
        "after %root {\n"
     << "    } : (!transform.any_op, !transform.any_value, "
        "!transform.any_value, !transform.any_op) -> ()\n"
     << "    transform.yield\n  }\n";
  return text;
}

} // namespace

FailureOr<std::string> cuda_agent::buildIreeSpec(ModuleOp module,
                                                 IreeModuleExport &exported,
                                                 StringRef chip, ModuleOp input) {
  std::optional<OwningOpRef<ModuleOp>> userForm;
  if (input) {
    FailureOr<OwningOpRef<ModuleOp>> form = ireePreprocessingForm(input);
    if (failed(form))
      return failure();
    userForm = std::move(*form);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// " << exported.name
     << ": a preprocessing spec for IREE that replaces the regions with "
        "verified kernels in\n// your own module with their dispatches. "
        "Written by cuda-agent-opt.\n//\n//   iree-compile YOUR_MODULE.mlir @"
     << ireeFlagsFileName(chip)
     << " --iree-preprocessing-transform-spec-filename=spec.mlir\n//\n";
  std::string definitions, pairs;
  llvm::raw_string_ostream defs(definitions);
  for (IreeRegionExport &region : exported.regions) {
    if (!region.exported) {
      region.specReason = "not exported: " + region.reason;
      continue;
    }
    auto func = module.lookupSymbol<func::FuncOp>(region.function);
    if (!func) {
      region.specReason = "the region function is missing";
      continue;
    }
    IreeSpecPattern pattern = buildIreeSpecPattern(func);
    std::optional<std::string> why;
    if (!pattern.unmatchable.empty())
      why = pattern.unmatchable;
    if (!why && !userForm)
      why = "no input module to look for the region in (the export checks "
            "each pattern against the module given to --agent-lower, or to "
            "agent-export-iree's `input`)";
    if (!why && !ireePatternOccursIn(pattern, userForm->get()))
      why = "its ops do not occur in the input module as IREE sees it "
            "(the outliner rewrote them: reshapes folded, unit dimensions "
            "dropped, a named op decomposed or results erased)";
    if (why) {
      region.specReason = *why;
      os << "// @" << region.function << ": not matched: " << *why << "\n";
      continue;
    }
    os << "// @" << region.function << ": matched\n";
    std::string dispatchFunction = "cuda_agent_" + region.function;
    defs << "  util.func private @" << dispatchFunction << region.signature
         << " {\n"
         << region.body << "  util.return " << region.returned << "\n  }\n";
    defs << writeMatcher(pattern, region.function);
    defs << writeReplacement(region.function, dispatchFunction);
    pairs += (pairs.empty() ? "" : ",\n            ") + ("@match_" + region.function) +
             " -> @replace_" + region.function;
  }
  os << "\n" << kIreeTargetAlias << " = " << ireeExecutableTarget(chip) << "\n\n";
  os << "module attributes {transform.with_named_sequence} {\n" << definitions;
  os << "  transform.named_sequence @__transform_main(%module: !transform.any_op) "
        "{\n";
  if (!pairs.empty())
    os << "    %funcs = transform.structured.match ops{[\"func.func\", "
          "\"util.func\"]} in %module : (!transform.any_op) -> "
          "!transform.any_op\n"
       << "    transform.foreach %funcs : !transform.any_op {\n"
       << "    ^bb0(%func: !transform.any_op):\n"
       << "      transform.foreach_match in %func\n            " << pairs
       << "\n        : (!transform.any_op) -> (!transform.any_op)\n    }\n"
       << "    transform.apply_dce to %module : !transform.any_op\n";
  os << "    transform.yield\n  }\n}\n";
  return text;
}
