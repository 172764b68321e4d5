//===- AgentLowerPipeline.cpp - The --agent-lower pipeline ----------------===//

#include "cuda-agent/Generate/AgentLowerPipeline.h"
#include "cuda-agent/Export/AgentExportIree.h"
#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::cuda_agent;

LogicalResult
cuda_agent::buildAgentLowerPipeline(OpPassManager &pm,
                                    const AgentLowerOptions &options) {
  // The IREE export's spec looks for the regions in the module as given.
  std::shared_ptr<IreeInputSnapshot> input;
  if (!options.exportTo.empty()) {
    input = std::make_shared<IreeInputSnapshot>();
    pm.addPass(createIreeInputSnapshotPass(input));
  }

  AgentOutlinePassOptions outline;
  outline.fusion = options.fusion;
  pm.addPass(createAgentOutlinePass(outline));

  AgentGeneratePassOptions generate;
#define CUDA_AGENT_GENERATE_OPTION(TYPE, MEMBER, FLAG, DEFAULT, HELP, FIELD)   \
  generate.MEMBER = options.MEMBER;
#include "cuda-agent/Generate/GenerateOptions.def"
  pm.addPass(createAgentGeneratePass(generate));

  if (!options.bundle.empty()) {
    AgentEmitBundlePassOptions emit;
    emit.dir = options.bundle;
    emit.wholeProgram = true;
    emit.chip = options.chip;
    emit.features = options.features;
    pm.addPass(createAgentEmitBundlePass(emit));
  }

  // The IREE export reads the kernels agent-generate attached, on tensors.
  if (!options.exportTo.empty()) {
    StringRef dir = options.exportTo;
    if (!dir.consume_front(kIreeExportPrefix) || dir.empty())
      return failure();
    AgentExportIreePassOptions exportIree;
    exportIree.dir = dir.str();
    exportIree.chip = options.chip;
    pm.addPass(createAgentExportIreePass(exportIree, input));
  }

  // The default lowering splices the kernels agent-generate attached; with
  // lower=false only its first steps run.
  if (!options.lower) {
    addBufferizeToOutParams(pm);
    pm.addPass(createAgentSplicePass());
    return success();
  }
  DefaultLoweringOptions lowering;
  lowering.chip = options.chip;
  lowering.features = options.features;
  buildDefaultLoweringPipeline(pm, lowering);
  return success();
}

void cuda_agent::registerAgentLowerPipeline() {
  registerPassPipeline(
      "agent-lower",
      "The agent flow: outline regions, ask an agent for a kernel per region, "
      "verify and time it against the default lowering (on this GPU, later "
      "on another machine, or from the kernel database), splice the faster "
      "verified kernels, and lower the rest the default way. Examples: "
      "--agent-lower=\"verify=db db=kernels.db\", "
      "--agent-lower=\"agent=replay replay-dir=k verify=bundle:jobs\", "
      "--agent-lower=\"verify=db db=kernels.db export=iree:out\"",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        AgentLowerOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (failed(buildAgentLowerPipeline(pm, options)))
          return errorHandler("agent-lower: `export` takes `iree:DIR`, not `" +
                              options.exportTo + "`");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(AgentLowerOptions());
      });
}
