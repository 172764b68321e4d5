//===- AgentLowerPipeline.cpp - The --agent-lower pipeline ----------------===//

#include "cuda-agent/Generate/AgentLowerPipeline.h"
#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"
#include "cuda-agent/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::cuda_agent;

void cuda_agent::buildAgentLowerPipeline(OpPassManager &pm,
                                         const AgentLowerOptions &options) {
  AgentOutlinePassOptions outline;
  outline.fusion = options.fusion;
  pm.addPass(createAgentOutlinePass(outline));

  AgentGeneratePassOptions generate;
  generate.agent = options.agent;
  generate.replayDir = options.replayDir;
  generate.endpoint = options.endpoint;
  generate.model = options.model;
  generate.apiKeyEnv = options.apiKeyEnv;
  generate.temperature = options.temperature;
  generate.maxTokens = options.maxTokens;
  generate.llmTimeout = options.llmTimeout;
  generate.llmConcurrency = options.llmConcurrency;
  generate.fewShotTokens = options.fewShotTokens;
  generate.torchModel = options.torchModel;
  generate.tokenizer = options.tokenizer;
  generate.device = options.device;
  generate.topP = options.topP;
  generate.seed = options.seed;
  generate.samples = options.samples;
  generate.turns = options.turns;
  generate.chip = options.chip;
  generate.features = options.features;
  generate.db = options.db;
  generate.verify = options.verify;
  generate.minSpeedup = options.minSpeedup;
  generate.report = options.report;
  generate.jobs = options.jobs;
  generate.timeout = options.timeout;
  generate.runner = options.runner;
  generate.workDir = options.workDir;
  pm.addPass(createAgentGeneratePass(generate));

  // The default lowering splices the kernels agent-generate attached; with
  // lower=false only its first steps run.
  if (!options.lower) {
    addBufferizeToOutParams(pm);
    pm.addPass(createAgentSplicePass());
    return;
  }
  DefaultLoweringOptions lowering;
  lowering.chip = options.chip;
  lowering.features = options.features;
  buildDefaultLoweringPipeline(pm, lowering);
}

void cuda_agent::registerAgentLowerPipeline() {
  PassPipelineRegistration<AgentLowerOptions>(
      "agent-lower",
      "The agent flow: outline regions, ask an agent for a kernel per region, "
      "verify and time it against the default lowering (on this GPU, later "
      "on another machine, or from the kernel database), splice the faster "
      "verified kernels, and lower the rest the default way. Examples: "
      "--agent-lower=\"verify=db db=kernels.db\", "
      "--agent-lower=\"agent=replay replay-dir=k verify=bundle:jobs\"",
      buildAgentLowerPipeline);
}
