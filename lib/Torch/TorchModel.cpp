//===- TorchModel.cpp - A TorchScript causal LM and its sampler -----------===//
//
// libtorch behind TorchModel.h: torch::jit::load, one forward() per token
// under inference mode, the logits' last row copied to the host as float
// and sampled there with a seeded std::mt19937_64 (so the draw does not
// depend on the device). This target is built with exceptions; each entry
// point catches them and returns llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Torch/TorchModel.h"

#include "llvm/Support/FileSystem.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::cuda_agent;

/// A uniform double in [0, 1) from 53 random bits, the same on every
/// standard library (std::uniform_real_distribution is not).
static double uniform(std::mt19937_64 &rng) {
  return double(rng() >> 11) * (1.0 / 9007199254740992.0);
}

int64_t cuda_agent::sampleToken(llvm::ArrayRef<float> logits,
                                double temperature, double topP,
                                std::mt19937_64 &rng) {
  if (logits.empty())
    return 0;
  auto value = [&](size_t i) {
    float v = logits[i];
    return std::isnan(v) ? -std::numeric_limits<double>::infinity() : double(v);
  };
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (value(i) > value(best))
      best = i;
  double maxLogit = value(best);
  if (temperature <= 0 || !std::isfinite(maxLogit))
    return int64_t(best);

  std::vector<double> probs(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    probs[i] = std::exp((value(i) - maxLogit) / temperature);
  std::vector<size_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return probs[a] > probs[b]; });
  double total = std::accumulate(probs.begin(), probs.end(), 0.0);
  // The nucleus: the fewest most-probable tokens reaching topP of the mass.
  double limit = std::clamp(topP, 0.0, 1.0) * total, kept = 0;
  size_t count = 0;
  while (count < order.size() && (count == 0 || kept < limit))
    kept += probs[order[count++]];
  double draw = uniform(rng) * kept;
  for (size_t i = 0; i < count; ++i) {
    draw -= probs[order[i]];
    if (draw < 0)
      return int64_t(order[i]);
  }
  return int64_t(order[count - 1]);
}

struct TorchModel::Impl {
  torch::jit::Module module;
  torch::Device device{torch::kCPU};
};

TorchModel::TorchModel(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
TorchModel::~TorchModel() = default;

bool TorchModel::cudaAvailable() {
  try {
    return torch::cuda::is_available();
  } catch (const std::exception &) {
    return false;
  }
}

llvm::Expected<std::unique_ptr<TorchModel>>
TorchModel::load(llvm::StringRef path, llvm::StringRef device) {
  llvm::StringRef kind = device.split(':').first;
  if (kind != "cpu" && kind != "cuda")
    return llvm::createStringError("device=%s: expected cpu, cuda or cuda:N",
                                   device.str().c_str());
  if (kind == "cuda" && !cudaAvailable())
    return llvm::createStringError(
        "device=%s: this libtorch has no CUDA support or sees no GPU "
        "(Debian's libtorch-dev is CPU only); use device=cpu or a libtorch "
        "built with CUDA",
        device.str().c_str());
  if (!llvm::sys::fs::exists(path))
    return llvm::createStringError("the TorchScript model %s does not exist",
                                   path.str().c_str());
  auto impl = std::make_unique<Impl>();
  try {
    impl->device = torch::Device(device.str());
    impl->module = torch::jit::load(path.str(), impl->device);
    impl->module.eval();
    if (!impl->module.find_method("forward"))
      return llvm::createStringError(
          "the TorchScript model %s has no forward() method",
          path.str().c_str());
  } catch (const c10::Error &e) {
    return llvm::createStringError("cannot load the TorchScript model %s: %s",
                                   path.str().c_str(),
                                   e.what_without_backtrace());
  } catch (const std::exception &e) {
    return llvm::createStringError("cannot load the TorchScript model %s: %s",
                                   path.str().c_str(), e.what());
  }
  return std::unique_ptr<TorchModel>(new TorchModel(std::move(impl)));
}

/// The logits tensor of forward()'s result, or an undefined tensor.
static torch::Tensor logitsOf(const c10::IValue &out) {
  if (out.isTensor())
    return out.toTensor();
  if (out.isTuple()) {
    const auto &elements = out.toTupleRef().elements();
    return elements.empty() ? torch::Tensor() : logitsOf(elements[0]);
  }
  if (out.isList()) {
    c10::List<c10::IValue> list = out.toList();
    return list.empty() ? torch::Tensor() : logitsOf(list.get(0));
  }
  if (out.isGenericDict()) {
    c10::Dict<c10::IValue, c10::IValue> dict = out.toGenericDict();
    for (const auto &entry : dict)
      if (entry.key().isString() && entry.key().toStringRef() == "logits")
        return logitsOf(entry.value());
  }
  return torch::Tensor();
}

llvm::Expected<std::vector<int64_t>>
TorchModel::generate(llvm::ArrayRef<int64_t> prompt,
                     const SamplingOptions &options) {
  if (prompt.empty())
    return llvm::createStringError("the prompt has no tokens");
  std::mt19937_64 rng(options.seed);
  std::vector<int64_t> sequence(prompt.begin(), prompt.end());
  std::vector<int64_t> generated;
  try {
    c10::InferenceMode inference;
    for (unsigned step = 0; step < options.maxTokens; ++step) {
      torch::Tensor input =
          torch::from_blob(sequence.data(), {1, int64_t(sequence.size())},
                           torch::kLong)
              .to(impl->device);
      torch::Tensor logits = logitsOf(impl->module.forward({input}));
      if (!logits.defined())
        return llvm::createStringError(
            "the model's forward() returned no logits tensor (expected "
            "[1,T,V] or [1,V], or a tuple or dict holding one)");
      if (logits.dim() == 3 && logits.size(0) == 1 && logits.size(1) >= 1)
        logits = logits[0][logits.size(1) - 1];
      else if (logits.dim() == 2 && logits.size(0) == 1)
        logits = logits[0];
      else
        return llvm::createStringError(
            "the model's logits have shape %s; expected [1,T,V] or [1,V]",
            c10::str(logits.sizes()).c_str());
      if (!logits.is_floating_point() || logits.size(0) == 0)
        return llvm::createStringError(
            "the model's logits are not a non-empty float tensor");
      logits = logits.to(torch::kCPU, torch::kFloat).contiguous();
      int64_t token = sampleToken(
          llvm::ArrayRef<float>(logits.data_ptr<float>(), logits.size(0)),
          options.temperature, options.topP, rng);
      if (llvm::is_contained(options.stopIds, token))
        break;
      sequence.push_back(token);
      generated.push_back(token);
    }
  } catch (const c10::Error &e) {
    return llvm::createStringError("the model's forward() failed: %s",
                                   e.what_without_backtrace());
  } catch (const std::exception &e) {
    return llvm::createStringError("the model's forward() failed: %s",
                                   e.what());
  }
  return generated;
}
