//===- IreeExport.h - Verified kernels as IREE dispatches -------*- C++ -*-===//
//
// The IREE export: an outlined module whose regions carry the kernels
// agent-generate chose (`cuda_agent.kernel`) becomes a module IREE 3.13
// compiles for CUDA. Each such region's body is one `hal.dispatch.extern`
// per launch of its plan, chained through tensors, with the cubin embedded
// (and the PTX as a fallback for other devices); every other region stays
// linalg for IREE's own codegen. Written as text: IREE parses MLIR 22's
// textual form, not its bytecode, and has dialects (hal) that this build of
// MLIR does not.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_EXPORT_IREEEXPORT_H
#define CUDA_AGENT_EXPORT_IREEEXPORT_H

#include "cuda-agent/Runner/Protocol.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// The byte alignment IREE guarantees for the base of every dispatch
/// binding (buffer offsets within its allocations are multiples of it): the
/// alignment of the verifier's offset trial.
constexpr int64_t kIreeBindingAlignment = kOffsetTrialAlignment;

/// What the export did with one region function.
struct IreeRegionExport {
  std::string function;
  std::string hash;
  /// True when the region's body became dispatches of its kernel.
  bool exported = false;
  /// Why not, when it was not.
  std::string reason;
  /// For exported regions: one entry per kernel launch.
  struct Dispatch {
    std::string kernel;
    std::array<int64_t, 3> grid, block;
    int64_t sharedBytes;
    /// The buffer alignment the kernel needs (its widest global access).
    int64_t alignment;
    /// The cubin embedded, as written beside the module.
    std::string cubinFile;
    /// Whether the verifier ran the kernel with every buffer at a
    /// kIreeBindingAlignment-byte (and no more) aligned address and it
    /// passed: "pass", or "not run" (a record from before the offset trial,
    /// or a fake runner). A kernel that failed it is not exported.
    std::string offsetTrial;
  };
  std::vector<Dispatch> dispatches;
  /// For exported regions, the function's pieces, which the preprocessing
  /// spec reuses: `(%arg0: T, ...) -> (R, ...)`, the body up to its return
  /// (one line per op, a provenance comment first) and the returned values
  /// with their types.
  std::string signature, body, returned;
  /// Why the preprocessing spec (DIR/spec.mlir) cannot replace the region
  /// in a user's own module; empty when it has a matcher for it.
  std::string specReason;
};

/// The export of a module: the text IREE compiles and what was done.
struct IreeModuleExport {
  /// The module's name (its symbol, else its file's stem): the output is
  /// `<name>.iree.mlir`.
  std::string name;
  std::string text;
  std::vector<IreeRegionExport> regions;
  /// Cubins by file name (`<function>.<kernel>.cubin`).
  std::vector<std::pair<std::string, std::string>> cubins;
};

/// The alias the exported module and the spec give their executable target.
inline constexpr llvm::StringLiteral kIreeTargetAlias = "#cuda_agent_target";

/// Why the export cannot target `chip`, or nullopt: it describes sm_80,
/// sm_86, sm_87, sm_89 and sm_90 (sm_90a) GPUs to IREE.
std::optional<std::string> checkIreeChip(StringRef chip);

/// IREE's `#hal.executable.target` for CUDA `chip` (sm_90), one that
/// checkIreeChip accepts.
std::string ireeExecutableTarget(StringRef chip);

/// The name of the response file with `chip`'s target (`sm90.flags` for
/// sm_90 and sm_90a).
std::string ireeFlagsFileName(StringRef chip);

/// The shared memory one workgroup can opt in to on `chip` (0 for a chip
/// checkIreeChip refuses).
int64_t ireeWorkgroupMemoryBytes(StringRef chip);

/// Rewrites the named elementwise ops in `op` (linalg.add, linalg.exp, ...)
/// as linalg.generic: IREE 3.13's linalg no longer has them ("custom op
/// 'linalg.add' is unknown"). Contractions, fills, copies, transposes and
/// broadcasts (which it has) stay named.
void generalizeElementwiseOps(Operation *op);

/// Builds the IREE form of `module`, an outlined module on tensors after
/// agent-generate, for `chip` (`sm_90`). The module is not changed.
FailureOr<IreeModuleExport> buildIreeModule(ModuleOp module, StringRef chip);

/// The transform-dialect preprocessing spec (DIR/spec.mlir) that replaces
/// the exported regions of `exported` in a user's own module with their
/// dispatches: per region whose body IREE 3.13's
/// `transform.iree.match.cast_compatible_dag_from_root` finds in `input`
/// (the module the user compiles, before outlining), a matcher (the body of
/// `module`'s region function as the pattern) and an action (the
/// dispatches, inlined). Sets every region's `specReason` (empty when the
/// spec has it). Without `input` no region is in the spec.
FailureOr<std::string> buildIreeSpec(ModuleOp module, IreeModuleExport &exported,
                                     StringRef chip, ModuleOp input);

/// The `iree-compile` flag selecting a CUDA device with an explicit `chip`
/// target (IREE 3.13 knows no `sm_90` by name), one response-file line.
std::string ireeTargetFlags(StringRef chip);

/// Writes DIR/<name>.iree.mlir, DIR/<chip>.flags, the embedded cubins under
/// DIR/objects/, DIR/<name>.iree.json (what was exported, with each
/// kernel's alignment), DIR/spec.mlir (the preprocessing spec for `input`,
/// the module before outlining; may be null) and DIR/README (the
/// iree-compile commands).
LogicalResult exportForIree(ModuleOp module, StringRef dir, StringRef chip,
                            ModuleOp input);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_EXPORT_IREEEXPORT_H
