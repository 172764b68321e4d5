//===- DefaultLowering.cpp - Rewrites of the default lowering ---*- C++ -*-===//
//
// The rewrites the upstream linalg -> GPU recipe lacks (see
// DefaultLowering.h): per-rank collapsing and tiling of host parallel loops,
// host buffers on the device with a check that nothing else stayed on the
// host, and cubin compilation that keeps the PTX.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Lowering/DefaultLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

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

LogicalResult cuda_agent::moveParallelLoopsOutward(func::FuncOp func) {
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  IRRewriter rewriter(func.getContext());
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

LogicalResult cuda_agent::prepareParallelLoopsForGpu(func::FuncOp func) {
  if (func.isExternal())
    return success();
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
    scf::tileParallelLoop(loop, tileSizes, /*noMinMaxBounds=*/true);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

/// Returns true for the ops a straight-line host function may hold once its
/// loops run on the GPU. Views are not in the list: with bufferized linalg
/// they do not occur on the host, and a view of device memory read on the host
/// would be a bug anyway.
static bool isStraightLineHostOp(Operation *op) {
  return isa<arith::ConstantOp, memref::AllocOp, memref::DeallocOp,
             memref::CopyOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
             gpu::MemsetOp, gpu::LaunchOp, gpu::LaunchFuncOp, func::CallOp,
             func::ReturnOp>(op);
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
  // function as it was.
  for (Operation &op : body)
    if (!isStraightLineHostOp(&op))
      return op.emitError() << "cannot run on the GPU: '" << op.getName()
                            << "' was left on the host by the default lowering";

  IRRewriter rewriter(func.getContext());
  SmallVector<Value> allocations;
  DenseSet<Value> freed;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    rewriter.setInsertionPoint(&op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
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
