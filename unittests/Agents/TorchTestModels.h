//===- TorchTestModels.h - Tiny tokenizers and models for agent=torch tests
//-===//
//
// What the agent=torch tests run on, built by the tests themselves (nothing
// is downloaded): a small byte-level BPE tokenizer.json and TorchScript
// modules defined with torch::jit::Module::define and saved. Shared by the
// GoogleTest suite and torch-lm-fixture (which writes them for lit).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_UNITTESTS_AGENTS_TORCHTESTMODELS_H
#define CUDA_AGENT_UNITTESTS_AGENTS_TORCHTESTMODELS_H

#include "cuda-agent/Torch/BpeTokenizer.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlir::cuda_agent::torch_test {

/// A byte-level BPE tokenizer.json: the 256 byte tokens (id = byte value),
/// six merges giving "Ġt" 256, "he" 257, "Ġthe" 258, "in" 259, "Ġin" 260,
/// "ĠĠ" 261, and the added special tokens <|im_start|> 262, <|im_end|> 263,
/// <|endoftext|> 264. `pairMerges` writes merges as ["a", "b"] pairs
/// (tokenizers >= 0.20) instead of "a b" strings.
std::string smallTokenizerJson(bool pairMerges = false);

/// A model whose greedy decoding answers any ChatML prompt with `reply`
/// followed by <|im_end|>: forward() finds the last <|im_start|>, counts the
/// tokens after "<|im_start|>assistant\n" and returns the one-hot logits of
/// the reply's next token. `fullLogits` returns [1,T,V] (else [1,V]).
llvm::Error writeCannedModel(llvm::StringRef path,
                             const BpeTokenizer &tokenizer,
                             llvm::StringRef reply, bool fullLogits = false);

/// A model with the same logit for every token: sampling draws uniformly.
llvm::Error writeUniformModel(llvm::StringRef path, int64_t vocabSize);

/// A model that always favours `token` (logit 10, others 0): greedy decoding
/// repeats it until the token limit.
llvm::Error writeRepeatModel(llvm::StringRef path, int64_t vocabSize,
                             int64_t token);

/// A model whose forward() returns a tensor outside the contract ([V]).
llvm::Error writeBadShapeModel(llvm::StringRef path, int64_t vocabSize);

} // namespace mlir::cuda_agent::torch_test

#endif // CUDA_AGENT_UNITTESTS_AGENTS_TORCHTESTMODELS_H
