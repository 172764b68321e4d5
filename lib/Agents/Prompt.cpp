//===- Prompt.cpp - Tasks as chat prompts, replies as candidates ----------===//

#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Target/GpuTarget.h"
#include "cuda-agent/Task/CReference.h"
#include "cuda-agent/Task/TorchReference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
const char kSystem[] =
    R"(You write CUDA C++ kernels for regions of an MLIR program. Each kernel you write is compiled with NVRTC (-std=c++17, the target arch below), checked on several fresh random inputs against the program's own lowering of the region, timed against it, and used only if it computes the same values and is faster.

The contract:
- Entry points are `extern "C" __global__` functions. Each takes one typed pointer per operand, in the order given (inputs, then outputs), then optionally a `void *workspace`. Shapes are compile-time constants: no other parameters.
- Only the CUDA toolkit's own headers may be included (for example <cuda_fp16.h>, <cuda_bf16.h>, <cuda/std/cstdint>); no host code, no libraries.
- Every output element must be written. Inputs must not be written.
- Buffers are dense, row-major, 256-byte aligned.

Answer with one ```cuda code block holding the whole source, and one ```json block holding the launch plan:
{"launches": [{"kernel": "<entry point>", "grid": [x, y, z], "block": [x, y, z], "shared_bytes": 0}], "workspace_bytes": 0}
Launches run in order on one stream.)";

std::string describeTask(const KernelTask &task) {
  // The target's measured copy bandwidth: the roofline floor.
  const double copyBandwidth = getGpuTarget(task.arch.c_str()).copyBandwidth;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "Target: " << task.arch << ". Region " << task.regionHash.substr(0, 12)
     << " (" << task.kind << "): " << task.flops << " flops, " << task.bytes
     << " bytes read and written; at "
     << llvm::formatv("{0:F2}", copyBandwidth / 1e12)
     << " TB/s the memory floor is "
     << llvm::formatv("{0:F3}", task.bytes / copyBandwidth * 1e6) << " us.\n\n";
  os << "Operands (kernel parameters, in order):\n";
  for (const OperandSpec &operand : task.operands) {
    os << "- " << operand.name << ": "
       << (operand.isOutput ? "output" : "input") << ", " << operand.dtype
       << "[";
    llvm::interleave(operand.shape, os, "x");
    os << "]\n";
  }
  os << "\nThe region (MLIR, linalg on tensors; results are the "
        "outputs):\n```mlir\n"
     << task.regionMlir << "```\n";
  if (llvm::Expected<std::string> torch = renderTorchReference(task.regionMlir))
    os << "\nThe same computation as a PyTorch module (KernelBench form: "
          "forward's arguments are the inputs and its results the outputs, "
          "in operand order):\n```python\n"
       << *torch << "```\n";
  else
    llvm::consumeError(torch.takeError());
  if (llvm::Expected<std::string> loops = renderCReference(task.regionMlir))
    os << "\nThe same computation as plain loops (row-major arrays; f16/bf16 "
          "values are computed in float):\n```c\n"
       << *loops << "```\n";
  else
    llvm::consumeError(loops.takeError());
  return text;
}

/// The closing ``` of a fence that opens at `open` (just after its info
/// string's line), or npos.
size_t findClose(llvm::StringRef text, size_t from) {
  size_t at = from;
  while ((at = text.find("```", at)) != llvm::StringRef::npos) {
    if (at == 0 || text[at - 1] == '\n')
      return at;
    at += 3;
  }
  return llvm::StringRef::npos;
}

/// The deepest nesting of {} and [] in `text` (strings not excluded: an
/// over-estimate). llvm::json::parse recurses once per level, so a plan
/// nested a hundred thousand deep would overflow the stack.
unsigned getNesting(llvm::StringRef text) {
  unsigned depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '{' || c == '[')
      deepest = std::max(deepest, ++depth);
    else if ((c == '}' || c == ']') && depth)
      --depth;
  }
  return deepest;
}

/// Deeper plans are refused before anything parses them.
constexpr unsigned kMaxPlanNesting = 64;

/// The first balanced {...} in `reply` (by opening position) that mentions
/// "launches" and parses as JSON, or "". Linear in the reply but for the
/// parses: braces are matched in one pass, the mention is looked up among
/// the mentions' positions, and at most kMaxBarePlanParses candidates are
/// parsed (a reply of nested or unclosed braces must not take quadratic
/// time: a model's reply can be hundreds of kilobytes).
std::string findBarePlan(llvm::StringRef reply) {
  constexpr unsigned kMaxBarePlanParses = 64;
  constexpr llvm::StringLiteral kMention = "\"launches\"";
  // For each '{': its matching '}' and the nesting of {} and [] inside it
  // (as getNesting() counts it), both found in the same pass.
  std::vector<size_t> closeOf(reply.size(), llvm::StringRef::npos);
  std::vector<unsigned> nestingOf(reply.size(), 0);
  struct Open {
    size_t at;
    unsigned depth, deepest;
  };
  std::vector<Open> opens;
  std::vector<size_t> mentions;
  unsigned depth = 0;
  for (size_t i = 0; i < reply.size(); ++i) {
    char c = reply[i];
    if (c == '{' || c == '[') {
      ++depth;
      if (c == '{')
        opens.push_back({i, depth, depth});
      else if (!opens.empty())
        opens.back().deepest = std::max(opens.back().deepest, depth);
    } else if (c == '}' || c == ']') {
      depth -= depth ? 1 : 0;
      if (c == '}' && !opens.empty()) {
        Open open = opens.back();
        opens.pop_back();
        closeOf[open.at] = i;
        nestingOf[open.at] = open.deepest - open.depth + 1;
        if (!opens.empty())
          opens.back().deepest = std::max(opens.back().deepest, open.deepest);
      }
    } else if (c == '"' && reply.substr(i).starts_with(kMention)) {
      mentions.push_back(i);
    }
  }
  unsigned parses = 0;
  for (size_t open = 0; open < reply.size() && parses < kMaxBarePlanParses;
       ++open) {
    size_t close = closeOf[open];
    if (close == llvm::StringRef::npos)
      continue;
    // A mention that starts after `open` and ends before `close`.
    auto mention = llvm::lower_bound(mentions, open);
    if (mention == mentions.end() || *mention + kMention.size() > close)
      continue;
    llvm::StringRef candidate = reply.slice(open, close + 1);
    if (nestingOf[open] > kMaxPlanNesting)
      continue;
    ++parses;
    if (llvm::Expected<llvm::json::Value> json = llvm::json::parse(candidate))
      return candidate.str();
    else
      llvm::consumeError(json.takeError());
  }
  return "";
}
} // namespace

std::string cuda_agent::renderFewShotExample(const KernelRecord &example) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "Region " << example.key.regionHash.substr(0, 12) << " ("
     << example.kind << "): " << example.flops << " flops, " << example.bytes
     << " bytes.\n```mlir\n"
     << example.regionMlir;
  if (!llvm::StringRef(example.regionMlir).ends_with("\n"))
    os << "\n";
  os << "```\nIts kernel, verified on "
     << (example.verifiedOn.empty() ? "a GPU" : example.verifiedOn) << " ("
     << example.key.arch << "): "
     << llvm::formatv("{0:F1} us, {1:F2}x the speed of the default lowering",
                      example.candUs, example.speedup)
     << ".\n```cuda\n"
     << example.source;
  if (!llvm::StringRef(example.source).ends_with("\n"))
    os << "\n";
  os << "```\n```json\n" << example.launchPlanJson << "\n```\n";
  return text;
}

std::vector<KernelRecord>
cuda_agent::selectFewShotExamples(const KernelTask &task,
                                  std::vector<KernelRecord> candidates,
                                  unsigned tokenBudget) {
  auto distance = [&](const KernelRecord &r) {
    auto term = [](int64_t a, int64_t b) {
      return std::fabs(std::log((double(a) + 1) / (double(b) + 1)));
    };
    return term(r.bytes, task.bytes) + term(r.flops, task.flops);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const KernelRecord &a, const KernelRecord &b) {
                     return distance(a) < distance(b);
                   });
  std::vector<KernelRecord> chosen;
  size_t chars = size_t(tokenBudget) * 4;
  for (KernelRecord &candidate : candidates) {
    size_t size = renderFewShotExample(candidate).size();
    if (size > chars)
      continue;
    chars -= size;
    chosen.push_back(std::move(candidate));
  }
  return chosen;
}

std::vector<KernelRecord>
cuda_agent::findFewShotExamples(KernelDb *db, const KernelTask &task,
                                unsigned tokenBudget) {
  if (!db || task.kind.empty() || tokenBudget == 0)
    return {};
  llvm::Expected<std::vector<KernelRecord>> candidates =
      db->bestKernelsOfKind({task.kind, task.arch, task.regionHash, 32});
  if (!candidates) {
    llvm::consumeError(candidates.takeError());
    return {};
  }
  return selectFewShotExamples(task, std::move(*candidates), tokenBudget);
}

std::vector<ChatMessage>
cuda_agent::renderPrompt(const KernelTask &task,
                         llvm::ArrayRef<Attempt> history,
                         llvm::ArrayRef<KernelRecord> examples) {
  std::vector<ChatMessage> messages;
  messages.push_back({"system", kSystem});
  std::string user = describeTask(task);
  if (!examples.empty()) {
    user += "\nFor reference, kernels verified earlier for other regions of "
            "the same kind, the nearest in size first (write one for the "
            "region above, not for these):\n";
    for (auto [i, example] : llvm::enumerate(examples))
      user += "\nExample " + std::to_string(i + 1) + ". " +
              renderFewShotExample(example);
  }
  messages.push_back({"user", std::move(user)});
  for (const Attempt &attempt : history)
    llvm::append_range(messages, renderAttempt(attempt));
  return messages;
}

std::vector<ChatMessage> cuda_agent::renderAttempt(const Attempt &attempt) {
  std::string reply = attempt.candidate.reply;
  if (reply.empty())
    reply = "```cuda\n" + attempt.candidate.source + "```\n```json\n" +
            attempt.candidate.launchPlan + "\n```\n";
  return {{"assistant", reply},
          {"user", "That candidate was not used (" + attempt.outcome + "):\n" +
                       attempt.detail +
                       "\n\nWrite a corrected kernel, with its launch plan."}};
}

ParsedReply cuda_agent::parseReply(llvm::StringRef reply) {
  ParsedReply parsed;
  std::string source, plan;
  size_t at = 0;
  while ((at = reply.find("```", at)) != llvm::StringRef::npos) {
    size_t lineEnd = reply.find('\n', at);
    if (lineEnd == llvm::StringRef::npos)
      break;
    std::string info = reply.slice(at + 3, lineEnd).trim().lower();
    size_t close = findClose(reply, lineEnd + 1);
    if (close == llvm::StringRef::npos)
      break; // an unterminated fence: the reply was cut off
    llvm::StringRef body = reply.slice(lineEnd + 1, close);
    bool isCuda = info == "cuda" || info == "cpp" || info == "c++" ||
                  info == "cu" || info == "c" ||
                  (info.empty() && body.contains("__global__"));
    if (isCuda)
      source = body.str(); // the last one wins: models revise
    else if (info == "json" && plan.empty())
      plan = body.trim().str();
    at = close + 3;
  }
  if (plan.empty())
    plan = findBarePlan(reply);
  if (source.empty())
    parsed.error = "the reply has no ```cuda code block";
  else if (getNesting(plan) > kMaxPlanNesting)
    parsed.error = "the launch plan nests deeper than " +
                   std::to_string(kMaxPlanNesting) + " levels";
  else if (plan.empty())
    parsed.error = "the reply has no launch plan (a ```json block with "
                   "\"launches\")";
  else {
    parsed.source = std::move(source);
    parsed.launchPlan = std::move(plan);
  }
  return parsed;
}
