//===- IreeSpecPattern.cpp - A region's ops as an IREE spec pattern -------===//
//
// The pattern the preprocessing spec gives
// `transform.iree.match.cast_compatible_dag_from_root`, and the check that
// it occurs in the user's module as IREE 3.13 sees it when the spec runs.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/IreeSpecPattern.h"
#include "cuda-agent/Export/IreeExport.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// `op` in the form IREE gives a module before the spec runs: named
/// elementwise ops generic, calls inlined (with `inlineCalls`), canonicalized
/// and CSE'd (constants hoisted out of linalg bodies and shared).
LogicalResult toIreeForm(Operation *op, bool inlineCalls) {
  generalizeElementwiseOps(op);
  PassManager pm(op->getContext(), op->getName().getStringRef());
  if (inlineCalls)
    pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return pm.run(op);
}

/// Whether the matcher finds `pattern` rooted at `root`; with
/// `copiesBoundToOne`, only when the copies of an argument are bound to the
/// argument's value.
bool matchesAt(const IreeSpecPattern &pattern, Operation *root,
               bool copiesBoundToOne);

} // namespace

IreeSpecPattern cuda_agent::buildIreeSpecPattern(func::FuncOp region) {
  IreeSpecPattern pattern;
  auto refuse = [&](const Twine &why) {
    pattern.unmatchable = why.str();
    return std::move(pattern);
  };
  if (region.getNumResults() != 1)
    return refuse(llvm::formatv("the region has {0} results; the matcher "
                                "replaces the value of one root op",
                                region.getNumResults()));
  pattern.func = region.clone();
  func::FuncOp func = pattern.func.get();
  if (failed(toIreeForm(func, /*inlineCalls=*/false)))
    return refuse("the region does not canonicalize");
  Block &body = func.getBody().front();
  Operation *root = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!root)
    return refuse("the region returns its argument");
  root->moveBefore(body.getTerminator());
  for (BlockArgument arg : func.getArguments())
    if (arg.use_empty())
      return refuse(llvm::formatv("argument {0} is unused, and the matcher "
                                  "binds only the inputs its ops read",
                                  arg.getArgNumber()));
  func.walk([&](tensor::EmptyOp empty) {
    empty->setAttr(kIreeNameOnlyAttr, UnitAttr::get(func.getContext()));
  });
  unsigned regionArguments = func.getNumArguments();
  for (unsigned i = 0; i < regionArguments; ++i)
    pattern.regionArgument.push_back(i);
  for (unsigned i = 0; i < regionArguments; ++i) {
    BlockArgument arg = func.getArgument(i);
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        arg.getUses(), [](OpOperand &use) { return &use; });
    // Uses are listed last first; the first in the body keeps the argument.
    llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
      if (a->getOwner() != b->getOwner())
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      return a->getOperandNumber() < b->getOperandNumber();
    });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      unsigned copy = func.getNumArguments();
      (void)func.insertArgument(copy, arg.getType(), {}, arg.getLoc());
      use->set(func.getArgument(copy));
      pattern.regionArgument.push_back(i);
    }
  }
  // The matcher reaches values through operands only: a body that reads a
  // value (a hoisted constant) no op of the region takes as an operand does
  // not match, not even a copy of the region.
  OwningOpRef<func::FuncOp> copy(func.clone());
  if (!matchesAt(pattern, copy->getBody().front().getTerminator()->getPrevNode(),
                 /*copiesBoundToOne=*/false)) {
    Operation *reader = nullptr;
    for (Operation &op : body.without_terminator())
      if (!reader && op.getNumRegions() &&
          op.walk([&](Operation *inner) {
              if (inner == &op)
                return WalkResult::advance();
              for (Value operand : inner->getOperands())
                if (!op.isAncestor(operand.getParentBlock()->getParentOp()))
                  return WalkResult::interrupt();
              return WalkResult::advance();
            }).wasInterrupted())
        reader = &op;
    pattern.unmatchable =
        reader ? "the body of its '" + reader->getName().getStringRef().str() +
                     "' reads a value defined outside it (a constant IREE "
                     "hoists out of the body) that no op of the region takes "
                     "as an operand; IREE 3.13's matcher follows operands only"
               : "the matcher does not find the region in its own ops";
  }
  return pattern;
}

FailureOr<OwningOpRef<ModuleOp>>
cuda_agent::ireePreprocessingForm(ModuleOp input) {
  OwningOpRef<ModuleOp> form(input.clone());
  if (failed(toIreeForm(*form, /*inlineCalls=*/true)))
    return failure();
  return form;
}

namespace {

/// IREE's rule for an operand: a payload tensor that casts to the
/// pattern's type (same rank and element type, static sizes equal).
bool castsTo(Type payload, Type pattern) {
  auto to = dyn_cast<RankedTensorType>(pattern);
  if (!to)
    return payload == pattern;
  auto from = dyn_cast<RankedTensorType>(payload);
  if (!from || from.getRank() != to.getRank() ||
      from.getElementType() != to.getElementType())
    return false;
  for (auto [fromSize, toSize] : llvm::zip_equal(from.getShape(), to.getShape()))
    if (!ShapedType::isDynamic(toSize) && fromSize != toSize)
      return false;
  return true;
}

/// The matcher on one candidate root: its ops from the root up through
/// their operands, then their bodies.
bool matchesAt(const IreeSpecPattern &pattern, Operation *root,
               bool copiesBoundToOne) {
  Block &body = pattern.func.get().getBody().front();
  Operation *patternRoot = body.getTerminator()->getPrevNode();
  SmallVector<Value> inputs(body.getNumArguments());
  // Pattern op to payload op, in the order they were paired.
  llvm::MapVector<Operation *, Operation *> paired;
  SmallVector<std::pair<Operation *, Operation *>> worklist = {{patternRoot, root}};
  while (!worklist.empty()) {
    auto [want, have] = worklist.pop_back_val();
    if (want->hasAttr(kIreeNameOnlyAttr)) {
      if (want->getName() != have->getName())
        return false;
      continue;
    }
    if (auto it = paired.find(want); it != paired.end()) {
      if (it->second != have)
        return false;
      continue;
    }
    if (want->getName() != have->getName() ||
        want->getAttrDictionary() != have->getAttrDictionary() ||
        want->getNumResults() != have->getNumResults() ||
        want->getNumOperands() != have->getNumOperands())
      return false;
    for (auto [wanted, had] : llvm::zip_equal(want->getOperands(), have->getOperands())) {
      if (!castsTo(had.getType(), wanted.getType()))
        return false;
      if (auto arg = dyn_cast<BlockArgument>(wanted)) {
        Value &bound = inputs[arg.getArgNumber()];
        if (bound && bound != had)
          return false;
        bound = had;
        continue;
      }
      Operation *producer = had.getDefiningOp();
      if (!producer)
        return false;
      auto it = paired.find(wanted.getDefiningOp());
      if (it != paired.end()) {
        if (it->second != producer)
          return false;
        continue;
      }
      worklist.push_back({wanted.getDefiningOp(), producer});
    }
    paired[want] = have;
  }
  // Bodies are compared producers first, in one mapping that holds the
  // results of the ops compared before: a body may read them.
  IRMapping mapping;
  auto check = [&](Value wanted, Value had) {
    return success(mapping.lookupOrNull(wanted) == had);
  };
  auto mark = [&](Value wanted, Value had) { mapping.map(wanted, had); };
  for (auto [want, have] : llvm::reverse(paired)) {
    for (auto [wanted, had] : llvm::zip_equal(want->getRegions(), have->getRegions()))
      if (!OperationEquivalence::isRegionEquivalentTo(
              &wanted, &had, check, mark, OperationEquivalence::IgnoreLocations))
        return false;
    mapping.map(want->getResults(), have->getResults());
  }
  for (auto [index, regionArgument] : llvm::enumerate(pattern.regionArgument))
    if (!inputs[index] ||
        (copiesBoundToOne && inputs[index] != inputs[regionArgument]))
      return false;
  return true;
}

} // namespace

bool cuda_agent::ireePatternOccursIn(const IreeSpecPattern &pattern,
                                     ModuleOp payload) {
  Block &body = pattern.func.get().getBody().front();
  OperationName rootName = body.getTerminator()->getPrevNode()->getName();
  bool found = false;
  payload.walk([&](Operation *op) {
    if (op->getName() == rootName &&
        matchesAt(pattern, op, /*copiesBoundToOne=*/true)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}
