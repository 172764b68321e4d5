//===- Prompt.h - Tasks as chat prompts, replies as candidates --*- C++ -*-===//
//
// What a language-model agent is told and how its answer is read. The prompt
// carries the region's MLIR, its operands, size, the roofline floor on the
// target and the candidate contract; earlier attempts come back as feedback
// turns (compile log, mismatch, timing). A reply is read for its fenced CUDA
// block and its launch-plan JSON; prose around them is ignored, and a reply
// missing either becomes feedback, not an error.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_PROMPT_H
#define CUDA_AGENT_AGENTS_PROMPT_H

#include "cuda-agent/Agents/KernelAgent.h"

#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// The version of the prompt text; changes when what the model is told does.
constexpr llvm::StringLiteral kPromptVersion = "prompt-v2";

/// The conversation for `task`: the system message (the contract), the task
/// (followed by `examples`, verified kernels of other regions, when given),
/// and for each earlier attempt its reply and the compiler's feedback.
std::vector<ChatMessage> renderPrompt(const KernelTask &task,
                                      llvm::ArrayRef<Attempt> history,
                                      llvm::ArrayRef<KernelRecord> examples = {});

/// What renderPrompt adds for one earlier attempt: its reply (or, without
/// one, its kernel and launch plan) and the feedback on it.
std::vector<ChatMessage> renderAttempt(const Attempt &attempt);

/// The text renderPrompt gives `example`: its region's MLIR, kernel, launch
/// plan, and where and how fast it was verified.
std::string renderFewShotExample(const KernelRecord &example);

/// Few-shot examples for `task` out of `candidates` (kernels of other regions
/// of its kind): nearest first, where the distance is |ln| of the ratio of
/// bytes plus |ln| of the ratio of flops (so a region of twice the size is
/// as near as one of half), ties keeping the candidates' order; an example
/// whose text (renderFewShotExample) does not fit in what is left of
/// `tokenBudget` (tokens estimated as characters / 4) is skipped.
std::vector<KernelRecord>
selectFewShotExamples(const KernelTask &task,
                      std::vector<KernelRecord> candidates,
                      unsigned tokenBudget);

/// selectFewShotExamples over the best kernels `db` holds for regions of
/// the task's kind on its arch (KernelDb::bestKernelsOfKind, the region itself
/// left out). None without a database, a kind or a budget, or when the
/// lookup fails (examples are a help, never a reason to fail).
std::vector<KernelRecord> findFewShotExamples(KernelDb *db,
                                              const KernelTask &task,
                                              unsigned tokenBudget);

/// A reply read for its kernel: the last fenced block of CUDA C++ (```cuda,
/// ```cpp, ```c++, ```cu, or an unlabelled block with a __global__) and the
/// launch plan (a ```json block, or the first JSON object with "launches").
/// `error` says what is missing ("no CUDA code block", "no launch plan");
/// the rest is empty then.
struct ParsedReply {
  std::string source, launchPlan, error;
};
ParsedReply parseReply(llvm::StringRef reply);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_AGENTS_PROMPT_H
