//===- Plan.h - Launch plan parsing -----------------------------*- C++ -*-===//
//
// A bundle is a directory holding `plan.json` and the kernel objects it names
// (cubin, fatbin or PTX). The plan lists named buffers (shape, element type,
// role) and an ordered list of kernel launches over them. loadPlan() reads and
// fully validates a bundle before anything touches the GPU, so that a bad plan
// fails with exit code 2 and a message naming the launch at fault; the
// interface check compares a candidate's plan with the reference's.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_PLAN_H
#define CUDA_AGENT_RUN_PLAN_H

#include "DType.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// What the runner does with a buffer before and after the launches.
enum class Role {
  Input,  ///< filled from --inputs or generated; must be left unchanged
  Output, ///< poisoned with 0xFF bytes before the run, written out after
  InOut,  ///< filled like an input, written out like an output
  Temp,   ///< zero-filled, never written out
  Constant, ///< uploaded from its data file ("data": "<file>" in the bundle),
            ///< must be left unchanged; a program's weights
};

const char *getRoleName(Role role);

/// "[3, 17]" for a shape or an index.
std::string formatDims(const std::vector<int64_t> &dims);

struct BufferSpec {
  std::string name;
  std::vector<int64_t> shape; ///< may be empty (a scalar)
  DType dtype;
  Role role;
  std::vector<uint8_t> data; ///< a constant's bytes (numBytes() of them)

  uint64_t numElements() const;
  uint64_t numBytes() const { return numElements() * getInfo(dtype).size; }
  bool isFilled() const { return role == Role::Input || role == Role::InOut; }
  bool isWrittenOut() const { return role != Role::Temp; }
};

/// One step of a plan: a kernel launch, or (when `isCopy`) a device-to-device
/// copy between two buffers of the same size, written in plan.json as
/// `{"copy": {"from": "tmp0", "to": "out0"}}`.
struct LaunchSpec {
  bool isCopy = false;
  size_t copyFrom = 0, copyTo = 0; ///< buffer indices, for copies
  std::string kernel;             ///< entry point (extern "C" name); "copy" for copies
  std::string object;             ///< file name inside the bundle
  std::array<unsigned, 3> grid;   ///< blocks
  std::array<unsigned, 3> block;  ///< threads per block
  unsigned sharedBytes = 0;       ///< dynamic shared memory
  std::vector<size_t> args;       ///< indices into Plan::buffers
};

struct Plan {
  std::filesystem::path bundle;
  int version = 1;
  std::string chip; ///< e.g. "sm_90"; empty when the plan does not say
  std::vector<BufferSpec> buffers;
  std::vector<LaunchSpec> launches;
  /// Contents of every object file, keyed by LaunchSpec::object. PTX text is
  /// NUL-terminated, as cuModuleLoadData requires.
  std::map<std::string, std::vector<char>> objects;
  /// The longest reduction of the region (product of its reduced extents)
  /// and the type it accumulates in, from the optional
  /// `"reduction": {"length": K, "accumulator": "f32"}` that the compiler
  /// writes into a reference plan; it widens the tolerance (Tolerance.h).
  /// 0 when absent.
  int64_t reductionLength = 0;
  DType reductionAccumulator = DType::F32;
  /// Whether the region's f32 products may round their operands to TF32,
  /// from a reference plan's optional `"precision": "tf32"` (wire::kPrecision,
  /// the user's precision=tf32); it loosens the f32 tolerance (Tolerance.h).
  bool tf32Products = false;
  /// The region's floating-point operations, from the optional top-level
  /// wire::kFlops the compiler writes into a reference plan (the outliner's
  /// count); the verifier's compute floor. 0 when absent.
  int64_t flops = 0;
  /// The bytes the region must move, from the optional top-level
  /// wire::kBytes of a reference plan (the outliner's count, which takes
  /// only what the region reads of a sliced input); bounds the roofline floor
  /// (Floors.h). 0 when absent.
  int64_t bytes = 0;
  /// The PTX the candidate was compiled from, from the optional top-level
  /// kPlanPtxKey (the compiler keeps it beside a candidate's cubin); checked
  /// for state that outlives a launch (StateCheck.h). Empty when absent.
  std::string ptx;
};

/// plan.json's top-level key for Plan::ptx.
inline constexpr const char kPlanPtxKey[] = "ptx";

/// The temp buffer that a plan's top-level "workspace_bytes": N (N > 0) adds:
/// u8, shape [N], zero-filled like every temp; launches name it in "args".
inline constexpr const char kWorkspaceName[] = "workspace";

/// Reads `bundle`/plan.json and the object files it names, and checks:
/// version 1, required fields and their types, known dtypes, non-negative
/// shapes, unique buffer names, each constant's data file holding exactly its
/// bytes, args naming known buffers, existing object
/// files, grid and block dims >= 1 and within CUDA limits, <= 1024 threads per
/// block, and a non-negative "workspace_bytes" (see kWorkspaceName). Throws
/// RunnerError(kExitUsage) naming the buffer or launch (index
/// and kernel) at fault.
Plan loadPlan(const std::filesystem::path &bundle);

/// loadPlan() on the text of a plan.json read from `in`; the object files
/// it names are read from `bundle`.
Plan parsePlan(std::istream &in, const std::filesystem::path &bundle);

/// Returns "" when `candidate` has exactly the reference's input, inout and
/// output buffers (name, shape, dtype, role; temps may differ), else a reason
/// starting with "plan mismatch: ". Verification checks it before any
/// process touches the GPU.
std::string findInterfaceMismatch(const Plan &reference, const Plan &candidate);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_PLAN_H
