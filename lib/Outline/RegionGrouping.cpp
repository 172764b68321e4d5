//===- RegionGrouping.cpp - Which linalg ops share a kernel region -------===//
//
// Classifies the linalg ops of a block, says why one cannot be part of a
// region, and partitions the eligible ones into groups, each a kernel
// region (RegionGrouping.h).
//
//===----------------------------------------------------------------------===//

#include "RegionGrouping.h"

#include "cuda-agent/Outline/Assemblies.h"
#include "cuda-agent/Outline/DimensionRoles.h"
#include "cuda-agent/Outline/ElementTypes.h"
#include "cuda-agent/Outline/SliceReads.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <optional>

#define DEBUG_TYPE "agent-outline"

using namespace mlir;
using namespace mlir::cuda_agent;

//===----------------------------------------------------------------------===//
// Op classification and eligibility
//===----------------------------------------------------------------------===//

namespace mlir::cuda_agent::outline {

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
       << " is not supported (" << getRegionElementTypesText() << " are)";
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

bool isReadOutside(Value result,
                   const llvm::SmallPtrSetImpl<Operation *> &members) {
  Block *block = result.getParentBlock();
  return llvm::any_of(result.getUsers(), [&](Operation *user) {
    Operation *owner = block->findAncestorOpInBlock(*user);
    return !owner || !members.contains(owner);
  });
}

/// Returns why an operand or result of `op` cannot cross a region
/// boundary, or nullopt.
std::optional<std::string> checkTensorTypes(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (auto reason = checkTensorType(type))
      return reason;
  for (Type type : op->getResultTypes())
    if (auto reason = checkTensorType(type))
      return reason;
  return std::nullopt;
}

/// Why the gathers of `op`'s body (tensor.extract of a captured tensor)
/// cannot join a region, or nullopt: a gather joins where its indices are
/// computed from the loop indices alone (an upsampling, a pad), so that every
/// input the verifier makes keeps them in bounds. Indices read from a tensor
/// (an embedding's tokens), and the bounds checks torch-mlir writes for them
/// (`cf.assert`), stay with the default lowering.
std::optional<std::string> whyNotPositionalGather(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  for (Operation &inner : body->without_terminator())
    if (!isMemoryEffectFree(&inner))
      return "its body has an op with side effects ('" +
             inner.getName().getStringRef().str() + "')";
  // Whether `index` is computed from an element of an operand (a block
  // argument of the body).
  auto readsOperand = [&](Value index) {
    auto isArgument = [&](Value v) {
      auto arg = dyn_cast<BlockArgument>(v);
      return arg && arg.getOwner() == body;
    };
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.inclusive = true;
    options.filter = [&](Operation *def) { return def->getBlock() == body; };
    if (Operation *def = index.getDefiningOp())
      (void)getBackwardSlice(def, &slice, options);
    return isArgument(index) || llvm::any_of(slice, [&](Operation *def) {
             return llvm::any_of(def->getOperands(), isArgument);
           });
  };
  bool gathersByData = false;
  body->walk([&](tensor::ExtractOp extract) {
    gathersByData |= llvm::any_of(extract.getIndices(), readsOperand);
  });
  if (gathersByData)
    return std::string("its body gathers at an index read from a tensor");
  return std::nullopt;
}

/// Returns why the linalg op `op` cannot be part of a region, or nullopt.
std::optional<std::string> whyIneligible(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::string("it operates on buffers, not tensors");
  if (auto reason = checkTensorTypes(op))
    return reason;
  // Values captured by the body are rebuilt inside the region (constants)
  // or become its inputs (a tensor the body gathers from with
  // tensor.extract: an upsampling, a replicate pad).
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured) {
    if (isClonableConstant(value.getDefiningOp()))
      continue;
    if (!isa<RankedTensorType>(value.getType()))
      return std::string("its body reads a value defined outside it that is "
                         "neither a constant nor a tensor");
    if (auto reason = checkTensorType(value.getType()))
      return reason;
  }
  if (auto reason = whyNotPositionalGather(op))
    return reason;
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
  std::optional<int64_t> channels =
      reducedOutputChannels(conv, readMap, red.getIteratorTypesArray());
  return channels && *channels <= kMaxReducedChannels;
}

/// Whether an op of `reader` gathers from (its body captures) a tensor that
/// an op of `producer` computes.
static bool gathersFrom(const Group &reader, const Group &producer) {
  for (Operation *op : reader.ops) {
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      if (Operation *def = value.getDefiningOp();
          def && llvm::is_contained(producer.ops, def))
        return true;
  }
  return false;
}

/// Whether an elementwise op of `reader` reads a value that an op of
/// `producer` computes through a map for which `isFar` holds.
static bool readsThrough(const Group &reader, const Group &producer,
                         function_ref<bool(AffineMap)> isFar) {
  for (Operation *op : reader.ops) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || linalgOp.getNumReductionLoops() != 0)
      continue;
    for (OpOperand *in : linalgOp.getDpsInputOperands()) {
      Operation *def = in->get().getDefiningOp();
      if (def && llvm::is_contained(producer.ops, def) &&
          isFar(linalgOp.getMatchingIndexingMap(in)))
        return true;
    }
  }
  return false;
}

/// Whether an elementwise op of `reader` reads a value `producer` computes
/// through a map that is not a projected permutation (a slice folded into
/// it, SliceReads.h) or gathers from it (a body's tensor.extract): other
/// threads compute the elements it reads, so the value must be whole in
/// memory first, and the two stay apart.
bool readsOutOfPlace(const Group &reader, const Group &producer) {
  return readsThrough(reader, producer,
                      [](AffineMap map) {
                        return !map.isProjectedPermutation();
                      }) ||
         gathersFrom(reader, producer);
}

/// Whether `c` is a product's class: a contraction or a convolution.
static bool isProduct(OpClass c) {
  return c == OpClass::Contraction || c == OpClass::Convolution;
}

/// Whether an elementwise op of `reader` broadcasts a value that a product
/// of `producer` (a contraction or convolution root) computes: reads it
/// through a map that is not a permutation, so that each element of the
/// product feeds several of the reader's (a squeeze-excitation's
/// `x * w[:, :, None, None]` after the linear layers that compute w). A
/// contraction or convolution kernel writes each element of its product
/// once (at the element or a permutation of it, not at several), so the two
/// stay apart: the product's region and a memory-bound region that reads
/// it.
bool broadcastsProduct(const Group &reader, const Group &producer) {
  return llvm::any_of(producer.rootClasses, isProduct) &&
         readsThrough(reader, producer,
                      [](AffineMap map) { return !map.isPermutation(); });
}

/// The ops of `a` and `b` together.
llvm::SmallPtrSet<Operation *, 16> unionOf(const Group &a, const Group &b) {
  llvm::SmallPtrSet<Operation *, 16> inside(a.ops.begin(), a.ops.end());
  inside.insert(b.ops.begin(), b.ops.end());
  return inside;
}

/// Whether an op of `ops` has a result of another type than `type` that an
/// op outside `inside` reads: an output of the region `inside` that its
/// kernels, which write `type`'s elements, would not write.
template <typename Ops>
static bool exportsOtherType(const Ops &ops, Type type,
                             const llvm::SmallPtrSetImpl<Operation *> &inside) {
  return llvm::any_of(ops, [&](Operation *op) {
    return llvm::any_of(op->getResults(), [&](Value result) {
      return result.getType() != type && isReadOutside(result, inside);
    });
  });
}

/// Whether merging the rootless `producer` into `consumer`, whose root is a
/// product (a contraction or convolution), would give the region an output
/// of another shape than the product's: a value of the producer that ops
/// outside the two read too (a batch norm's per-channel scale, read by
/// each phase of a split transposed convolution). A product's kernels write
/// the product's elements only, so such a value stays in a region of its own.
bool exportsBesideProduct(const Group &producer, const Group &consumer) {
  if (!producer.rootClasses.empty() ||
      llvm::none_of(consumer.rootClasses, isProduct))
    return false;
  Type product;
  for (Operation *op : consumer.ops)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && isProduct(classify(linalgOp)))
      product = op->getResult(0).getType();
  return exportsOtherType(producer.ops, product,
                          unionOf(producer, consumer));
}

/// Whether the union of `a` and `b`, one of which holds an assembly
/// (Assemblies.h: a concatenation, an insert_slice), is a region whose
/// kernels can write each element once from the part it is in: no root
/// (its kernels write whole outputs; the root's region writes its value and
/// the part's reads it), one assembly, every output of the assembly's
/// shape (a part that others read as well is a region of its own), and
/// every op that reads the assembly elementwise at the element it writes
/// (an identity map, results of the assembly's shape: a DenseNet layer's
/// batch norm and ReLU after its concatenation), which the builtin agent's
/// kernels know the part of where they write it.
bool mergesAroundAssembly(const Group &a, const Group &b) {
  if (!a.rootClasses.empty() || !b.rootClasses.empty())
    return false;
  llvm::SmallPtrSet<Operation *, 16> inside = unionOf(a, b);
  SmallVector<Operation *> assemblies;
  for (Operation *op : inside)
    if (isAssembly(op))
      assemblies.push_back(op);
  if (assemblies.size() != 1)
    return false;
  Value assembled = assemblies.front()->getResult(0);
  Type shape = assembled.getType();
  if (exportsOtherType(inside, shape, inside))
    return false;
  Block *block = assemblies.front()->getBlock();
  for (OpOperand &use : assembled.getUses()) {
    Operation *top = block->findAncestorOpInBlock(*use.getOwner());
    if (!top || !inside.contains(top))
      continue;
    // A read inside an op's body (a gather's tensor.extract) is at an
    // element computed at run time.
    if (top != use.getOwner())
      return false;
    auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!reader || reader.getNumLoops() != reader.getNumParallelLoops() ||
        !reader.getMatchingIndexingMap(&use).isIdentity() ||
        !llvm::all_of(reader->getResultTypes(),
                      [&](Type t) { return t == shape; }))
      return false;
  }
  return true;
}

bool BlockGrouper::canMerge(const Group &a, const Group &b) const {
  if (options.fusion == FusionMode::None || readsOutOfPlace(a, b) ||
      readsOutOfPlace(b, a) || broadcastsProduct(a, b) ||
      broadcastsProduct(b, a) || exportsBesideProduct(a, b))
    return false;
  // An assembly's parts are written by elementwise kernels that branch on
  // the part.
  if (llvm::any_of(a.ops, isAssembly) || llvm::any_of(b.ops, isAssembly))
    return mergesAroundAssembly(a, b);
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

  // Members are the eligible, used, non-clonable linalg ops of the block,
  // and its assemblies (Assemblies.h: copies of their parts, rootless).
  SmallVector<Operation *> members;
  DenseMap<Operation *, OpClass> classes;
  for (Operation &op : block) {
    if (isAssembly(&op)) {
      if (auto reason = checkTensorTypes(&op)) {
        reasons[&op] = *reason;
        continue;
      }
      if (op.use_empty())
        continue;
      members.push_back(&op);
      classes[&op] = OpClass::Elementwise;
      continue;
    }
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
  if (options.fusion == FusionMode::Rows)
    mergeAttentionChains(groups, [&](ArrayRef<Operation *> ops) {
      return isConvex(ops);
    });
  llvm::sort(groups, [&](const Group &x, const Group &y) {
    return position[x.ops.front()] < position[y.ops.front()];
  });
  return groups;
}

} // namespace mlir::cuda_agent::outline
