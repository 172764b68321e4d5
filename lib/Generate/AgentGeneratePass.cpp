//===- AgentGeneratePass.cpp - The agent-generate pass
//---------------------===//
//
// Thin pass wrapper over generateKernels().
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Generate/KernelGenerator.h"
#include "cuda-agent/Transforms/Passes.h"

namespace mlir::cuda_agent {
#define GEN_PASS_DEF_AGENTGENERATEPASS
#include "cuda-agent/Transforms/Passes.h.inc"
} // namespace mlir::cuda_agent

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
struct AgentGeneratePass
    : public cuda_agent::impl::AgentGeneratePassBase<AgentGeneratePass> {
  using AgentGeneratePassBase::AgentGeneratePassBase;

  void runOnOperation() override {
    GenerateOptions generate;
    if (failed(generate.parseVerify(verify, getOperation().getLoc())))
      return signalPassFailure();
    generate.agent = agent;
    generate.replayDir = replayDir;
    generate.openai.endpoint = endpoint;
    generate.openai.model = model;
    generate.openai.apiKeyEnv = apiKeyEnv;
    generate.openai.temperature = temperature;
    generate.openai.maxTokens = maxTokens;
    generate.openai.timeoutSeconds = llmTimeout;
    generate.openai.concurrency = llmConcurrency;
    generate.openai.fewShot.tokens = fewShotTokens;
    generate.torch.fewShot.tokens = fewShotTokens;
    generate.torch.modelPath = torchModel;
    generate.torch.tokenizerPath = tokenizer;
    generate.torch.device = device;
    generate.torch.temperature = temperature;
    generate.torch.maxTokens = maxTokens;
    generate.torch.topP = topP;
    generate.torch.seed = seed;
    generate.samples = samples;
    generate.turns = turns;
    generate.chip = chip;
    generate.features = features;
    generate.db = db;
    generate.minSpeedup = minSpeedup;
    generate.report = report;
    generate.jobs = jobs;
    generate.timeoutSeconds = timeout;
    generate.runner = runner;
    generate.workDir = workDir;
    if (failed(generateKernels(getOperation(), generate)))
      signalPassFailure();
  }
};
} // namespace
