//===- Generator.h - agent-generate's state, private ------------*- C++ -*-===//
//
// The closed loop's session, shared by its files: GeneratorSession.cpp sets
// it up (options, database, runner, agent, where bundles go),
// RegionTurns.cpp runs one region's turns (agent -> NVRTC -> launch-plan
// check -> bundles -> cuda-agent-run -> decision), RegionFromDatabase.cpp
// splices what the database verified, GenerateReport.cpp writes the report
// and the decisions, and KernelGenerator.cpp walks the regions.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_GENERATE_GENERATOR_H
#define CUDA_AGENT_LIB_GENERATE_GENERATOR_H

#include "GenerateReport.h"

#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/Cuda/NvrtcCompiler.h"
#include "cuda-agent/Generate/KernelGenerator.h"
#include "cuda-agent/KernelDb/KernelDb.h"
#include "cuda-agent/KernelDb/ResultImport.h"
#include "cuda-agent/Pipelines/BundleEmitter.h"
#include "cuda-agent/Runner/RunnerClient.h"
#include "cuda-agent/Task/KernelTask.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// The verification trials per candidate (one per input distribution).
constexpr unsigned kTrials = 4;

/// The object file name of a candidate's cubin inside its bundle.
constexpr llvm::StringLiteral kCandidateObjectName = "kernel.cubin";

/// Collects the diagnostics emitted while it lives instead of printing them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          if (!text.empty())
            text += "; ";
          text += diagnostic.str();
          return success();
        }) {}
  const std::string &str() const { return text; }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

/// `a/b`.
std::string joinPath(const Twine &a, const Twine &b);

/// Writes `text` to `path`; an error at `loc` when it cannot.
LogicalResult writeText(const Twine &path, StringRef text, Location loc);

/// Parses and validates an agent's launch plan against its compiled kernel.
llvm::Expected<llvm::json::Value> checkLaunchPlan(StringRef text,
                                                  const CompiledKernel &kernel,
                                                  unsigned numOperands);

/// Builds a candidate's runner plan from the agent's launch plan (already
/// validated): the task's operands as buffers, one bare pointer per operand
/// (and the workspace) for every launch.
LaunchPlan buildCandidatePlan(const KernelTask &task,
                              const llvm::json::Object &plan,
                              const CompiledKernel &kernel);

/// Records on a winner's plan where its kernel came from: the verified
/// kernel's agent, model, times, device and time of verification, database
/// key and id (when stored, `id` >= 0) and source.
void addProvenance(LaunchPlan &plan, const KernelRecord &record, int64_t id);

/// "sm_90, CUDA 13.0, contract 1": a database key less its region hash.
std::string describeKey(const KernelKey &key,
                        llvm::StringRef promptVersion = "");

/// One agent-generate run over a module.
class Generator {
public:
  Generator(ModuleOp module, const GenerateOptions &options)
      : module(module), options(options), cudaVersion(getCudaVersion()) {}

  /// Every region: its decision, its kernel, the jobs and the report.
  LogicalResult run();

private:
  // GeneratorSession.cpp
  /// Opens the database, finds the runner and the GPU, creates the agent
  /// and the work directory.
  LogicalResult setUp();

  // RegionTurns.cpp
  void processRegion(func::FuncOp func, RegionReport &report);
  /// The turns of `task`'s agent: propose, compile, check, verify.
  void fromAgent(func::FuncOp func, const KernelTask &task,
                 RegionReport &report);
  /// Verifies `job` here; fills the reports of its candidates (starting at
  /// `firstReport`) and the agent's history; returns the job's decision.
  /// `kernelId` gets the winner's database id (-1 when not stored).
  std::optional<JobDecision> verifyHere(const Job &job, RegionReport &report,
                                        size_t firstReport,
                                        std::vector<Attempt> &history,
                                        const std::vector<Candidate> &sources,
                                        func::FuncOp func, int64_t &kernelId);
  /// Why no candidate of `report` reached verification.
  std::string explainNoCandidate(const RegionReport &report) const;

  // RegionFromDatabase.cpp
  /// verify=db: the database's best kernel for `task`'s key, recompiled.
  void fromDatabase(func::FuncOp func, const KernelTask &task,
                    RegionReport &report);

  // GenerateReport.cpp
  /// The region's decision into the database (when there is one).
  void recordDecision(const RegionReport &report, int64_t kernelId);
  /// The JSON report, when `report=` asks for one.
  LogicalResult writeReport();

  // KernelGenerator.cpp
  /// verify=bundle: the jobs, merged with those already in the directory.
  LogicalResult writeBundleJobs();

  ModuleOp module;
  GenerateOptions options; // verify=db may become verify=gpu with agent=db

  std::string cudaVersion;
  std::unique_ptr<KernelDb> db;
  std::string dbNote; // why there is no database, when there is none
  std::unique_ptr<KernelAgent> agent;
  std::string agentError;
  std::string runner;
  std::string noGpuReason; // verify=gpu without a GPU: why
  std::string gpuDevice;
  std::string workDir;
  bool removeWorkDir = false;
  JobSet bundleJobs;
  std::vector<RegionReport> reports;
  DenseMap<StringAttr, StringAttr> callers;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_LIB_GENERATE_GENERATOR_H
