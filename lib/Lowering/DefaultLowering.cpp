//===- DefaultLowering.cpp - Rewrites of the default lowering ---*- C++ -*-===//
//
// The rewrites the upstream linalg -> GPU recipe lacks (see
// DefaultLowering.h): per-rank collapsing and tiling of host parallel loops,
// host buffers on the device with a check that nothing else stayed on the
// host, and cubin compilation that keeps the PTX.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"
#include "cuda-agent/Lowering/LaunchPlan.h"
#include "cuda-agent/Outline/Generalize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include <numeric>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::cuda_agent;

//===----------------------------------------------------------------------===//
// Parallel loops
//===----------------------------------------------------------------------===//

/// Returns the `scf.parallel` ops of `func` that run on the host and are not
/// nested in another `scf.parallel`, in program order.
static SmallVector<scf::ParallelOp>
collectTopLevelHostLoops(func::FuncOp func) {
  SmallVector<scf::ParallelOp> loops;
  func.walk([&](scf::ParallelOp loop) {
    if (!loop->getParentOfType<scf::ParallelOp>() &&
        !loop->getParentOfType<gpu::LaunchOp>() &&
        !loop->getParentOfType<gpu::GPUFuncOp>())
      loops.push_back(loop);
  });
  return loops;
}

/// Gives `op`, a linalg.generic on tensors with no parallel loop (a sum of
/// every element, an op on rank-0 tensors), a leading parallel loop of one
/// iteration, so that it lowers to a kernel of one thread instead of staying
/// on the host. Its outputs index no loop, so they are rank 0: they become
/// 1-element tensors (expand_shape) read through the new loop, and the
/// results are collapsed back.
static void addUnitParallelLoop(linalg::GenericOp op, IRRewriter &rewriter) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inits;
  SmallVector<Type> resultTypes;
  for (Value init : op.getDpsInits()) {
    auto type = RankedTensorType::get({1}, getElementTypeOrSelf(init));
    inits.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, type, init, ArrayRef<ReassociationIndices>{}));
    resultTypes.push_back(type);
  }
  unsigned loops = op.getNumLoops() + 1;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input).shiftDims(1));
  maps.append(inits.size(),
              AffineMap::get(loops, 0, {getAffineDimExpr(0, ctx)}, ctx));
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  llvm::append_range(iterators, op.getIteratorTypesArray());
  auto unit = linalg::GenericOp::create(rewriter, loc, resultTypes,
                                        op.getDpsInputs(), inits, maps,
                                        iterators);
  rewriter.inlineRegionBefore(op.getRegion(), unit.getRegion(),
                              unit.getRegion().begin());
  unit.walk([](linalg::IndexOp index) { index.setDim(index.getDim() + 1); });
  SmallVector<Value> results;
  for (auto [result, old] : llvm::zip(unit.getResults(), op.getResults()))
    results.push_back(tensor::CollapseShapeOp::create(
        rewriter, loc, old.getType(), result,
        ArrayRef<ReassociationIndices>{}));
  rewriter.replaceOp(op, results);
}

/// Whether `op` is a linalg op on tensors without a parallel loop whose
/// outputs are rank 0 (addUnitParallelLoop's ops; named ones such as a
/// rank-0 fill or a dot product are generalized first).
static bool hasNoParallelLoop(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumParallelLoops() == 0 &&
         llvm::all_of(op.getDpsInits(), [](Value init) {
           return cast<ShapedType>(init.getType()).getRank() == 0;
         });
}

void cuda_agent::markArgumentsReadOnly(func::FuncOp func) {
  if (func.isExternal() || !func.isPublic())
    return;
  auto notWritable = BoolAttr::get(func.getContext(), false);
  for (BlockArgument arg : func.getArguments())
    if (isa<TensorType>(arg.getType()))
      func.setArgAttr(arg.getArgNumber(),
                      bufferization::BufferizationDialect::kWritableAttrName,
                      notWritable);
}

LogicalResult cuda_agent::moveParallelLoopsOutward(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<linalg::LinalgOp> scalarOps;
  func.walk([&](linalg::LinalgOp op) {
    if (hasNoParallelLoop(op))
      scalarOps.push_back(op);
  });
  for (linalg::LinalgOp op : scalarOps) {
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic))
      return op.emitError("cannot give this op a parallel loop: it does "
                          "not generalize");
    addUnitParallelLoop(*generic, rewriter);
  }
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    // interchangeVector[i] is the old loop that becomes loop i.
    SmallVector<unsigned> order;
    for (bool parallel : {true, false})
      for (unsigned i = 0, e = iterators.size(); i < e; ++i)
        if ((iterators[i] == utils::IteratorType::parallel) == parallel)
          order.push_back(i);
    if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
      continue;
    rewriter.setInsertionPoint(op);
    if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
      return op.emitError("cannot move the parallel loops of this op outward");
  }
  return success();
}

/// Returns true when `type` is a memref with an identity layout.
static bool hasIdentityLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getLayout().isIdentity();
}

// Defined with the host buffers below.
static bool isWholeBuffer(Value value);

/// Gives every call operand of `func` that is a cast of a part of a buffer
/// (bufferization passes a slice from offset 0, whose strides are a whole
/// buffer's, to a function taking an identity layout by `memref.cast`) a
/// buffer of its own, copied into: the callee takes whole buffers only.
static void copyPartsPassedToCalls(func::FuncOp func) {
  SmallVector<memref::CastOp> casts;
  func.walk([&](memref::CastOp part) {
    if (hasIdentityLayout(part.getType()) &&
        !isWholeBuffer(part.getSource()) &&
        llvm::any_of(part->getUsers(),
                     [](Operation *user) { return isa<func::CallOp>(user); }))
      casts.push_back(part);
  });
  IRRewriter rewriter(func.getContext());
  for (memref::CastOp part : casts) {
    rewriter.setInsertionPoint(part);
    Value copy = memref::AllocOp::create(rewriter, part.getLoc(),
                                         cast<MemRefType>(part.getType()));
    memref::CopyOp::create(rewriter, part.getLoc(), part.getSource(), copy);
    rewriter.replaceOp(part, copy);
  }
}

void cuda_agent::lowerStridedCopies(func::FuncOp func) {
  copyPartsPassedToCalls(func);
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) {
    if (copy->getParentOfType<gpu::LaunchOp>() ||
        copy->getParentOfType<scf::ParallelOp>())
      return;
    if (hasIdentityLayout(copy.getSource().getType()) &&
        hasIdentityLayout(copy.getTarget().getType()))
      return;
    if (cast<MemRefType>(copy.getSource().getType()).getRank() == 0)
      return;
    copies.push_back(copy);
  });
  IRRewriter rewriter(func.getContext());
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    Location loc = copy.getLoc();
    auto type = cast<MemRefType>(copy.getSource().getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lowerBounds(type.getRank(), zero),
        steps(type.getRank(), one), upperBounds;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      upperBounds.push_back(
          type.isDynamicDim(dim)
              ? Value(memref::DimOp::create(rewriter, loc, copy.getSource(),
                                            dim))
              : Value(arith::ConstantIndexOp::create(rewriter, loc,
                                                     type.getDimSize(dim))));
    Value source = copy.getSource(), target = copy.getTarget();
    scf::ParallelOp::create(
        rewriter, loc, lowerBounds, upperBounds, steps,
        [&](OpBuilder &builder, Location loc, ValueRange indices) {
          Value element = memref::LoadOp::create(builder, loc, source, indices);
          memref::StoreOp::create(builder, loc, element, target, indices);
        });
    rewriter.eraseOp(copy);
  }
}

/// Gives every `math.fpowi` of `func` an i32 exponent. convert-gpu-to-nvvm
/// calls libdevice's `__nv_powif(float, int)` whatever the exponent's width,
/// so torch-mlir's `x ** 3` (an i64 exponent) passes a 64-bit argument to a
/// 32-bit parameter and computes garbage. A constant exponent is narrowed
/// exactly; another is clamped to the i32 range first (beyond it the power
/// is 0, 1 or infinite anyway, up to the sign of a -1 base).
static void narrowPowiExponents(func::FuncOp func) {
  SmallVector<math::FPowIOp> powers;
  func.walk([&](math::FPowIOp op) {
    if (!getElementTypeOrSelf(op.getRhs().getType()).isInteger(32) &&
        !isa<ShapedType>(op.getRhs().getType()))
      powers.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (math::FPowIOp op : powers) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value exponent = op.getRhs();
    unsigned width = exponent.getType().getIntOrFloatBitWidth();
    if (std::optional<int64_t> value = getConstantIntValue(exponent);
        value && llvm::isInt<32>(*value)) {
      exponent = arith::ConstantIntOp::create(rewriter, loc, i32, *value);
    } else if (width > 32) {
      Type wide = exponent.getType();
      Value low = arith::ConstantIntOp::create(rewriter, loc, wide, INT32_MIN);
      Value high = arith::ConstantIntOp::create(rewriter, loc, wide, INT32_MAX);
      exponent = arith::MaxSIOp::create(rewriter, loc, exponent, low);
      exponent = arith::MinSIOp::create(rewriter, loc, exponent, high);
      exponent = arith::TruncIOp::create(rewriter, loc, i32, exponent);
    } else {
      exponent = arith::ExtSIOp::create(rewriter, loc, i32, exponent);
    }
    rewriter.modifyOpInPlace(op, [&] { op.getRhsMutable().assign(exponent); });
  }
}

/// Puts every `cf.assert` directly in an `scf.parallel` body behind an
/// `scf.if` on its failing condition. torch-mlir checks gather indices so
/// (an embedding's "index must be smaller than dim size"), and
/// convert-parallel-loops-to-gpu refuses a loop whose body has such an op
/// at its top level: the loop stayed on the host. Behind the `scf.if` the
/// assertion is the same check, and on the GPU it becomes `__assertfail`
/// (a device-side assertion, as in torch).
static void guardAssertions(func::FuncOp func) {
  SmallVector<cf::AssertOp> assertions;
  func.walk([&](cf::AssertOp op) {
    if (isa<scf::ParallelOp>(op->getParentOp()))
      assertions.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (cf::AssertOp op : assertions) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value isTrue = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    Value fails = arith::XOrIOp::create(rewriter, loc, op.getArg(), isTrue);
    auto guard = scf::IfOp::create(rewriter, loc, fails,
                                   /*withElseRegion=*/false);
    rewriter.moveOpBefore(op, guard.thenBlock()->getTerminator());
  }
}

/// The value of `value` when it is a constant or a product, sum or
/// difference of constants (what collapsing loops leaves as their bounds).
static std::optional<int64_t> evaluateIndex(Value value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<arith::MulIOp, arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  std::optional<int64_t> lhs = evaluateIndex(def->getOperand(0));
  std::optional<int64_t> rhs = evaluateIndex(def->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::MulIOp>(def))
    return *lhs * *rhs;
  return isa<arith::AddIOp>(def) ? *lhs + *rhs : *lhs - *rhs;
}

/// The trip count of dimension `dim` of `loop`, when its bounds and step
/// evaluate to constants.
static std::optional<int64_t> parallelTripCount(scf::ParallelOp loop,
                                                unsigned dim) {
  std::optional<int64_t> lower = evaluateIndex(loop.getLowerBound()[dim]);
  std::optional<int64_t> upper = evaluateIndex(loop.getUpperBound()[dim]);
  std::optional<int64_t> step = evaluateIndex(loop.getStep()[dim]);
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0), *step);
}

/// Keeps the grid of the tiled loop (`blocks` over `threads`, `tiles` blocks
/// per dimension) within CUDA's limits. Innermost-first mapping puts a rank-2 loop's row tiles on
/// blockIdx.y, at most 65535 of them: past that (a convolution's batch x
/// output pixels at full batch), the row tiles go on blockIdx.x (below 2^31)
/// and the column tiles on blockIdx.y, the threads mapped as usual. Fails,
/// with an error on the loop, when no mapping fits.
static LogicalResult fitGridLimits(ArrayRef<int64_t> tiles,
                                   scf::ParallelOp blocks,
                                   scf::ParallelOp threads) {
  // Innermost-first: the last dimension on x, the one before it on y.
  auto fits = [&](ArrayRef<int64_t> xFirst) {
    for (auto [count, limit] : llvm::zip(xFirst, kMaxGridSize))
      if (count > limit)
        return false;
    return true;
  };
  SmallVector<int64_t> innermostFirst(llvm::reverse(tiles));
  if (fits(innermostFirst))
    return success();
  if (tiles.size() == 2 && fits({tiles[0], tiles[1]})) {
    MLIRContext *ctx = blocks.getContext();
    Builder builder(ctx);
    auto dimMap = [&](gpu::Processor processor) {
      return gpu::ParallelLoopDimMappingAttr::get(
          ctx, processor, builder.getDimIdentityMap(),
          builder.getDimIdentityMap());
    };
    if (failed(gpu::setMappingAttr(blocks, {dimMap(gpu::Processor::BlockX),
                                            dimMap(gpu::Processor::BlockY)})) ||
        failed(gpu::setMappingAttr(threads,
                                   {dimMap(gpu::Processor::ThreadY),
                                    dimMap(gpu::Processor::ThreadX)})))
      return blocks.emitError("cannot map this loop's tiles to the grid");
    return success();
  }
  InFlightDiagnostic diag = blocks.emitError()
                            << "cannot map this scf.parallel to the GPU: its "
                               "tiles exceed CUDA's grid limits (";
  llvm::interleaveComma(tiles, diag);
  return diag << " blocks)";
}

LogicalResult cuda_agent::prepareParallelLoopsForGpu(func::FuncOp func) {
  if (func.isExternal())
    return success();
  narrowPowiExponents(func);
  guardAssertions(func);
  IRRewriter rewriter(func.getContext());
  for (scf::ParallelOp loop : collectTopLevelHostLoops(func)) {
    if (loop.getNumReductions() != 0)
      return loop.emitError(
          "cannot map this scf.parallel to the GPU: the default lowering does "
          "not support loops with scf.reduce results");
    // Rank > 2 (NHWC convolution and its epilogue): the GPU mapping would put
    // dims 0-2 on z,y,x and run the last one sequentially, or leave the loop
    // on the host. Collapse to (outer dims | contiguous dim) instead.
    unsigned rank = loop.getNumLoops();
    if (rank <= 2)
      continue;
    std::vector<unsigned> outer(rank - 1);
    std::iota(outer.begin(), outer.end(), 0u);
    std::vector<unsigned> inner = {rank - 1};
    rewriter.setInsertionPoint(loop);
    collapseParallelLoops(rewriter, loop, {outer, inner});
  }
  // Collapsing replaced the loops: collect them again.
  for (scf::ParallelOp loop : collectTopLevelHostLoops(func)) {
    SmallVector<int64_t> tileSizes;
    if (loop.getNumLoops() == 1)
      tileSizes.push_back(kRank1TileSize);
    else
      tileSizes.assign(std::begin(kRank2TileSizes), std::end(kRank2TileSizes));
    // Constant inner bounds: with affine.min bounds
    // convert-parallel-loops-to-gpu silently skips loops whose extent the tile
    // does not divide.
    SmallVector<int64_t> tiles;
    for (auto [dim, size] : llvm::enumerate(tileSizes))
      if (std::optional<int64_t> count = parallelTripCount(loop, dim))
        tiles.push_back(llvm::divideCeil(*count, size));
    auto [blocks, threads] =
        scf::tileParallelLoop(loop, tileSizes, /*noMinMaxBounds=*/true);
    if (tiles.size() == tileSizes.size() &&
        failed(fitGridLimits(tiles, blocks, threads)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

/// Returns true when `value` is a whole buffer under some shape: a function
/// argument, an allocation, or an expand_shape / collapse_shape of one with
/// an identity layout. Such a value is the buffer's own device pointer with
/// other sizes: a view that costs nothing and may stay on the host.
static bool isWholeBuffer(Value value) {
  while (hasIdentityLayout(value.getType())) {
    Operation *def = value.getDefiningOp();
    if (!def || isa<memref::AllocOp, gpu::AllocOp, memref::GetGlobalOp>(def))
      return true;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      value = collapse.getSrc();
    else
      return false;
  }
  return false;
}

/// Returns true when `get` reads a constant global with an initial value,
/// which is what bufferization makes of a dense or dense_resource tensor
/// constant (a weight): data the host can upload once and never writes.
static bool isConstantGlobal(memref::GetGlobalOp get) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant() && global.getInitialValue() &&
         cast<MemRefType>(get.getType()).hasStaticShape() &&
         hasIdentityLayout(get.getType());
}

/// Replaces every use of the constant global `get` by a device buffer that
/// the global is copied into right after `get`; returns the buffer.
static Value uploadConstant(memref::GetGlobalOp get, IRRewriter &rewriter) {
  rewriter.setInsertionPointAfter(get);
  auto buffer = gpu::AllocOp::create(
      rewriter, get.getLoc(), get.getType(), /*asyncToken=*/Type(),
      /*asyncDependencies=*/ValueRange(), /*dynamicSizes=*/ValueRange(),
      /*symbolOperands=*/ValueRange(), /*hostShared=*/false);
  auto upload = gpu::MemcpyOp::create(
      rewriter, get.getLoc(), /*asyncToken=*/Type(),
      /*asyncDependencies=*/ValueRange(), buffer.getMemref(), get.getResult());
  rewriter.replaceAllUsesExcept(get.getResult(), buffer.getMemref(), upload);
  return buffer.getMemref();
}

/// Returns true for the host ops that only compute a view's metadata.
static bool isViewOp(Operation *op) {
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::ReinterpretCastOp, memref::CastOp>(op);
}

/// Returns true for the ops a straight-line host function may hold once its
/// loops run on the GPU: besides buffers, copies, launches and calls, the
/// reshapes of whole buffers (pointer metadata, never a host read) and the
/// constant globals of weights (uploaded to a device buffer below).
static bool isStraightLineHostOp(Operation *op) {
  if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
    return isWholeBuffer(op->getResult(0));
  if (auto get = dyn_cast<memref::GetGlobalOp>(op))
    return isConstantGlobal(get);
  return isa<arith::ConstantOp, memref::AllocOp, memref::DeallocOp,
             memref::CopyOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
             gpu::MemsetOp, gpu::LaunchOp, gpu::LaunchFuncOp, func::CallOp,
             func::ReturnOp>(op);
}

/// Returns true when every use of the view `op` is in a kernel, directly or
/// through other views.
static bool isOnlyReadByKernels(Operation *op) {
  return llvm::all_of(op->getUsers(), [](Operation *user) {
    return user->getParentOfType<gpu::LaunchOp>() ||
           (isViewOp(user) && isOnlyReadByKernels(user));
  });
}

/// Moves into `launch` the host views it reads that are not whole buffers
/// (subviews of slices, pads and concatenations, reshapes of those): the
/// kernel then takes the whole buffer and computes the view itself, so that
/// every kernel operand is a buffer's own pointer.
static void sinkViewsIntoLaunch(gpu::LaunchOp launch) {
  Block &entry = launch.getBody().front();
  while (true) {
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(launch.getBody(), captured);
    Operation *view = nullptr;
    for (Value value : captured) {
      Operation *def = value.getDefiningOp();
      if (def && (isViewOp(def) || isa<arith::ConstantOp>(def)) &&
          !(isViewOp(def) && isWholeBuffer(value))) {
        view = def;
        break;
      }
    }
    if (!view)
      return;
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    Operation *clone = builder.clone(*view);
    for (auto [from, to] :
         llvm::zip_equal(view->getResults(), clone->getResults()))
      replaceAllUsesInRegionWith(from, to, launch.getBody());
  }
}

/// Writes the result of `func` straight into its out-parameter where the
/// result is a reshape of a temporary: `copy(reshape(alloc), out)` becomes
/// `alloc := inverse reshape(out)` and the copy goes away (also without a
/// reshape, for a temporary that a call filled). Only when `out` has no other
/// use and neither the temporary nor its reshapes are used after the copy.
static void writeResultsInPlace(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<memref::CopyOp> copies(body.getOps<memref::CopyOp>());
  for (memref::CopyOp copy : copies) {
    auto out = dyn_cast<BlockArgument>(copy.getTarget());
    if (!out || out.getOwner() != &body || !out.hasOneUse() ||
        !hasIdentityLayout(out.getType()))
      continue;
    // Walk the reshapes back to the temporary.
    SmallVector<Operation *> reshapes;
    Value value = copy.getSource();
    while (Operation *def = value.getDefiningOp()) {
      if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
        break;
      reshapes.push_back(def);
      value = def->getOperand(0);
    }
    auto alloc = value.getDefiningOp<memref::AllocOp>();
    if (!alloc || !alloc.getType().hasStaticShape() ||
        !hasIdentityLayout(alloc.getType()) || alloc->getBlock() != &body)
      continue;
    // Nothing may touch the temporary, or a reshape of it, after the copy.
    SmallVector<Value> views{alloc.getResult()};
    for (Operation *reshape : reshapes)
      views.push_back(reshape->getResult(0));
    bool usedAfter = llvm::any_of(views, [&](Value view) {
      return llvm::any_of(view.getUsers(), [&](Operation *user) {
        Operation *inBody = body.findAncestorOpInBlock(*user);
        return user != copy && inBody && copy->isBeforeInBlock(inBody);
      });
    });
    bool reshapesAfterAlloc = llvm::all_of(reshapes, [&](Operation *reshape) {
      return reshape->getBlock() == &body;
    });
    if (usedAfter || !reshapesAfterAlloc)
      continue;
    // `out` reshaped back: the inverse of the copy's source reshape first.
    OpBuilder builder(alloc);
    Value inPlace = out;
    for (Operation *reshape : reshapes) {
      if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
        inPlace = memref::CollapseShapeOp::create(
            builder, reshape->getLoc(), expand.getSrcType(), inPlace,
            expand.getReassociationIndices());
      else {
        auto collapse = cast<memref::CollapseShapeOp>(reshape);
        inPlace = memref::ExpandShapeOp::create(
            builder, reshape->getLoc(), collapse.getSrcType().getShape(),
            inPlace, collapse.getReassociationIndices());
      }
    }
    copy.erase();
    alloc.getResult().replaceAllUsesWith(inPlace);
    alloc.erase();
    // A dealloc of the temporary now frees the caller's buffer: drop it.
    for (Operation *user : llvm::make_early_inc_range(inPlace.getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
  }
}

LogicalResult cuda_agent::moveHostBuffersToDevice(func::FuncOp func) {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "cannot run on the GPU: @" << func.getSymName()
           << " has control flow on the host after the default lowering";
  Block &body = func.getBody().front();
  // Check everything before rewriting anything, so that a failure leaves the
  // function as it was. Views that only launches read go into the launches.
  for (Operation &op : body) {
    if (isStraightLineHostOp(&op))
      continue;
    if (isViewOp(&op) && isOnlyReadByKernels(&op))
      continue;
    InFlightDiagnostic diag =
        op.emitError() << "cannot run on the GPU: '" << op.getName()
                       << "' was left on the host by the default lowering in @"
                       << func.getSymName();
    if (isa<memref::SubViewOp>(op))
      diag.attachNote() << "a view that is not a whole buffer (a slice or a "
                           "pad's interior) can only be read by kernels; "
                           "here the host uses it";
    else if (op.getNumRegions())
      diag.attachNote() << "host control flow (scf.for, scf.if, scf.while) is "
                           "not supported: only linalg ops become kernels";
    else if (isa<memref::GetGlobalOp>(op))
      diag.attachNote() << "only constant globals with a static shape and an "
                           "initial value (what a dense or dense_resource "
                           "tensor constant bufferizes to) are uploaded to "
                           "the device; this one is host state";
    else if (isa<memref::DimOp>(op))
      diag.attachNote() << "dynamic shapes are not supported: the default "
                           "lowering needs static shapes";
    else if (isa<memref::LoadOp, memref::StoreOp>(op))
      diag.attachNote() << "the host would read or write device memory (a "
                           "scalar tensor.extract or tensor.insert)";
    return diag;
  }
  for (auto launch : body.getOps<gpu::LaunchOp>())
    sinkViewsIntoLaunch(launch);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isViewOp(&op) && op.use_empty())
      op.erase();
  writeResultsInPlace(func);

  IRRewriter rewriter(func.getContext());
  SmallVector<Value> allocations;
  DenseSet<Value> freed;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    rewriter.setInsertionPoint(&op);
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      // A weight: one device buffer per global and call, filled by one
      // upload before its first use; kernels, calls and copies read it.
      if (!get.use_empty())
        allocations.push_back(uploadConstant(get, rewriter));
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto deviceAlloc = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/false);
      rewriter.replaceOp(alloc, deviceAlloc.getMemref());
      allocations.push_back(deviceAlloc.getMemref());
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
          dealloc, /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange(),
          dealloc.getMemref());
      freed.insert(dealloc.getMemref());
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(
          copy, /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange(),
          copy.getTarget(), copy.getSource());
    }
  }

  // One-shot-bufferize inserts no deallocations: free every temporary that
  // the function does not hand back to its caller.
  Operation *terminator = body.getTerminator();
  rewriter.setInsertionPoint(terminator);
  for (Value allocation : allocations) {
    bool returned = llvm::is_contained(terminator->getOperands(), allocation);
    if (!returned && !freed.contains(allocation))
      gpu::DeallocOp::create(rewriter, terminator->getLoc(),
                             /*asyncToken=*/Type(),
                             /*asyncDependencies=*/ValueRange(), allocation);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Binaries
//===----------------------------------------------------------------------===//

LogicalResult cuda_agent::compileGpuModulesKeepingPtx(Operation *root,
                                                      StringRef toolkitPath) {
  // The NVVM target hands every module's PTX to the ISA callback before
  // running ptxas, in the order transformGpuModulesToBinaries visits the
  // modules, which is the order below.
  SmallVector<StringAttr> moduleNames;
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (auto module : block.getOps<gpu::GPUModuleOp>()) {
        std::optional<ArrayAttr> targets = module.getTargets();
        if (!targets || targets->size() != 1)
          return module.emitError()
                 << "cannot keep the PTX of @" << module.getName()
                 << ": it needs exactly one target, run nvvm-attach-target "
                    "once before";
        moduleNames.push_back(module.getNameAttr());
      }

  std::optional<SymbolTable> parentTable;
  auto lazySymbolTable = [&]() -> SymbolTable * {
    if (!parentTable) {
      Operation *table = SymbolTable::getNearestSymbolTable(root);
      if (!table)
        return nullptr;
      parentTable.emplace(table);
    }
    return &*parentTable;
  };
  SmallVector<std::string> ptxTexts;
  auto keepPtx = [&](StringRef ptx) { ptxTexts.push_back(ptx.str()); };
  gpu::TargetOptions options(
      toolkitPath, /*librariesToLink=*/{}, /*cmdOptions=*/{},
      /*elfSection=*/{}, gpu::CompilationTarget::Binary, lazySymbolTable,
      /*initialLlvmIRCallback=*/{}, /*linkedLlvmIRCallback=*/{},
      /*optimizedLlvmIRCallback=*/{}, keepPtx);
  if (failed(gpu::transformGpuModulesToBinaries(root, nullptr, options)))
    return failure();
  if (ptxTexts.size() != moduleNames.size())
    return root->emitError()
           << "cannot keep the PTX: compiling " << moduleNames.size()
           << " GPU modules produced " << ptxTexts.size() << " PTX texts";

  Builder builder(root->getContext());
  for (auto [name, ptx] : llvm::zip_equal(moduleNames, ptxTexts)) {
    auto binary = dyn_cast_or_null<gpu::BinaryOp>(
        SymbolTable::lookupSymbolIn(root, name));
    if (!binary)
      return root->emitError()
             << "cannot keep the PTX: no gpu.binary @" << name.getValue()
             << " was created for the GPU module of that name";
    binary->setAttr(kPtxAttrName, builder.getStringAttr(ptx));
  }
  return success();
}
