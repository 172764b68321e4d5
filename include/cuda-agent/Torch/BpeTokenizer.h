//===- BpeTokenizer.h - tokenizer.json byte-level BPE -----------*- C++ -*-===//
//
// The tokenizer of agent=torch: a Hugging Face `tokenizer.json` holding a
// byte-level BPE (GPT-2, Qwen, DeepSeek-Coder, StarCoder style). Text is cut
// at added tokens (`<|im_start|>`, `<|endoftext|>`, ...), split into words by
// a regex-free version of GPT-2's pre-tokenizer, each word's bytes are mapped
// through GPT-2's bytes-to-unicode table and merged by the ranked merges.
// Decoding is exact for every id; encoding is exact for models trained with
// GPT-2's split and valid (decodes to the same text) for the others. The
// header is free of nlohmann-json and libtorch; nothing here throws.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TORCH_BPETOKENIZER_H
#define CUDA_AGENT_TORCH_BPETOKENIZER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

class BpeTokenizer {
public:
  /// Reads a tokenizer.json file; see parse().
  static llvm::Expected<BpeTokenizer> loadFile(llvm::StringRef path);

  /// Reads tokenizer.json text. Expects `model.type` "BPE" with `model.vocab`
  /// (token -> id) and `model.merges` (either "a b" strings or ["a", "b"]
  /// pairs, highest priority first), and a ByteLevel pre-tokenizer or
  /// decoder; `added_tokens` (id, content, special) are optional. Anything
  /// else is an error that says what is missing.
  static llvm::Expected<BpeTokenizer> parse(llvm::StringRef json);

  /// The ids of `text`. Added tokens are matched literally first (longest
  /// first); the rest goes through the pre-tokenizer and BPE. Fails only
  /// when a byte has no token and the model has no `unk_token`.
  llvm::Expected<std::vector<int64_t>> encode(llvm::StringRef text) const;

  /// The text of `ids`: bytes are restored exactly (the result may end in a
  /// partial UTF-8 sequence); ids the tokenizer does not know are dropped,
  /// special added tokens too when `skipSpecial` is set.
  std::string decode(llvm::ArrayRef<int64_t> ids,
                     bool skipSpecial = false) const;

  /// The id of a token as the vocabulary or the added tokens spell it
  /// (`"<|im_end|>"`, `"Ġthe"`).
  std::optional<int64_t> tokenId(llvm::StringRef token) const;

  /// One more than the largest id.
  int64_t size() const;

  /// The words GPT-2's pattern
  /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
  /// ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+` cuts `text` into, without a regex engine:
  /// letters are ASCII letters and every non-ASCII character, numbers ASCII
  /// digits, spaces ASCII whitespace. Exposed for tests.
  static std::vector<std::string> preTokenize(llvm::StringRef text);

  struct Impl;

private:
  explicit BpeTokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TORCH_BPETOKENIZER_H
