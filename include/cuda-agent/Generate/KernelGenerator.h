//===- KernelGenerator.h - The closed loop per region -----------*- C++ -*-===//
//
// agent-generate: for each outlined region, ask an agent for candidate
// kernels, compile them (NVRTC), verify and time them against the region's
// default lowering in cuda-agent-run (here, on a GPU machine later, or
// trusting the kernel database), and attach the winner for agent-splice.
// A candidate can fail in every way docs/threats.md lists; none of them fails the
// compile.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_GENERATE_KERNELGENERATOR_H
#define CUDA_AGENT_GENERATE_KERNELGENERATOR_H

#include "cuda-agent/Agents/KernelAgent.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::cuda_agent {

/// Name of the attribute recording a region's decision:
/// `{decision = "spliced" | "default", reason = "..."}`.
constexpr llvm::StringLiteral kDecisionAttrName = "cuda_agent.decision";

enum class VerifyMode {
  Gpu,    ///< verify and time here, with cuda-agent-run
  Db,     ///< splice what the kernel database verified before
  Bundle, ///< write the jobs for a GPU machine; splice nothing now
};

/// The options of agent-generate (and of the agent-lower pipeline), with
/// the defaults of GenerateOptions.def, where each option's flag, help and
/// field here are spelt.
struct GenerateOptions {
  /// The backend's name (`agent=`).
  std::string agent;
  /// The backends' own options (replay-dir, openai's, torch's); the
  /// database and the CUDA version are filled in by the generator.
  AgentConfig agents;
  unsigned samples, turns;
  std::string chip, features;
  /// `precision=`: wire::kPrecisionF32 or wire::kPrecisionTf32 (Protocol.h).
  std::string precision;
  /// The database file; empty: KernelDb::defaultPath(); "none": no database.
  std::string db;
  /// `verify=` as written: `gpu`, `db` or `bundle:DIR` (parseVerify()).
  std::string verifySpec;
  VerifyMode verify = VerifyMode::Gpu;
  /// verify=bundle:DIR's DIR.
  std::string bundleDir;
  double minSpeedup;
  std::string report;
  unsigned jobs;
  unsigned timeoutSeconds;
  std::string runner;
  std::string workDir;

  /// Every option at its default (GenerateOptions.def).
  GenerateOptions();

  /// Sets `verify` and `bundleDir` from `verifySpec`; checks `precision`.
  LogicalResult parseVerify(Location loc);
};

/// Runs the closed loop on every region function of `module` (on tensors,
/// with `cuda_agent.region`), setting `cuda_agent.decision` on each and
/// `cuda_agent.kernel` on the winners. Fails only for bad options, an
/// unusable database or a failure to write the report or the jobs.
LogicalResult generateKernels(ModuleOp module, const GenerateOptions &options);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_GENERATE_KERNELGENERATOR_H
