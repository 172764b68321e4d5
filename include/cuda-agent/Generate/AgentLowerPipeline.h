//===- AgentLowerPipeline.h - The --agent-lower pipeline --------*- C++ -*-===//
//
// agent-outline -> agent-generate -> [agent-export-iree] -> bufferize (out-params) -> agent-splice
// -> agent-default-lowering (unless lower=false). Regions whose kernel was
// not replaced, and everything outside regions, lower the default way.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_GENERATE_AGENTLOWERPIPELINE_H
#define CUDA_AGENT_GENERATE_AGENTLOWERPIPELINE_H

#include "cuda-agent/Outline/RegionOutliner.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::cuda_agent {

/// The options of --agent-lower: agent-outline's fusion, all of
/// agent-generate's (GenerateOptions.def), where to write the program's
/// whole-program bundle, and whether to finish with the default lowering.
struct AgentLowerOptions : public PassPipelineOptions<AgentLowerOptions> {
  Option<FusionMode> fusion{
      *this, "fusion",
      llvm::cl::desc("How much agent-outline fuses, for example "
                     "`fusion=elementwise` (none, elementwise, rows)."),
      llvm::cl::init(FusionMode::Rows),
      llvm::cl::values(
          clEnumValN(FusionMode::None, "none", "one linalg op per region"),
          clEnumValN(FusionMode::Elementwise, "elementwise",
                     "fuse elementwise producers and consumers"),
          clEnumValN(FusionMode::Rows, "rows",
                     "also join reductions over the same rows"))};
  // agent-generate's options, spelt in GenerateOptions.def.
#define CUDA_AGENT_GENERATE_OPTION(TYPE, MEMBER, FLAG, DEFAULT, HELP, FIELD)   \
  Option<TYPE> MEMBER{*this, FLAG, llvm::cl::desc(HELP),                        \
                      llvm::cl::init(TYPE{DEFAULT})};
#include "cuda-agent/Generate/GenerateOptions.def"
  Option<std::string> bundle{
      *this, "bundle",
      llvm::cl::desc("Also write each public function as a whole-program "
                     "bundle (agent-emit-bundle whole-program=true: the "
                     "kernels agent-generate chose, the default lowering "
                     "elsewhere) into DIR, for example `bundle=out/program`; "
                     "what cuda-agent-run and the Python package run."),
      llvm::cl::init("")};
  Option<std::string> exportTo{
      *this, "export",
      llvm::cl::desc("Also write the module for IREE after agent-generate, "
                     "verified kernels as hal.dispatch.extern "
                     "(agent-export-iree), for example `export=iree:out`.")};
  Option<bool> lower{
      *this, "lower",
      llvm::cl::desc("Finish with agent-default-lowering (the default); "
                     "`lower=false` stops after agent-splice, with the host "
                     "code on memrefs, for IREE or a later pipeline."),
      llvm::cl::init(true)};
};

/// The prefix of the `export` option's only format, `iree:DIR`.
constexpr llvm::StringLiteral kIreeExportPrefix = "iree:";

/// Adds the --agent-lower pipeline to `pm` (a builtin.module pass manager).
/// Fails when an option's value is malformed (`export` without `iree:`).
LogicalResult buildAgentLowerPipeline(OpPassManager &pm,
                                      const AgentLowerOptions &options);

/// Registers `agent-lower` with the pass pipeline registry.
void registerAgentLowerPipeline();

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_GENERATE_AGENTLOWERPIPELINE_H
