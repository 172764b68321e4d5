//===- RegionOutliner.cpp - Kernel region outlining -------------------------===//
//
// Groups linalg ops on tensors into kernel regions and outlines each group
// into a private function. Grouping is a greedy union over producer/consumer
// edges in program order, constrained by the fusion mode and by convexity (no
// path may leave a group and come back, so that one call can replace it).
// `tensor.empty`, scalar and splat constants and `linalg.fill`s of them are
// not grouped: they are cloned into every region that uses them.
//
// The outlined function is built in a canonical order: results sorted by a
// structural hash, ops in post-order from the results, arguments in order of
// first use. Its printed form is therefore the region's canonical form, which
// RegionHash turns into the region hash.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Outline/UnitDims.h"
#include "cuda-agent/Outline/UnusedResults.h"
#include "cuda-agent/Outline/MasksAndPositions.h"
#include "cuda-agent/Outline/SplatOperands.h"
#include "cuda-agent/Outline/ScanChains.h"
#include "cuda-agent/Outline/SliceReads.h"
#include "cuda-agent/Outline/ConcatParts.h"
#include "cuda-agent/Outline/ElementTypes.h"
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
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/xxhash.h"

#include <functional>
#include <optional>

#define DEBUG_TYPE "agent-outline"

using namespace mlir;
using namespace mlir::cuda_agent;

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
  case KernelKind::Mixed:
    return "mixed";
  }
  llvm_unreachable("unknown region kind");
}

//===----------------------------------------------------------------------===//
// Op classification and eligibility
//===----------------------------------------------------------------------===//

namespace {

/// The role a linalg op plays in grouping.
enum class OpClass { Fill, Elementwise, Reduction, Contraction, Convolution };

OpClass classify(linalg::LinalgOp op) {
  if (isa<linalg::FillOp>(op))
    return OpClass::Fill;
  if (linalg::isaConvolutionOpInterface(op))
    return OpClass::Convolution;
  if (linalg::isaContractionOpInterface(op))
    return OpClass::Contraction;
  if (op.getNumReductionLoops() == 0)
    return OpClass::Elementwise;
  return OpClass::Reduction;
}

bool isRoot(OpClass cls) {
  return cls != OpClass::Fill && cls != OpClass::Elementwise;
}

KernelKind kindOf(OpClass cls) {
  switch (cls) {
  case OpClass::Reduction:
    return KernelKind::Reduction;
  case OpClass::Contraction:
    return KernelKind::Contraction;
  case OpClass::Convolution:
    return KernelKind::Convolution;
  case OpClass::Fill:
  case OpClass::Elementwise:
    return KernelKind::Elementwise;
  }
  llvm_unreachable("unknown op class");
}

/// Returns why `type` cannot cross a region boundary, or nullopt if it can.
std::optional<std::string> checkTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    if (isa<TensorType>(type))
      return std::string("it has an unranked tensor");
    return std::nullopt;
  }
  if (!tensor.hasStaticShape())
    return std::string("it has a dynamic shape (") +
           [&] {
             std::string s;
             llvm::raw_string_ostream os(s);
             os << tensor;
             return s;
           }() +
           ")";
  if (!isRegionElementType(tensor.getElementType())) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "element type " << tensor.getElementType()
       << " is not supported (f32, f16, bf16, f64 and i32 are)";
    return s;
  }
  return std::nullopt;
}

/// True for values a region can rebuild itself instead of taking as an
/// argument: scalar constants and splat tensor constants.
bool isClonableConstant(Operation *op) {
  auto cst = dyn_cast_or_null<arith::ConstantOp>(op);
  if (!cst)
    return false;
  if (!isa<ShapedType>(cst.getType()))
    return true;
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  return dense && dense.isSplat() && !checkTensorType(cst.getType());
}

/// True for a `tensor.pad` a region can compute itself from its source: static
/// shapes and amounts of padding, a pad value that is a constant (the body
/// yields a scalar constant or a block-invariant value that is one). Such a
/// pad is rebuilt inside every region that reads it, so the region reads its
/// source with bounds and the padded tensor never crosses a region boundary.
bool isFusablePad(Operation *op) {
  auto pad = dyn_cast_or_null<tensor::PadOp>(op);
  if (!pad || pad.getNofold() || !pad.getLow().empty() ||
      !pad.getHigh().empty())
    return false;
  if (checkTensorType(pad.getSourceType()) ||
      checkTensorType(pad.getResultType()))
    return false;
  Value padding = pad.getConstantPaddingValue();
  return padding && isClonableConstant(padding.getDefiningOp());
}

/// True for a static slice that only fusable pads read, each of which reads
/// it as a pad of the slice's source (SliceReads.h: isSliceUnderPads): it
/// goes into the region with them, so the region reads the slice's source
/// with bounds instead of a copy of the slice.
bool isSliceUnderFusablePads(Operation *op) {
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  return slice && isSliceUnderPads(slice) &&
         llvm::all_of(slice->getUsers(), isFusablePad);
}

/// True for ops that are cloned into every region that uses them rather than
/// grouped: static `tensor.empty`, clonable constants, `linalg.fill`s whose
/// operands are themselves clonable, fusable pads (their source is read
/// like any other operand: a region argument or a value the region computes)
/// and the slices under them.
bool isClonable(Operation *op) {
  if (!op)
    return false;
  if (isFusablePad(op) || isSliceUnderFusablePads(op))
    return true;
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return !checkTensorType(empty.getType());
  if (isClonableConstant(op))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureTensorSemantics())
      return false;
    for (Value operand : fill->getOperands())
      if (!isClonable(operand.getDefiningOp()) || checkTensorType(operand.getType()))
        return false;
    return true;
  }
  return false;
}

/// Returns why the linalg op `op` cannot be part of a region, or nullopt.
std::optional<std::string> whyIneligible(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::string("it operates on buffers, not tensors");
  for (Type type : op->getOperandTypes())
    if (auto reason = checkTensorType(type))
      return reason;
  for (Type type : op->getResultTypes())
    if (auto reason = checkTensorType(type))
      return reason;
  // Values captured by the body must be rebuilt inside the region.
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured)
    if (!isClonableConstant(value.getDefiningOp()))
      return std::string("its body reads a value defined outside it that is "
                         "not a constant");
  for (Value operand : op->getOperands())
    if (!isa<ShapedType>(operand.getType()) &&
        !isClonableConstant(operand.getDefiningOp()))
      return std::string("it takes a scalar operand that is not a constant");
  return std::nullopt;
}

/// The rows a reduction works on: its loop ranges, iterator types and the
/// indexing map of its first result. Reductions with the same signature can
/// share one pass over the data.
std::string rowSignature(linalg::LinalgOp op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t range : op.getStaticLoopRanges())
    os << range << ",";
  os << "|";
  for (utils::IteratorType it : op.getIteratorTypesArray())
    os << (it == utils::IteratorType::parallel ? "p" : "r");
  os << "|" << op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return s;
}

//===----------------------------------------------------------------------===//
// Grouping
//===----------------------------------------------------------------------===//

/// A candidate region inside one block.
struct Group {
  SmallVector<Operation *> ops; // In block order.
  SmallVector<OpClass> rootClasses;
  SmallVector<std::string> rowSignatures; // Of reduction roots.
};

class BlockGrouper {
public:
  BlockGrouper(Block &block, const OutlineOptions &options)
      : block(block), options(options) {}

  /// Partitions the eligible linalg ops of the block into groups, in order of
  /// their first op.
  SmallVector<Group> run(DenseMap<Operation *, std::string> &reasons);

private:
  bool canMerge(const Group &a, const Group &b) const;
  bool isConvex(ArrayRef<Operation *> ops) const;

  Block &block;
  const OutlineOptions &options;
  DenseMap<Operation *, unsigned> position;
};

/// The most output channels a convolution fuses a reduction over them at:
/// the columns one tile of the builtin agent's convolution kernels holds, so
/// that a block reduces whole rows of the product (an agent that cannot still
/// has the region's default lowering).
constexpr int64_t kMaxReducedChannels = 128;

/// The op of `group` of class `cls` when it is the group's only root.
linalg::LinalgOp onlyRoot(const Group &group, OpClass cls) {
  if (group.rootClasses.size() != 1 || group.rootClasses.front() != cls)
    return {};
  for (Operation *op : group.ops)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      if (classify(linalgOp) == cls)
        return linalgOp;
  return {};
}

/// Whether `b` reduces the convolution of `a` over its output channels
/// and nothing else reads `a` (conv, scale, then a min over the channels):
/// `a` is the convolution and elementwise ops on its output that keep its
/// indices, `b` one reduction of their result whose reduced loops are the
/// output's channels (its dimensions indexed by the filter, not the input),
/// at most kMaxReducedChannels of them.
bool reducesChannels(const Group &a, const Group &b) {
  linalg::LinalgOp conv = onlyRoot(a, OpClass::Convolution);
  linalg::LinalgOp red = onlyRoot(b, OpClass::Reduction);
  if (!conv || !red || conv.getNumDpsInputs() != 2 ||
      conv->getNumResults() != 1 || red.getNumDpsInputs() != 1 ||
      red->getNumResults() != 1)
    return false;
  Type convType = conv->getResult(0).getType();
  OpOperand *read = red.getDpsInputOperand(0);
  AffineMap readMap = red.getMatchingIndexingMap(read);
  Operation *source = read->get().getDefiningOp();
  if (read->get().getType() != convType || !readMap.isPermutation() ||
      !llvm::is_contained(a.ops, source))
    return false;
  // Everything `a` computes that is used outside it is used by `b`, and
  // the ops between keep the convolution's indices.
  for (Operation *op : a.ops) {
    for (Operation *user : op->getUsers())
      if (!llvm::is_contained(a.ops, user) && !llvm::is_contained(b.ops, user))
        return false;
    if (op == conv.getOperation())
      continue;
    auto elementwise = cast<linalg::LinalgOp>(op);
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get().getType() == convType &&
          !elementwise.getMatchingIndexingMap(&operand).isIdentity())
        return false;
  }
  // The output's channel positions against the reduction's reduced ones.
  AffineMap outMap = conv.getMatchingIndexingMap(conv.getDpsInitOperand(0));
  AffineMap inMap = conv.getMatchingIndexingMap(conv.getDpsInputOperand(0));
  AffineMap filterMap = conv.getMatchingIndexingMap(conv.getDpsInputOperand(1));
  ArrayRef<int64_t> shape = cast<ShapedType>(convType).getShape();
  auto iterators = red.getIteratorTypesArray();
  int64_t channels = 1;
  for (unsigned p = 0; p < outMap.getNumResults(); ++p) {
    unsigned d = outMap.getDimPosition(p);
    bool channel = filterMap.isFunctionOfDim(d) && !inMap.isFunctionOfDim(d);
    bool reduced = iterators[readMap.getDimPosition(p)] ==
                   utils::IteratorType::reduction;
    if (channel != reduced)
      return false;
    if (channel)
      channels *= shape[p];
  }
  return channels <= kMaxReducedChannels;
}

/// Whether an elementwise op of `reader` reads a value `producer` computes
/// through a map that is not a projected permutation (a slice folded into
/// it, SliceReads.h): other threads compute the elements it reads, so the
/// value must be whole in memory first, and the two stay apart.
bool readsOutOfPlace(const Group &reader, const Group &producer) {
  for (Operation *op : reader.ops) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || linalgOp.getNumReductionLoops() != 0)
      continue;
    for (OpOperand *in : linalgOp.getDpsInputOperands()) {
      Operation *def = in->get().getDefiningOp();
      if (def && llvm::is_contained(producer.ops, def) &&
          !linalgOp.getMatchingIndexingMap(in).isProjectedPermutation())
        return true;
    }
  }
  return false;
}

/// Whether an op of `group` writes a part of a concatenation in place
/// (ConcatParts.h: a part index in its output map).
bool writesParts(const Group &group) {
  return llvm::any_of(group.ops, [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp &&
           llvm::any_of(linalgOp.getDpsInitsMutable(), [&](OpOperand &init) {
             return hasPartIndex(linalgOp.getMatchingIndexingMap(&init));
           });
  });
}

/// The number of values the union of `a` and `b` computes that ops outside
/// it read: the outputs of its region.
unsigned countOutputs(const Group &a, const Group &b) {
  llvm::SmallPtrSet<Operation *, 16> inside(a.ops.begin(), a.ops.end());
  inside.insert(b.ops.begin(), b.ops.end());
  unsigned outputs = 0;
  for (Operation *op : inside)
    for (Value result : op->getResults())
      outputs += llvm::any_of(result.getUsers(), [&](Operation *user) {
        Operation *owner = op->getBlock()->findAncestorOpInBlock(*user);
        return !owner || !inside.contains(owner);
      });
  return outputs;
}

bool BlockGrouper::canMerge(const Group &a, const Group &b) const {
  if (options.fusion == FusionMode::None || readsOutOfPlace(a, b) ||
      readsOutOfPlace(b, a))
    return false;
  // A concatenation's parts are written by elementwise kernels that branch
  // on the part index: their region takes no root (whose kernels write
  // whole outputs: the root's region writes its value, the part's reads it)
  // and no other output (one of another shape).
  if (writesParts(a) || writesParts(b))
    return a.rootClasses.empty() && b.rootClasses.empty() &&
           countOutputs(a, b) == 1;
  if (a.rootClasses.empty() || b.rootClasses.empty())
    return true;
  if (options.fusion != FusionMode::Rows)
    return false;
  if (reducesChannels(a, b))
    return true;
  // Row-wise chains: every root is a reduction over the same rows.
  auto allReductions = [](const Group &g) {
    return llvm::all_of(g.rootClasses,
                        [](OpClass c) { return c == OpClass::Reduction; });
  };
  if (!allReductions(a) || !allReductions(b))
    return false;
  StringRef sig = a.rowSignatures.front();
  return llvm::all_of(b.rowSignatures,
                      [&](const std::string &s) { return s == sig; });
}

bool BlockGrouper::isConvex(ArrayRef<Operation *> ops) const {
  // SSA order within a block means a path from the group back into it can
  // only pass through ops placed before the group's last op.
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  unsigned last = 0;
  for (Operation *op : ops)
    last = std::max(last, position.lookup(op));
  llvm::SmallPtrSet<Operation *, 16> visited;
  SmallVector<Operation *> worklist;
  auto pushUsers = [&](Operation *op, bool fromInside) {
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers()) {
        Operation *owner = block.findAncestorOpInBlock(*user);
        if (!owner || (fromInside && inside.contains(owner)))
          continue;
        if (position.lookup(owner) <= last && visited.insert(owner).second)
          worklist.push_back(owner);
      }
  };
  for (Operation *op : ops)
    pushUsers(op, /*fromInside=*/true);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (inside.contains(op))
      return false;
    pushUsers(op, /*fromInside=*/false);
  }
  return true;
}

SmallVector<Group>
BlockGrouper::run(DenseMap<Operation *, std::string> &reasons) {
  unsigned index = 0;
  for (Operation &op : block)
    position[&op] = index++;

  // Members are the eligible, used, non-clonable linalg ops of the block.
  SmallVector<Operation *> members;
  DenseMap<Operation *, OpClass> classes;
  for (Operation &op : block) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp || isClonable(&op))
      continue;
    if (auto reason = whyIneligible(linalgOp)) {
      reasons[&op] = *reason;
      continue;
    }
    if (op.use_empty()) {
      reasons[&op] = "its results are never used";
      continue;
    }
    members.push_back(&op);
    classes[&op] = classify(linalgOp);
  }

  // Union-find over members; each leader owns the group's summary.
  llvm::EquivalenceClasses<Operation *> unions;
  DenseMap<Operation *, Group> summaries;
  for (Operation *op : members) {
    unions.insert(op);
    Group g;
    g.ops.push_back(op);
    OpClass cls = classes[op];
    if (isRoot(cls)) {
      g.rootClasses.push_back(cls);
      if (cls == OpClass::Reduction)
        g.rowSignatures.push_back(rowSignature(cast<linalg::LinalgOp>(op)));
    }
    summaries[op] = std::move(g);
  }

  for (Operation *consumer : members) {
    for (Value operand : consumer->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !classes.count(producer))
        continue;
      Operation *a = unions.getLeaderValue(producer);
      Operation *b = unions.getLeaderValue(consumer);
      if (a == b || !canMerge(summaries[a], summaries[b]))
        continue;
      SmallVector<Operation *> merged(summaries[a].ops);
      merged.append(summaries[b].ops);
      llvm::sort(merged, [&](Operation *x, Operation *y) {
        return position[x] < position[y];
      });
      if (!isConvex(merged)) {
        LLVM_DEBUG(llvm::dbgs() << "not merging into " << *consumer
                                << ": the union would not be convex\n");
        continue;
      }
      Group g;
      g.ops = std::move(merged);
      g.rootClasses = summaries[a].rootClasses;
      g.rootClasses.append(summaries[b].rootClasses);
      g.rowSignatures = summaries[a].rowSignatures;
      g.rowSignatures.append(summaries[b].rowSignatures);
      summaries.erase(a);
      summaries.erase(b);
      unions.unionSets(a, b);
      Operation *leader = unions.getLeaderValue(a);
      summaries[leader] = std::move(g);
    }
  }

  SmallVector<Group> groups;
  for (auto &entry : summaries)
    groups.push_back(std::move(entry.second));
  llvm::sort(groups, [&](const Group &x, const Group &y) {
    return position[x.ops.front()] < position[y.ops.front()];
  });
  return groups;
}

//===----------------------------------------------------------------------===//
// Canonical outlining
//===----------------------------------------------------------------------===//

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
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *owner =
                op->getBlock()->findAncestorOpInBlock(*user);
            return !owner || !members.contains(owner);
          }))
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
    foldSplatOperands(func);
    if (failed(dropUnitDims(func)))
      return func->emitError("dropping the unit dimensions of its linalg "
                             "ops failed");
    // After the unit dimensions are dropped: that folds the reshapes of
    // positions (torch's arange(n).unsqueeze(1)) that keep them from their
    // readers.
    fuseMasksAndPositions(func);
    foldSliceReads(func);
    // After the slices fold into the branches that read them.
    writeConcatsInParts(func);
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
