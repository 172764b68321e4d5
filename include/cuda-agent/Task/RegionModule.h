//===- RegionModule.h - A task's region parsed on its own -------*- C++ -*-===//
//
// The agents that read a task's region (the builtin generator, the C and
// PyTorch references of the prompts) parse its MLIR text, a module holding
// `func.func @region`, in a context of their own with the dialects a region
// may use (arith, func, linalg, math, tensor).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TASK_REGIONMODULE_H
#define CUDA_AGENT_TASK_REGIONMODULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace mlir::cuda_agent {

/// Registers the dialects a region may use.
void loadRegionDialects(MLIRContext &context);

/// A region's module and its `@region`; the context outlives both.
struct RegionModule {
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};

/// Parses `regionMlir` in a fresh single-threaded context; fails with
/// "cannot parse the region" and the parser's first message, or when there
/// is no defined `@region`.
llvm::Expected<RegionModule> parseRegionModule(llvm::StringRef regionMlir);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TASK_REGIONMODULE_H
