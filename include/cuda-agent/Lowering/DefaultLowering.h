//===- DefaultLowering.h - MLIR's GPU lowering as baseline ------*- C++ -*-===//
//
// The rewrites that make upstream MLIR's linalg -> scf.parallel -> gpu.launch
// recipe usable as an honest baseline for the agent's kernels: per-rank
// collapsing and tiling of the parallel loops (so that every loop really lands
// on the GPU, with the contiguous dimension on threadIdx.x), moving the host's
// buffers to the device (kernels must never see host pointers), and compiling
// every gpu.module to a cubin that keeps its PTX. DefaultLoweringPipeline.h
// runs them, as cuda-agent passes, between the upstream passes.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LOWERING_DEFAULTLOWERING_H
#define CUDA_AGENT_LOWERING_DEFAULTLOWERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir::cuda_agent {

/// Name of the string attribute that holds the PTX of a `gpu.binary`.
constexpr llvm::StringLiteral kPtxAttrName = "cuda_agent.ptx";

/// Threads per block for a rank-1 parallel loop.
constexpr int64_t kRank1TileSize = 256;
/// Threads per block (dim 0, dim 1) for a rank-2 parallel loop; dim 1 is the
/// contiguous one and goes to threadIdx.x (innermost-first mapping).
constexpr int64_t kRank2TileSizes[] = {8, 32};

/// Marks every tensor argument of `func`, when it is public and has a body,
/// `bufferization.writable = false`: the caller's tensors are values, so
/// one-shot bufferization copies an argument before writing into it (an
/// `insert_slice` into an argument would otherwise write the box into the
/// caller's input buffer). Private functions (regions) are left to the
/// module analysis, which copies at their call sites where needed.
void markArgumentsReadOnly(func::FuncOp func);

/// Interchanges the loops of every `linalg.generic` in `func` that has a
/// reduction loop before a parallel one so that the parallel loops come
/// first (in order), then the reductions (in order). A linalg op on tensors
/// with no parallel loop at all (a sum to a scalar, a rank-0 op or fill)
/// first gets a parallel loop of one iteration, its rank-0 outputs viewed as
/// 1-element tensors, so that it runs as a kernel too.
LogicalResult moveParallelLoopsOutward(func::FuncOp func);

/// Threads splitLongReductions aims at for one op.
constexpr int64_t kSplitThreads = 65536;
/// An op is split only when its outputs are fewer than kSplitThreads /
/// kSplitParallelFactor threads...
constexpr int64_t kSplitParallelFactor = 4;
/// ... and its reduction is at least this long ...
constexpr int64_t kMinSplitReduction = 4096;
/// ... and each part keeps at least this many elements.
constexpr int64_t kMinSplitPart = 64;

/// Splits every linalg op of `func` on tensors that has few outputs for its
/// reduction (fewer than kSplitThreads / kSplitParallelFactor, reducing at
/// least kMinSplitReduction elements each) into partial reductions computed
/// in parallel and a reduction of the partials (upstream's
/// `linalg::splitReduction`, parts interleaved), repeatedly, so that no
/// thread of the default lowering reduces a long row alone. The reduction
/// loops are collapsed into one first; where they cannot be (a batch norm's
/// around its channels), the innermost is split by our own form of the same
/// rewrite. Ops whose combiner has no neutral element, with several outputs,
/// reading loop indices, with a keepdim output, or whose reduction does not
/// divide are left as they are. Must run before moveParallelLoopsOutward,
/// which moves the new parallel loop outward.
void splitLongReductions(func::FuncOp func);

/// Prepares every top-level host `scf.parallel` of `func` (not nested in
/// another `scf.parallel`, a `gpu.launch` or a `gpu.func`) for
/// `gpu-map-parallel-loops{mapping-policy=innermost-first}` and
/// `convert-parallel-loops-to-gpu`: a loop of rank r > 2 is collapsed to rank
/// 2 as (dims 0..r-2 | dim r-1), then a rank-1 loop is tiled by
/// kRank1TileSize and a rank-2 loop by kRank2TileSizes, with constant inner
/// bounds (`noMinMaxBounds`: partial tiles are guarded by an `scf.if`).
/// Must not run between tiling and conversion: canonicalization would merge
/// the tile loops again. Fails, with an error on the loop, for loops with
/// `scf.reduce` results. External functions are left alone.
/// It also gives every `math.fpowi` an i32 exponent: the NVVM lowering calls
/// libdevice's `__nv_powif(float, int)` with whatever width the exponent has
/// (torch-mlir's `x ** 3` has an i64 one) and computes garbage. A
/// `cf.assert` at the top of a loop body (torch-mlir's gather bounds
/// checks), which the conversion refuses, is put behind an `scf.if` on its
/// failing condition: on the GPU it is a device-side assertion.
LogicalResult prepareParallelLoopsForGpu(func::FuncOp func);

/// Rewrites every `memref.copy` of `func` (outside loops and kernels) with a
/// strided operand (a subview: a slice, a concatenation's or an
/// insert_slice's destination, a pad's interior) into an `scf.parallel` copy
/// loop, which the default lowering runs as a copy kernel like any other
/// loop. Copies between whole buffers stay: they become `gpu.memcpy`. A part
/// of a buffer passed to a call (bufferization casts a slice from offset 0
/// to the callee's identity layout) is copied into a buffer of its own first.
void lowerStridedCopies(func::FuncOp func);

/// Makes the host side of `func` (run after `convert-parallel-loops-to-gpu`)
/// work on device memory: `memref.alloc` becomes `gpu.alloc`,
/// `memref.dealloc` becomes `gpu.dealloc`, `memref.copy` becomes
/// `gpu.memcpy`, and every allocation that is neither freed nor returned is
/// freed before the return. Function arguments are taken to be device
/// buffers. The host must be straight-line: one block of constants,
/// allocations, copies, launches, calls and the return. Anything else (a loop
/// that was not mapped, a `memref.load`, ...) is an error naming the op, and
/// `func` is then left unchanged. External functions are left alone.
LogicalResult moveHostBuffersToDevice(func::FuncOp func);

/// Compiles every `gpu.module` directly in `root` to a `gpu.binary` holding a
/// cubin (as `gpu-module-to-binary{format=bin}` does) and attaches the PTX
/// that was fed to ptxas as the string attribute `cuda_agent.ptx` on each
/// binary. Needs exactly one target per module. `toolkitPath` is the CUDA
/// toolkit (ptxas, libdevice); empty means upstream's lookup ($CUDA_ROOT,
/// $CUDA_HOME, $CUDA_PATH).
LogicalResult compileGpuModulesKeepingPtx(Operation *root,
                                          StringRef toolkitPath = {});

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_LOWERING_DEFAULTLOWERING_H
