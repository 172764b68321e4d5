//===- ScanChains.h - A blocked scan as one region ---------------*- C++ -*-===//
//
// A blocked scan (python/cuda_agent/_scan.py: torch.cumsum and cumprod as
// linalg) is a chain of scan steps, each a masked reduction over blocks of up
// to 32 elements (`out[r, i] = reduce_k select(k <= i, v[r, k], identity)`):
// the first over the input's blocks, the next over the first's block totals
// (its last column, read in place: SliceReads.h), and so on, then a combine
// per level that adds the scanned totals of the blocks before to each block
// (read through a pad that shifts them by one block). Outlined op by op,
// that is a region per step and per combine, and the input and output cross
// memory at least twice. The outliner outlines the whole chain as one
// region instead: its reference is the same ops, and the builtin agent
// writes it as one pass over each row (ScanChain.cpp).
//
// The chain of a first step S (a scan step whose term reads no other scan
// step) is what lies between S and the combine C that reads S's result in
// place: the ops after S (through any op) that C's result depends on, with S
// and its term. C is the all-parallel linalg op that reads S's result
// through a projected permutation and depends on another scan step after S
// (the next level, which reads S's block totals). A first step with no such
// combine (a scan of one block) is no chain.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_OUTLINE_SCANCHAINS_H
#define CUDA_AGENT_OUTLINE_SCANCHAINS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::cuda_agent {

/// The masked term of a scan step: `reduction` has one input, one init and
/// one reduction loop (its last), and its input is the one result of a
/// generic over the same loops whose body yields `select(k <= i, v, c)` of
/// the reduction loop k (MasksAndPositions.h: triangleMaskDims). Else null.
linalg::GenericOp scanStepTerm(linalg::GenericOp reduction);

/// The blocked scan chains of `block`, each as its ops in block order: the
/// ops outlining moves, clonable ones (`isClonable`) among them only where
/// the chain alone reads them (outlining pulls in the others itself).
/// Chains do not overlap.
SmallVector<SmallVector<Operation *>>
findScanChains(Block &block, llvm::function_ref<bool(Operation *)> isClonable);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_OUTLINE_SCANCHAINS_H
