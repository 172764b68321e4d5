//===- Passes.h - cuda-agent passes -----------------------------*- C++ -*-===//
//
// Declarations of every cuda-agent pass, generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TRANSFORMS_PASSES_H
#define CUDA_AGENT_TRANSFORMS_PASSES_H

#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::cuda_agent {

#define GEN_PASS_DECL
#include "cuda-agent/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "cuda-agent/Transforms/Passes.h.inc"

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TRANSFORMS_PASSES_H
