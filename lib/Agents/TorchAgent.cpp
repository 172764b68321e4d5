//===- TorchAgent.cpp - A TorchScript language model run in-process -------===//
//
// agent=torch: the conversation renderPrompt() builds, written out as ChatML,
// tokenized by the model's tokenizer.json, continued by the TorchScript model
// (CudaAgentTorch, which holds everything that touches libtorch or throws),
// decoded, and read by parseReply() exactly as agent=openai reads a server's
// reply. Built only when CMake found libtorch.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/ChatTemplate.h"
#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Torch/BpeTokenizer.h"
#include "cuda-agent/Torch/TorchModel.h"

#include "llvm/Support/Path.h"

#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The end-of-turn and end-of-text tokens of the common chat models; those
/// the tokenizer knows stop generation.
constexpr llvm::StringLiteral kStopTokens[] = {
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|end|>",
    "<\xef\xbd\x9c"
    "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>",
    "<|EOT|>"};

class TorchAgent final : public KernelAgent {
public:
  explicit TorchAgent(const TorchConfig &config) : config(config) {}

  llvm::StringRef getName() const override { return "torch"; }

  llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) override {
    // One model, one generation at a time.
    std::lock_guard<std::mutex> lock(mutex);
    if (llvm::Error error = ensureLoaded())
      return std::move(error);
    std::vector<ChatMessage> conversation = renderPrompt(
        task, history,
        findFewShotExamples(config.fewShot.db, task, config.fewShot.tokens));
    std::string prompt = renderChatML(conversation);
    llvm::Expected<std::vector<int64_t>> ids = tokenizer->encode(prompt);
    if (!ids)
      return ids.takeError();
    // Greedy decoding gives the same reply every time: ask once.
    if (config.temperature <= 0)
      count = std::min(count, 1u);
    std::string modelName = llvm::sys::path::stem(config.modelPath).str();
    std::vector<Candidate> candidates;
    for (unsigned i = 0; i < count; ++i) {
      unsigned index = history.size() + i;
      SamplingOptions options{config.temperature, config.topP, config.maxTokens,
                              config.seed + index, stopIds};
      llvm::Expected<std::vector<int64_t>> tokens =
          model->generate(*ids, options);
      if (!tokens) {
        if (candidates.empty())
          return tokens.takeError();
        llvm::consumeError(tokens.takeError());
        break;
      }
      std::string reply = tokenizer->decode(*tokens, /*skipSpecial=*/true);
      ParsedReply parsed = parseReply(reply);
      candidates.push_back({"reply-" + std::to_string(index + 1), parsed.source,
                            parsed.launchPlan, "torch", modelName, reply,
                            parsed.error, kPromptVersion.str(),
                            conversation});
    }
    return candidates;
  }

private:
  /// Loads the tokenizer and the model once; a failure is kept and
  /// returned to every later call rather than loading again per region.
  llvm::Error ensureLoaded() {
    if (!loadError.empty())
      return llvm::createStringError("agent=torch: %s", loadError.c_str());
    if (model)
      return llvm::Error::success();
    llvm::Expected<BpeTokenizer> loadedTokenizer =
        BpeTokenizer::loadFile(config.tokenizerPath);
    if (!loadedTokenizer) {
      loadError = llvm::toString(loadedTokenizer.takeError());
      return ensureLoaded();
    }
    llvm::Expected<std::unique_ptr<TorchModel>> loadedModel =
        TorchModel::load(config.modelPath, config.device);
    if (!loadedModel) {
      loadError = llvm::toString(loadedModel.takeError());
      return ensureLoaded();
    }
    tokenizer = std::move(*loadedTokenizer);
    model = std::move(*loadedModel);
    for (llvm::StringRef stop : kStopTokens)
      if (std::optional<int64_t> id = tokenizer->tokenId(stop))
        stopIds.push_back(*id);
    return llvm::Error::success();
  }

  TorchConfig config;
  std::mutex mutex;
  std::optional<BpeTokenizer> tokenizer;
  std::unique_ptr<TorchModel> model;
  std::vector<int64_t> stopIds;
  std::string loadError;
};

} // namespace

std::unique_ptr<KernelAgent>
cuda_agent::createTorchAgent(const TorchConfig &config) {
  return std::make_unique<TorchAgent>(config);
}
