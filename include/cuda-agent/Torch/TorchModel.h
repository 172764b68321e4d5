//===- TorchModel.h - A TorchScript causal LM and its sampler ---*- C++ -*-===//
//
// The model half of agent=torch: a causal language model exported as
// TorchScript, loaded through libtorch onto the CPU or a CUDA device, and a
// sampling loop over it (temperature, top-p, a token limit, a seed, stop
// tokens). The contract of the model:
//
//   forward(input_ids: Tensor[1, T] int64) -> logits
//
// where logits is a float Tensor [1, T, V] (the last position is used) or
// [1, V], or a tuple/list whose first element is one, or a dict with
// "logits". Each step runs the whole sequence again (no KV cache), which
// suits small models and keeps the contract to one method.
//
// The header is free of libtorch; nothing here throws: c10::Error and every
// other exception become llvm::Error.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TORCH_TORCHMODEL_H
#define CUDA_AGENT_TORCH_TORCHMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

struct SamplingOptions {
  /// 0 (or less): greedy, the first token of highest logit.
  double temperature = 0.2;
  /// Nucleus sampling: draw from the most probable tokens whose probability
  /// together reaches `topP` (at least one token); 1 keeps them all.
  double topP = 0.95;
  /// Tokens generated at most (the stop token not counted).
  unsigned maxTokens = 4096;
  uint64_t seed = 0;
  /// Generation ends before any of these.
  std::vector<int64_t> stopIds;
};

/// One draw from `logits` under `temperature` and `topP` using `rng`: the
/// sampling rule of TorchModel::generate(), exposed for tests. NaN logits
/// count as -inf; all of them -inf gives index 0.
int64_t sampleToken(llvm::ArrayRef<float> logits, double temperature,
                    double topP, std::mt19937_64 &rng);

class TorchModel {
public:
  ~TorchModel();

  /// Loads the TorchScript file at `path` onto `device` (`cpu`, `cuda`,
  /// `cuda:N`). Fails with a readable reason when the file is missing or is
  /// not TorchScript, when the device string is not one of those, or when
  /// CUDA is asked of a libtorch without it (Debian's is CPU only) or of a
  /// machine without a GPU.
  static llvm::Expected<std::unique_ptr<TorchModel>>
  load(llvm::StringRef path, llvm::StringRef device);

  /// The tokens that follow `prompt`, sampled one at a time with a
  /// std::mt19937_64 seeded with `options.seed` (the same seed, prompt and
  /// model give the same tokens), up to `options.maxTokens` or a stop token
  /// (which is not returned). Fails when forward() fails or returns
  /// something outside the contract.
  llvm::Expected<std::vector<int64_t>> generate(llvm::ArrayRef<int64_t> prompt,
                                                const SamplingOptions &options);

  /// Whether this libtorch can use CUDA and sees a device.
  static bool cudaAvailable();

private:
  struct Impl;
  explicit TorchModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_TORCH_TORCHMODEL_H
