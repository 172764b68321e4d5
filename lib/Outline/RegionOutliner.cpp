//===- RegionOutliner.cpp - Kernel region outlining -------------------------===//
//
// Groups linalg ops on tensors into kernel regions and outlines each group
// into a private function. Grouping (RegionGrouping.cpp) is a greedy union
// over producer/consumer edges in program order, constrained by the fusion
// mode and by convexity (no path may leave a group and come back, so that
// one call can replace it). `tensor.empty`, scalar and splat constants and
// `linalg.fill`s of them are not grouped: they are cloned into every region
// that uses them.
//
// The outlined function is built in a canonical order: results sorted by a
// structural hash, ops in post-order from the results, arguments in order of
// first use. Its printed form is therefore the region's canonical form, which
// RegionHash turns into the region hash.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/RegionOutliner.h"
#include "RegionGrouping.h"
#include "cuda-agent/Outline/Assemblies.h"
#include "cuda-agent/Outline/InfinityTests.h"
#include "cuda-agent/Outline/UnitDims.h"
#include "cuda-agent/Outline/UnusedResults.h"
#include "cuda-agent/Outline/MasksAndPositions.h"
#include "cuda-agent/Outline/SplatOperands.h"
#include "cuda-agent/Outline/ScaledOperands.h"
#include "cuda-agent/Outline/ScanChains.h"
#include "cuda-agent/Outline/SliceReads.h"
#include "cuda-agent/Outline/ChainedExtrema.h"
#include "cuda-agent/Outline/TransposedConvolutions.h"
#include "cuda-agent/Outline/TransposedProducts.h"
#include "cuda-agent/Outline/RegionHash.h"
#include "cuda-agent/Outline/RegionCost.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/xxhash.h"

#include <functional>
#include <optional>

#define DEBUG_TYPE "agent-outline"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::outline;

StringRef cuda_agent::stringifyKernelKind(KernelKind kind) {
  switch (kind) {
  case KernelKind::Elementwise:
    return "elementwise";
  case KernelKind::Reduction:
    return "reduction";
  case KernelKind::Contraction:
    return "contraction";
  case KernelKind::Convolution:
    return "convolution";
  case KernelKind::Attention:
    return "attention";
  case KernelKind::Mixed:
    return "mixed";
  }
  llvm_unreachable("unknown region kind");
}

//===----------------------------------------------------------------------===//
// Canonical outlining
//===----------------------------------------------------------------------===//

namespace {

/// The ops of one region in canonical order, with its boundary values.
struct CanonicalRegion {
  SmallVector<Operation *> ops;  // Post-order from the outputs.
  SmallVector<Value> inputs;     // In order of first use.
  SmallVector<Value> outputs;    // Sorted by structural hash.
};

/// Values an op reads: its operands, then values its regions capture.
SmallVector<Value> readValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  values.append(captured.begin(), captured.end());
  return values;
}

class RegionCanonicalizer {
public:
  explicit RegionCanonicalizer(const Group &group) {
    for (Operation *op : group.ops)
      members.insert(op);
  }

  CanonicalRegion run();

private:
  /// Whether `value` is computed inside the region (members and the
  /// clonable ops they pull in).
  bool isInternal(Value value) {
    Operation *def = value.getDefiningOp();
    return def && (members.contains(def) || isClonable(def));
  }
  uint64_t structuralHash(Operation *op);
  void visit(Operation *op, CanonicalRegion &region);

  llvm::SmallPtrSet<Operation *, 16> members;
  DenseMap<Operation *, uint64_t> hashes;
  llvm::SmallPtrSet<Operation *, 16> visited;
  llvm::SmallPtrSet<Value, 16> seenInputs;
};

uint64_t RegionCanonicalizer::structuralHash(Operation *op) {
  auto it = hashes.find(op);
  if (it != hashes.end())
    return it->second;
  std::string key = printOpCanonically(op);
  for (Value value : readValues(op)) {
    if (isInternal(value)) {
      key += "|op" + std::to_string(structuralHash(value.getDefiningOp())) +
             "#" + std::to_string(cast<OpResult>(value).getResultNumber());
    } else {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << value.getType();
      key += "|arg:" + type;
    }
  }
  uint64_t hash = llvm::xxh3_64bits(key);
  hashes[op] = hash;
  return hash;
}

void RegionCanonicalizer::visit(Operation *op, CanonicalRegion &region) {
  if (!visited.insert(op).second)
    return;
  for (Value value : readValues(op)) {
    if (isInternal(value))
      visit(value.getDefiningOp(), region);
    else if (seenInputs.insert(value).second)
      region.inputs.push_back(value);
  }
  region.ops.push_back(op);
}

CanonicalRegion RegionCanonicalizer::run() {
  CanonicalRegion region;
  // Outputs: member results used outside the region, in block order first so
  // that the stable sort below only breaks ties by position.
  SmallVector<Operation *> ordered(members.begin(), members.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  for (Operation *op : ordered)
    for (OpResult result : op->getResults())
      if (isReadOutside(result, members))
        region.outputs.push_back(result);
  llvm::stable_sort(region.outputs, [&](Value a, Value b) {
    auto key = [&](Value v) {
      return std::make_pair(structuralHash(v.getDefiningOp()),
                            cast<OpResult>(v).getResultNumber());
    };
    return key(a) < key(b);
  });
  for (Value output : region.outputs)
    visit(output.getDefiningOp(), region);
  return region;
}

/// Orders the ops of every linalg body in `func` by post-order from the
/// yielded values, like the region itself, so that independent body ops (a
/// constant before or after an add) have one order. Bodies with side effects
/// are left as they are.
void canonicalizeBodies(func::FuncOp func) {
  func.walk([](linalg::LinalgOp op) {
    Block *body = op.getBlock();
    if (!llvm::all_of(body->without_terminator(),
                      [](Operation &o) { return isMemoryEffectFree(&o); }))
      return;
    SmallVector<Operation *> order;
    llvm::SmallPtrSet<Operation *, 16> visited;
    std::function<void(Operation *)> visit = [&](Operation *o) {
      if (!o || o->getBlock() != body || !visited.insert(o).second)
        return;
      for (Value value : readValues(o))
        visit(value.getDefiningOp());
      order.push_back(o);
    };
    for (Value value : body->getTerminator()->getOperands())
      visit(value.getDefiningOp());
    // Unused ops keep their relative order, after the used ones.
    for (Operation &o : body->without_terminator())
      if (!visited.contains(&o))
        order.push_back(&o);
    for (Operation *o : order)
      o->moveBefore(body->getTerminator());
  });
}

/// Gives every use of a `tensor.empty` or `linalg.fill` in `func` its own
/// copy, so that each accumulator and each result gets a buffer of its own
/// when bufferized (no copies of a shared filled buffer).
void duplicateInitsPerUse(func::FuncOp func) {
  Block &body = func.getBody().front();
  OpBuilder builder(func.getContext());
  // Reverse order: fills are split first, which gives their empties the
  // extra uses that are split next.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    if (!isa<tensor::EmptyOp, linalg::FillOp>(op) || op.hasOneUse())
      continue;
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        op.getUses(), [](OpOperand &use) { return &use; });
    // Keep the first use in block order on the original.
    llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
      return a->getOwner()->isBeforeInBlock(b->getOwner());
    });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      builder.setInsertionPoint(use->getOwner());
      use->set(builder.clone(op)->getResult(0));
    }
  }
}

KernelKind kernelKind(const Group &group) {
  if (group.rootClasses.empty())
    return KernelKind::Elementwise;
  if (group.attention)
    return KernelKind::Attention;
  // A convolution dominates the reduction over its channels that joined
  // it (reducesChannels).
  if (group.rootClasses.size() == 2 &&
      group.rootClasses.front() == OpClass::Convolution &&
      group.rootClasses.back() == OpClass::Reduction)
    return KernelKind::Convolution;
  KernelKind kind = kindOf(group.rootClasses.front());
  for (OpClass cls : group.rootClasses)
    if (kindOf(cls) != kind)
      return KernelKind::Mixed;
  return kind;
}

/// Outlines `group` into a new private function of `parent`, placed after
/// `insertAfter` (the parent or its previous region).
OutlinedRegion outlineGroup(const Group &group, func::FuncOp parent,
                            Operation *insertAfter, unsigned number,
                            SymbolTable &symbols) {
  CanonicalRegion region = RegionCanonicalizer(group).run();
  MLIRContext *ctx = parent.getContext();
  Location loc = FusedLoc::get(
      ctx, llvm::map_to_vector(group.ops, [](Operation *op) {
        return op->getLoc();
      }));

  // Build the function body in canonical order.
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(insertAfter);
  auto type = builder.getFunctionType(
      llvm::map_to_vector(region.inputs, [](Value v) { return v.getType(); }),
      llvm::map_to_vector(region.outputs, [](Value v) { return v.getType(); }));
  std::string name =
      (parent.getSymName() + "_region" + Twine(number)).str();
  auto func = func::FuncOp::create(builder, loc, name, type);
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  IRMapping mapping;
  mapping.map(region.inputs, entry->getArguments());
  builder.setInsertionPointToStart(entry);
  for (Operation *op : region.ops)
    builder.clone(*op, mapping);
  func::ReturnOp::create(builder, loc,
                         llvm::map_to_vector(region.outputs, [&](Value v) {
                           return mapping.lookup(v);
                         }));
  duplicateInitsPerUse(func);
  canonicalizeBodies(func);
  symbols.insert(func);

  OutlinedRegion outlined{func, computeRegionHash(func), kernelKind(group),
                          countFlops(func), countBytes(func)};
  func->setAttr(kRegionAttrName,
                builder.getDictionaryAttr({
                    builder.getNamedAttr("hash",
                                         builder.getStringAttr(outlined.hash)),
                    builder.getNamedAttr(
                        "kind", builder.getStringAttr(
                                    stringifyKernelKind(outlined.kind))),
                    builder.getNamedAttr(
                        "flops", builder.getI64IntegerAttr(outlined.flops)),
                    builder.getNamedAttr(
                        "bytes", builder.getI64IntegerAttr(outlined.bytes)),
                }));

  // Replace the group by a call placed after its last op; a stable
  // topological sort of the block afterwards moves any outside op that reads
  // a region result below the call (convexity guarantees this is possible).
  builder.setInsertionPointAfter(group.ops.back());
  auto call = func::CallOp::create(builder, loc, func, region.inputs);
  for (auto [output, result] : llvm::zip(region.outputs, call.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return use.getOwner() != call.getOperation();
    });
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
  return outlined;
}

/// Erases clonable ops that outlining left without uses.
void eraseDeadClonables(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() && isClonable(&op))
      op.erase();
}

/// Remarks on ops of `block` that stay outside every region.
void remarkLeftovers(Block &block,
                     const DenseMap<Operation *, std::string> &reasons) {
  for (Operation &op : block) {
    auto it = reasons.find(&op);
    if (it != reasons.end()) {
      op.emitRemark() << "kept outside any kernel region: " << it->second;
      continue;
    }
    if (isa<linalg::FillOp>(op)) {
      op.emitRemark() << "kept outside any kernel region: no op of a region "
                         "consumes this fill";
      continue;
    }
    if (isFusablePad(&op)) {
      op.emitRemark() << "kept outside any kernel region: an op that is not "
                         "in a region reads this pad (regions that read it "
                         "compute it themselves)";
      continue;
    }
    if (isa<tensor::PadOp>(op)) {
      op.emitRemark() << "kept outside any kernel region: a tensor.pad by "
                         "dynamic amounts, of a dynamic shape or with a value "
                         "that is not a constant";
      continue;
    }
    if (isa<linalg::LinalgOp, func::CallOp, func::ReturnOp, tensor::EmptyOp,
            arith::ConstantOp>(op) ||
        op.hasTrait<OpTrait::IsTerminator>() || op.getNumRegions() != 0)
      continue;
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    if (llvm::any_of(op.getOperandTypes(), isTensor) ||
        llvm::any_of(op.getResultTypes(), isTensor))
      op.emitRemark() << "kept outside any kernel region: '" << op.getName()
                      << "' is not a linalg op";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult cuda_agent::decomposeAggregatedOps(Operation *root) {
  SmallVector<linalg::AggregatedOpInterface> aggregated;
  root->walk([&](linalg::AggregatedOpInterface op) {
    auto isStaticTensor = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return tensor && tensor.hasStaticShape();
    };
    if (llvm::all_of(op->getOperandTypes(), isStaticTensor) &&
        llvm::all_of(op->getResultTypes(), isStaticTensor))
      aggregated.push_back(op);
  });
  for (linalg::AggregatedOpInterface op : aggregated) {
    OpBuilder builder(op);
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(builder);
    if (failed(values))
      return op->emitError("failed to decompose this aggregated op");
    op->replaceAllUsesWith(*values);
    op->erase();
  }
  return success();
}

FailureOr<SmallVector<OutlinedRegion>>
cuda_agent::outlineRegions(ModuleOp module, const OutlineOptions &options) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> functions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(kRegionAttrName))
      functions.push_back(func);

  SmallVector<OutlinedRegion> regions;
  for (func::FuncOp func : functions) {
    if (failed(decomposeAggregatedOps(func)))
      return failure();
    eraseUnusedLinalgResults(func);
    // Before anything reads the convolutions: a transposed one's zero grid
    // becomes one convolution per output phase.
    splitTransposedConvolutions(func);
    foldInfinityTests(func);
    foldSplatOperands(func);
    foldTransposedProducts(func);
    hoistOperandScales(func);
    collapseBeforeTransposes(func);
    if (failed(dropUnitDims(func)))
      return func->emitError("dropping the unit dimensions of its linalg "
                             "ops failed");
    // After the unit dimensions are dropped: that folds the reshapes of
    // positions (torch's arange(n).unsqueeze(1)) that keep them from their
    // readers.
    fuseMasksAndPositions(func);
    // After the unit dimensions are dropped too: torch's max over several
    // dimensions keeps a unit dimension between its reductions.
    mergeChainedExtrema(func);
    foldSliceReads(func);
    expandRankReducingInserts(func);
    // Blocks that can hold regions: every block except linalg bodies.
    SmallVector<Block *> blocks;
    func.walk([&](Block *block) {
      if (!isa_and_nonnull<linalg::LinalgOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    unsigned number = 0;
    Operation *insertAfter = func;
    for (Block *block : blocks) {
      // Blocked scans first, each chain one region (ScanChains.h).
      SmallVector<Group> chains;
      if (options.fusion == FusionMode::Rows)
        for (SmallVector<Operation *> &ops : findScanChains(*block, isClonable))
          chains.push_back(Group{std::move(ops), {OpClass::Reduction}, {}});
      for (const Group &chain : chains) {
        regions.push_back(
            outlineGroup(chain, func, insertAfter, number++, symbols));
        insertAfter = regions.back().func;
      }
      if (!chains.empty() && !sortTopologically(block))
        return func->emitError("outlining left a cycle in this function");
      DenseMap<Operation *, std::string> reasons;
      SmallVector<Group> groups = BlockGrouper(*block, options).run(reasons);
      for (const Group &group : groups) {
        regions.push_back(
            outlineGroup(group, func, insertAfter, number++, symbols));
        insertAfter = regions.back().func;
      }
      if (!groups.empty() || !chains.empty()) {
        if (!sortTopologically(block))
          return func->emitError("outlining left a cycle in this function");
        eraseDeadClonables(*block);
      }
      remarkLeftovers(*block, reasons);
    }
  }
  return regions;
}
