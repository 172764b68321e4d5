//===- LaunchPlan.h - Launch plans and kernel bundles -----------*- C++ -*-===//
//
// A launch plan is what both the reference (the default lowering of a region)
// and an agent's candidate reduce to: kernel objects plus an ordered list of
// launches over named buffers. A bundle is a directory holding `plan.json`
// and the objects; `cuda-agent-run` executes it on a machine without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LOWERING_LAUNCHPLAN_H
#define CUDA_AGENT_LOWERING_LAUNCHPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <string>

namespace mlir::cuda_agent {

/// Version of the plan.json format written here and read by cuda-agent-run.
constexpr int64_t kLaunchPlanVersion = 1;

/// The role of a constant in plan.json and the key of its data file.
constexpr llvm::StringLiteral kConstantRole = "constant";
constexpr llvm::StringLiteral kDataKey = "data";

/// A buffer of a plan, or a view: another name and shape for a whole buffer
/// (a reshape: the same device pointer, the same number of elements), with
/// role kViewRole and `viewOf` naming the buffer it views (never a view).
/// A constant (role kConstantRole: a weight the program holds) carries its
/// bytes in `data`, written beside plan.json as `<name>.bin` (kDataKey names
/// the file); the runner uploads them before the launches.
struct PlanBuffer {
  std::string name;
  SmallVector<int64_t> shape;
  std::string dtype; // f32, f16, bf16, i32, ...
  std::string role;  // input, output, temp, constant or view
  std::string viewOf; // For views: the name of the buffer viewed.
  std::string data;   // For constants: the raw little-endian bytes.
  bool isView() const { return !viewOf.empty(); }
  bool isConstant() const { return role == kConstantRole; }
  /// The file `data` is written to inside the bundle.
  std::string getDataFileName() const { return name + ".bin"; }
};

/// The role of a view in plan.json; its base buffer is under kViewOfKey.
constexpr llvm::StringLiteral kViewRole = "view";
constexpr llvm::StringLiteral kViewOfKey = "view_of";

/// One step of a plan: a kernel launch, or a device-to-device copy between
/// two buffers of the same size when `copyFrom` is set (`kernel`, `object`,
/// grid and block are then unused).
struct PlanLaunch {
  std::string copyFrom, copyTo; // Buffer names, for copies.
  bool isCopy() const { return !copyFrom.empty(); }
  std::string kernel;
  std::string object; // File name inside the bundle.
  std::array<int64_t, 3> grid;
  std::array<int64_t, 3> block;
  int64_t sharedBytes = 0;
  SmallVector<std::string> args; // Buffer names, one bare pointer each.
};

/// CUDA's limits on a launch's grid (x, y, z): what every plan's `grid`
/// must stay within.
constexpr std::array<int64_t, 3> kMaxGridSize = {0x7fffffff, 65535, 65535};

struct LaunchPlan {
  std::string chip;
  SmallVector<PlanBuffer> buffers;
  SmallVector<PlanLaunch> launches;
  /// Object file name -> contents (cubin bytes, or PTX text).
  llvm::StringMap<std::string> objects;
  /// The region's tensor-level MLIR as a public `@region`, when known;
  /// written as `region.mlir`.
  std::string source;
  /// Bytes of scratch memory the launches get as the buffer `workspace`.
  int64_t workspaceBytes = 0;
  /// Other top-level keys of plan.json, kept as they were.
  llvm::json::Object extra;
};

/// File name of a bundle's MLIR source.
constexpr llvm::StringLiteral kBundleSourceName = "region.mlir";

/// Returns the plan.json form of `plan`.
llvm::json::Value toJSON(const LaunchPlan &plan);

/// Reads the launch plan of `func`, a function lowered by the default
/// pipeline with `hostStage = gpu`: its first `numInputs` arguments are
/// inputs, the rest outputs; `gpu.alloc`s are temporaries, except one that a
/// `gpu.memcpy` from a `memref.get_global` fills (agent-device-buffers'
/// upload of a constant): that is a constant buffer holding the global's
/// bytes; other `gpu.memcpy`s are copy steps. Fails with an error naming the
/// op when the host code is more than straight-line allocations, copies and
/// launches.
FailureOr<LaunchPlan> extractLaunchPlan(func::FuncOp func, unsigned numInputs);

/// Writes `plan` as a bundle: DIR/plan.json, every object and the source
/// beside it.
LogicalResult writeBundle(const LaunchPlan &plan, StringRef dir, Location loc);

/// Reads a plan from its plan.json form; `readObject` supplies the contents
/// of each object file the launches name, once per name. `where` names the
/// plan in error messages. Unknown keys are kept in `LaunchPlan::extra`.
llvm::Expected<LaunchPlan> parseLaunchPlan(
    const llvm::json::Value &json,
    llvm::function_ref<llvm::Expected<std::string>(StringRef)> readObject,
    StringRef where);

/// Reads the bundle in `dir`: plan.json, every object it names, and
/// region.mlir when present. Unknown keys of plan.json are kept in
/// `LaunchPlan::extra` (provenance such as agent, model and speedup).
llvm::Expected<LaunchPlan> readBundle(StringRef dir);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_LOWERING_LAUNCHPLAN_H
