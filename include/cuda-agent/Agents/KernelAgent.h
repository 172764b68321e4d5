//===- KernelAgent.h - The interface every agent backend implements -*- C++ -*-===//
//
// An agent proposes candidate kernels for a KernelTask: CUDA source plus a
// launch plan (docs/design.md, Contracts). Backends (builtin, openai, torch,
// replay, db) know only the task and the history of earlier attempts; the
// driver compiles, verifies and times what they propose.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_KERNELAGENT_H
#define CUDA_AGENT_AGENTS_KERNELAGENT_H

#include "cuda-agent/KernelDb/KernelDb.h"
#include "cuda-agent/Task/KernelTask.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// One message of a language-model agent's conversation.
struct ChatMessage {
  std::string role; ///< system, user or assistant
  std::string content;
};

/// One proposed kernel.
struct Candidate {
  std::string name;       // Unique within one propose() call.
  std::string source;     // CUDA C++ with extern "C" __global__ entry points.
  std::string launchPlan; // JSON text: {"launches": [...], "workspace_bytes": N}
  std::string agent;      // Backend name, e.g. "replay".
  std::string model;      // Model or generator that wrote it.
  /// The model's whole reply (language-model agents), kept for the next
  /// turn's conversation.
  std::string reply;
  /// Set when the reply could not be read as a kernel (no code block, no
  /// launch plan): the candidate is then only feedback for the next turn.
  std::string replyError;
  /// The prompt version the reply answers (language-model agents).
  std::string promptVersion;
  /// The messages the agent sent to get `reply` (the prompt with its
  /// few-shot examples, earlier replies and their feedback), as sent; empty
  /// for agents that do not converse.
  std::vector<ChatMessage> conversation;
};

/// What became of an earlier candidate, fed back on the next turn.
struct Attempt {
  Candidate candidate;
  std::string outcome; // "compile-error", "mismatch", "slower", "accepted", ...
  std::string detail;  // Trimmed compile log, mismatch summary or timing.
};

class KernelAgent {
public:
  virtual ~KernelAgent();

  /// The backend's name as `agent=` spells it.
  virtual llvm::StringRef getName() const = 0;

  /// Proposes up to `count` candidates for `task`, knowing `history`. An
  /// empty result means the agent has nothing (more) to offer; an error is
  /// reported for the region and never stops the compiler.
  virtual llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) = 0;
};

/// The replay backend: candidates from files, `DIR/<region hash>/<name>.cu`
/// with the launch plan `DIR/<region hash>/<name>.json` beside it, in name
/// order, for tests and external agent workflows. A `.cu` without its plan
/// is an error naming the file. Later turns get the candidates not yet
/// attempted.
std::unique_ptr<KernelAgent> createReplayAgent(llvm::StringRef dir);

/// The builtin backend (the embedded default): kernels written from the
/// region's structure (indexing maps, iterator types, body ops), several
/// variants per region; part 1 covers memory-bound regions (elementwise and
/// broadcast chains, transposes, reductions and row-wise fused chains).
/// Deterministic; later turns get the variants not yet attempted.
std::unique_ptr<KernelAgent> createBuiltinAgent();

/// The db backend: the best kernel the database holds for the task's exact
/// key (region hash, arch, `cudaVersion`, contract version), proposed again
/// for verification; nothing on later turns or when the key has none. `db`
/// must outlive the agent.
std::unique_ptr<KernelAgent> createDbAgent(KernelDb &db,
                                           llvm::StringRef cudaVersion);

/// Where a prompting agent (openai, torch) takes its few-shot examples from
/// (findFewShotExamples, Prompt.h).
struct FewShotConfig {
  /// The prompt's budget for the examples, in tokens estimated as
  /// characters / 4 (0: none).
  unsigned tokens = 3000;
  /// The database of verified kernels; null: none. Must outlive the agent.
  KernelDb *db = nullptr;
};

/// agent=openai: an OpenAI-compatible chat-completions server.
struct OpenAIConfig {
  /// Base URL, e.g. "http://127.0.0.1:8000/v1" (POST {endpoint}/chat/completions).
  std::string endpoint;
  std::string model;
  /// The environment variable holding the API key (sent as a bearer token,
  /// never written anywhere); empty: no key.
  std::string apiKeyEnv;
  double temperature = 0.2;
  unsigned maxTokens = 4096;
  /// Seconds per request before it is abandoned.
  unsigned timeoutSeconds = 120;
  /// Extra attempts after a 429, a 5xx or a connection error, with
  /// exponential backoff from `backoffMs`.
  unsigned retries = 3;
  unsigned backoffMs = 500;
  /// The most requests of one turn in flight at once (1: one after the
  /// other); candidates keep request order either way.
  unsigned concurrency = 4;
  FewShotConfig fewShot;
};

/// The openai backend: each candidate is one chat completion of the
/// conversation renderPrompt() builds; the reply is read by parseReply().
/// A turn's requests run concurrently (OpenAIConfig::concurrency); one that
/// fails costs its candidate, and the turn fails only when all of them do
/// (with the first one's error).
std::unique_ptr<KernelAgent> createOpenAIAgent(const OpenAIConfig &config);

/// agent=torch: a causal language model exported as TorchScript, run in
/// this process through libtorch (docs/llm-agents.md, agent=torch).
struct TorchConfig {
  /// The TorchScript file: `forward(Tensor input_ids[1,T] int64)` returning
  /// logits `[1,T,V]` or `[1,V]`.
  std::string modelPath;
  /// The model's tokenizer.json (a byte-level BPE, GPT-2/Qwen style).
  std::string tokenizerPath;
  /// `cpu`, `cuda` or `cuda:N`.
  std::string device = "cpu";
  /// 0: greedy (one candidate per turn, the others would be copies).
  double temperature = 0.2;
  /// Nucleus sampling: the smallest set of tokens whose probability reaches
  /// `topP`; 1 keeps every token.
  double topP = 0.95;
  unsigned maxTokens = 4096;
  /// Candidate i of a turn samples with `seed + i + <earlier attempts>`: a
  /// fixed seed gives the same replies.
  uint64_t seed = 0;
  FewShotConfig fewShot;
};

/// The torch backend: each candidate is one sampled completion of the
/// conversation renderPrompt() builds, written out with renderChatML() and
/// read by parseReply(). The model and tokenizer are loaded on the first
/// propose(); a load failure is that call's error (and every later one's).
/// Defined only in CudaAgentTorchAgent (builds with libtorch), which the tools
/// do not link: they reach it through createAgent(), which loads the module
/// holding it (TorchBackend.h).
std::unique_ptr<KernelAgent> createTorchAgent(const TorchConfig &config);

/// What the `agent=` backends may need.
struct AgentConfig {
  /// agent=replay: the directory of `<hash>/<name>.cu` files.
  std::string replayDir;
  /// agent=db: the open kernel database (may be null for other agents).
  KernelDb *db = nullptr;
  /// The key's CUDA version, see getCudaVersion().
  std::string cudaVersion;
  /// agent=openai.
  OpenAIConfig openai;
  /// agent=torch.
  TorchConfig torch;
};

/// One row of the backend table (AgentRegistry.cpp): the name `agent=`
/// spells and the factory that binds the backend's options (its part of
/// AgentConfig, and the shared database) and creates it. A factory fails
/// with a message fit for a per-region reason when an option it needs is
/// missing.
struct AgentBackend {
  llvm::StringRef name;
  llvm::Expected<std::unique_ptr<KernelAgent>> (*create)(
      const AgentConfig &config);
};

/// The backend table, in the order `--help` lists the names.
llvm::ArrayRef<AgentBackend> getAgentBackends();

/// The names `agent=` accepts, in the table's order.
llvm::ArrayRef<llvm::StringRef> getAgentNames();

/// Creates the backend called `name` through its row of the table. Fails
/// with a message fit for a per-region reason when the name is unknown, the
/// backend is not part of this build, or its configuration is missing
/// (agent=replay without a directory, agent=db without a database,
/// agent=torch without a model or a tokenizer). agent=torch loads its module
/// on the first call ($CUDA_AGENT_TORCH_BACKEND, else
/// lib/CudaAgentTorchBackend.so beside the tool); a module that is missing,
/// cannot be loaded or is stale is such a message, naming the path and what
/// the loader said.
llvm::Expected<std::unique_ptr<KernelAgent>>
createAgent(llvm::StringRef name, const AgentConfig &config);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_AGENTS_KERNELAGENT_H
