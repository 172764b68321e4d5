//===- AgentLowerPipeline.h - The --agent-lower pipeline --------*- C++ -*-===//
//
// agent-outline -> agent-generate -> bufferize (out-params) -> agent-splice
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
/// agent-generate's, and whether to finish with the default lowering.
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
  Option<std::string> agent{
      *this, "agent",
      llvm::cl::desc("The agent backend, for example `agent=replay`: builtin "
                     "(the default), openai, torch, replay or db."),
      llvm::cl::init("builtin")};
  Option<std::string> replayDir{
      *this, "replay-dir",
      llvm::cl::desc("agent=replay: candidates in DIR/<region hash>/<name>.cu "
                     "with <name>.json beside, for example `replay-dir=k`.")};
  Option<std::string> endpoint{
      *this, "endpoint",
      llvm::cl::desc("agent=openai: the server, for example "
                     "`endpoint=http://127.0.0.1:8000/v1`.")};
  Option<std::string> model{
      *this, "model",
      llvm::cl::desc("agent=openai: the model, for example `model=kernel-7b`.")};
  Option<std::string> apiKeyEnv{
      *this, "api-key-env",
      llvm::cl::desc("agent=openai: the variable holding the API key, for "
                     "example `api-key-env=OPENAI_API_KEY`.")};
  Option<double> temperature{
      *this, "temperature",
      llvm::cl::desc("agent=openai and agent=torch: sampling temperature, "
                     "for example `temperature=0.7` (agent=torch: 0 is "
                     "greedy)."),
      llvm::cl::init(0.2)};
  Option<unsigned> maxTokens{
      *this, "max-tokens",
      llvm::cl::desc("agent=openai and agent=torch: reply token limit, for "
                     "example `max-tokens=8192`."),
      llvm::cl::init(4096)};
  Option<unsigned> llmTimeout{
      *this, "llm-timeout",
      llvm::cl::desc("agent=openai: seconds per request, for example "
                     "`llm-timeout=300`."),
      llvm::cl::init(120)};
  Option<unsigned> llmConcurrency{
      *this, "llm-concurrency",
      llvm::cl::desc("agent=openai: requests of one turn in flight at once, "
                     "for example `llm-concurrency=8`."),
      llvm::cl::init(4)};
  Option<unsigned> fewShotTokens{
      *this, "few-shot-tokens",
      llvm::cl::desc("agent=openai: the budget for few-shot examples from the "
                     "database (tokens = characters / 4), for example "
                     "`few-shot-tokens=6000`; 0: none."),
      llvm::cl::init(3000)};
  Option<std::string> torchModel{
      *this, "torch-model",
      llvm::cl::desc("agent=torch: the TorchScript causal LM, for example "
                     "`torch-model=models/coder.pt`.")};
  Option<std::string> tokenizer{
      *this, "tokenizer",
      llvm::cl::desc("agent=torch: the model's byte-level BPE tokenizer.json, "
                     "for example `tokenizer=models/tokenizer.json`.")};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("agent=torch: `cpu`, `cuda` or `cuda:N`, for example "
                     "`device=cuda`."),
      llvm::cl::init("cpu")};
  Option<double> topP{
      *this, "top-p",
      llvm::cl::desc("agent=torch: nucleus sampling mass, for example "
                     "`top-p=0.9`."),
      llvm::cl::init(0.95)};
  Option<unsigned> seed{
      *this, "seed",
      llvm::cl::desc("agent=torch: the sampling seed, for example `seed=42`."),
      llvm::cl::init(0)};
  Option<unsigned> samples{
      *this, "samples",
      llvm::cl::desc(
          "Candidates per region and turn, for example `samples=8`."),
      llvm::cl::init(4)};
  Option<unsigned> turns{
      *this, "turns",
      llvm::cl::desc("Rounds per region, failures fed back, for example "
                     "`turns=3`."),
      llvm::cl::init(1)};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU architecture, for example `chip=sm_90`."),
      llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVVM target features of the default lowering, for "
                     "example `features=+ptx80`."),
      llvm::cl::init("+ptx80")};
  Option<std::string> db{
      *this, "db",
      llvm::cl::desc("The kernel database, for example `db=kernels.db`; by "
                     "default under $XDG_CACHE_HOME or ~/.cache/cuda-agent; "
                     "`db=none` uses none.")};
  Option<std::string> verify{
      *this, "verify",
      llvm::cl::desc("`verify=gpu` (verify and time here, the default), "
                     "`verify=db` (splice what the database verified) or "
                     "`verify=bundle:DIR` (write jobs for a GPU machine)."),
      llvm::cl::init("gpu")};
  Option<double> minSpeedup{
      *this, "min-speedup",
      llvm::cl::desc("Speedup over the default lowering needed to splice, for "
                     "example `min-speedup=1.2`."),
      llvm::cl::init(1.05)};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the JSON report here, for example "
                     "`report=report.json`.")};
  Option<unsigned> jobs{
      *this, "jobs",
      llvm::cl::desc(
          "Compile threads (0: one per core), for example `jobs=8`."),
      llvm::cl::init(0)};
  Option<unsigned> timeout{
      *this, "timeout",
      llvm::cl::desc("Seconds per candidate before the runner kills it, for "
                     "example `timeout=30`."),
      llvm::cl::init(20)};
  Option<std::string> runner{
      *this, "runner",
      llvm::cl::desc("The cuda-agent-run executable, for example "
                     "`runner=build/bin/cuda-agent-run`.")};
  Option<std::string> workDir{
      *this, "work-dir",
      llvm::cl::desc("Keep the reference and candidate bundles here, for "
                     "example `work-dir=build/agent`.")};
  Option<bool> lower{
      *this, "lower",
      llvm::cl::desc("Finish with agent-default-lowering (the default); "
                     "`lower=false` stops after agent-splice, with the host "
                     "code on memrefs, for IREE or a later pipeline."),
      llvm::cl::init(true)};
};

/// Adds the --agent-lower pipeline to `pm` (a builtin.module pass manager).
void buildAgentLowerPipeline(OpPassManager &pm,
                             const AgentLowerOptions &options);

/// Registers `agent-lower` with the pass pipeline registry.
void registerAgentLowerPipeline();

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_GENERATE_AGENTLOWERPIPELINE_H
