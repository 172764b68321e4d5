//===- LaunchPlan.h - Launch plans and kernel bundles -----------*- C++ -*-===//
//
// A launch plan is what both the reference (the default lowering of a region)
// and an agent's candidate reduce to: kernel objects plus an ordered list of
// launches over named buffers. A bundle is a directory holding `plan.json`
// and the objects; `cuda-agent-run` executes it on a machine without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_PIPELINES_LAUNCHPLAN_H
#define CUDA_AGENT_PIPELINES_LAUNCHPLAN_H

#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <string>

namespace mlir::cuda_agent {

/// Version of the plan.json format written here and read by cuda-agent-run.
constexpr int64_t kLaunchPlanVersion = 1;

struct PlanBuffer {
  std::string name;
  SmallVector<int64_t> shape;
  std::string dtype; // f32, f16, bf16, i32, ...
  std::string role;  // input, output or temp
};

struct PlanLaunch {
  std::string kernel;
  std::string object; // File name inside the bundle.
  std::array<int64_t, 3> grid;
  std::array<int64_t, 3> block;
  int64_t sharedBytes = 0;
  SmallVector<std::string> args; // Buffer names, one bare pointer each.
};

struct LaunchPlan {
  std::string chip;
  SmallVector<PlanBuffer> buffers;
  SmallVector<PlanLaunch> launches;
  /// Object file name -> contents (cubin bytes, or PTX text).
  llvm::StringMap<std::string> objects;
  /// The region's tensor-level MLIR as a public `@region`, when known;
  /// written as `region.mlir`.
  std::string source;
};

/// File name of a bundle's MLIR source.
constexpr llvm::StringLiteral kBundleSourceName = "region.mlir";

/// Returns the plan.json form of `plan`.
llvm::json::Value toJSON(const LaunchPlan &plan);

/// Reads the launch plan of `func`, a function lowered by the default
/// pipeline with `hostStage = gpu`: its first `numInputs` arguments are
/// inputs, the rest outputs; `gpu.alloc`s are temporaries. Fails with an
/// error naming the op when the host code is more than straight-line
/// allocations and launches.
FailureOr<LaunchPlan> extractLaunchPlan(func::FuncOp func, unsigned numInputs);

/// Writes `plan` as a bundle: DIR/plan.json, every object and the source
/// beside it.
LogicalResult writeBundle(const LaunchPlan &plan, StringRef dir, Location loc);

/// Lowers every region function of `module` (those with `cuda_agent.region`)
/// with the default pipeline and writes its bundle to DIR/<region hash>/; a
/// module without regions gets one bundle per public function with a body,
/// in DIR/ when there is one such function and DIR/<name>/ otherwise, unless
/// `regionsOnly` is set. The module itself is not changed: each function is
/// lowered on a copy.
LogicalResult emitBundles(ModuleOp module, StringRef dir,
                          const DefaultLoweringOptions &options,
                          bool regionsOnly = false);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_LAUNCHPLAN_H
