//===- TorchAgentTest.cpp - agent=torch: tokenizer, sampler, agent --------===//
//
// The byte-level BPE tokenizer against hand-checked encodings, the sampling
// rule, TorchScript loading and generation with tiny models the tests define
// and save themselves, and the agent end to end (prompt -> ChatML -> tokens
// -> model -> text -> parsed candidate). Nothing is downloaded.
//
//===----------------------------------------------------------------------===//

#include "TorchTestModels.h"

#include "cuda-agent/Agents/ChatTemplate.h"
#include "cuda-agent/Agents/KernelAgent.h"
#include "cuda-agent/Torch/BpeTokenizer.h"
#include "cuda-agent/Torch/TorchModel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::cuda_agent;
using Ids = std::vector<int64_t>;

namespace {

constexpr const char *kReply =
    "Here is the kernel.\n"
    "```cuda\n"
    "extern \"C\" __global__ void k0(const float *in0, float *out0) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < 32) out0[i] = in0[i] > 0.f ? in0[i] : 0.f;\n"
    "}\n"
    "```\n"
    "```json\n"
    "{\"launches\": [{\"kernel\": \"k0\", \"grid\": [1, 1, 1], "
    "\"block\": [32, 1, 1], \"shared_bytes\": 0}], \"workspace_bytes\": 0}\n"
    "```\n";

/// A scratch directory removed afterwards.
class TorchAgentTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("torch-agent-test", dir));
    tokenizerPath = path("tokenizer.json");
    write(tokenizerPath, torch_test::smallTokenizerJson());
    llvm::Expected<BpeTokenizer> loaded = BpeTokenizer::loadFile(tokenizerPath);
    ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    tokenizer.emplace(std::move(*loaded));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
  static void write(const std::string &file, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  Ids encode(llvm::StringRef text) {
    llvm::Expected<Ids> ids = tokenizer->encode(text);
    EXPECT_TRUE(bool(ids)) << llvm::toString(ids.takeError());
    return ids ? *ids : Ids{};
  }
  std::unique_ptr<TorchModel> load(const std::string &model) {
    llvm::Expected<std::unique_ptr<TorchModel>> loaded =
        TorchModel::load(model, "cpu");
    EXPECT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    return loaded ? std::move(*loaded) : nullptr;
  }
  static KernelTask task() {
    KernelTask t;
    t.regionHash = std::string(64, 'a');
    t.kind = "elementwise";
    t.arch = "sm_90";
    t.bytes = 256;
    t.regionMlir = "func.func @region() { return }\n";
    t.operands.push_back({"in0", {32}, "f32", false});
    t.operands.push_back({"out0", {32}, "f32", true});
    return t;
  }
  std::unique_ptr<KernelAgent> agent(const std::string &model,
                                     double temperature, uint64_t seed = 0,
                                     unsigned maxTokens = 4096) {
    TorchConfig config;
    config.modelPath = model;
    config.tokenizerPath = tokenizerPath;
    config.temperature = temperature;
    config.seed = seed;
    config.maxTokens = maxTokens;
    // TorchAgent itself, linked in; createAgent() would load the module
    // (TheModuleServesCreateAgent).
    return createTorchAgent(config);
  }

  llvm::SmallString<128> dir;
  std::string tokenizerPath;
  std::optional<BpeTokenizer> tokenizer;
};

//===--- Tokenizer --------------------------------------------------------===//

TEST(BpeTokenizerTest, PreTokenizesLikeGpt2) {
  using Words = std::vector<std::string>;
  EXPECT_EQ(BpeTokenizer::preTokenize("Hello world  123 !!x\n\n  y"),
            (Words{"Hello", " world", " ", " 123", " !!", "x", "\n\n ", " y"}));
  EXPECT_EQ(BpeTokenizer::preTokenize("it's we'll don't"),
            (Words{"it", "'s", " we", "'ll", " don", "'t"}));
  // Punctuation never swallows whitespace; a lone newline before a tab and
  // a word stands alone (checked against Python's regex module).
  EXPECT_EQ(BpeTokenizer::preTokenize("a[i]=b;\n\tc  "),
            (Words{"a", "[", "i", "]=", "b", ";", "\n", "\t", "c", "  "}));
  // Non-ASCII characters count as letters: "é" joins its word.
  EXPECT_EQ(BpeTokenizer::preTokenize("caf\xc3\xa9 x"),
            (Words{"caf\xc3\xa9", " x"}));
}

TEST_F(TorchAgentTest, EncodesWithRankedMerges) {
  // t h e: only (h,e) has a rank -> t, he.
  EXPECT_EQ(encode("the"), (Ids{'t', 257}));
  // Ġ t h e: (Ġ,t) 0, then (h,e) 1, then (Ġt,he) 2 -> Ġthe.
  EXPECT_EQ(encode(" the"), (Ids{258}));
  EXPECT_EQ(encode("in the"), (Ids{259, 258}));
  // Two spaces before a word: the first stands alone, the second joins.
  EXPECT_EQ(encode("x  in"), (Ids{'x', ' ', 260}));
  // Three spaces at the end are one word: ĠĠ then Ġ.
  EXPECT_EQ(encode("x   "), (Ids{'x', 261, ' '}));
  // Added tokens are cut out first; a newline is its byte.
  EXPECT_EQ(encode("<|im_start|>user\nhi<|im_end|>"),
            (Ids{262, 'u', 's', 'e', 'r', '\n', 'h', 'i', 263}));
  // Bytes outside ASCII go through bytes-to-unicode: é is C3 A9.
  EXPECT_EQ(encode("\xc3\xa9"), (Ids{0xC3, 0xA9}));
  EXPECT_EQ(tokenizer->tokenId("<|endoftext|>"), std::optional<int64_t>(264));
  EXPECT_EQ(tokenizer->tokenId("\xc4\xa0the"), std::optional<int64_t>(258));
  EXPECT_EQ(tokenizer->size(), 265);
}

TEST_F(TorchAgentTest, PairMergesEncodeTheSame) {
  llvm::Expected<BpeTokenizer> pairs =
      BpeTokenizer::parse(torch_test::smallTokenizerJson(/*pairMerges=*/true));
  ASSERT_TRUE(bool(pairs)) << llvm::toString(pairs.takeError());
  llvm::Expected<Ids> ids = pairs->encode("in the  the");
  ASSERT_TRUE(bool(ids));
  EXPECT_EQ(*ids, encode("in the  the"));
  EXPECT_EQ(*ids, (Ids{259, 258, ' ', 258}));
}

TEST_F(TorchAgentTest, DecodingRoundTrips) {
  std::string text = renderChatML(
      {{"system", "You write CUDA."},
       {"user",
        "out0[i] = max(in0[i], 0.f);\n\tdon't  fail \xc3\xa9\xe2\x96\x81"
        "\x01\x7f\xff"}});
  Ids ids = encode(text);
  EXPECT_EQ(tokenizer->decode(ids), text);
  // Special tokens can be dropped; unknown ids are.
  EXPECT_EQ(tokenizer->decode({262, 'h', 'i', 263, 9999}, true), "hi");
  EXPECT_EQ(tokenizer->decode({262, 'h', 'i', 263}),
            "<|im_start|>hi<|im_end|>");
}

TEST(BpeTokenizerTest, RejectsWhatItCannotRead) {
  auto message = [](llvm::StringRef json) {
    llvm::Expected<BpeTokenizer> t = BpeTokenizer::parse(json);
    return t ? std::string() : llvm::toString(t.takeError());
  };
  EXPECT_NE(message("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(message("{}").find("no \"model\""), std::string::npos);
  EXPECT_NE(message(R"({"model": {"type": "BPE", "vocab": {"a": "zero"},
                       "merges": []}, "decoder": {"type": "ByteLevel"}})")
                .find("the tokenizer is malformed"),
            std::string::npos);
  EXPECT_NE(message(R"({"model": {"type": "Unigram"}})").find("Unigram"),
            std::string::npos);
  EXPECT_NE(message(R"({"model": {"type": "BPE", "vocab": {}, "merges": []},
                       "decoder": {"type": "Metaspace"}})")
                .find("not byte-level"),
            std::string::npos);
  EXPECT_NE(message(R"({"model": {"type": "BPE", "vocab": {"a": 0}},
                       "decoder": {"type": "ByteLevel"}})")
                .find("no model.merges"),
            std::string::npos);
  llvm::Expected<BpeTokenizer> missing =
      BpeTokenizer::loadFile("/nonexistent/tokenizer.json");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot read"),
            std::string::npos);
  // A vocabulary without the byte 'z' and no unk_token cannot encode it.
  llvm::Expected<BpeTokenizer> small = BpeTokenizer::parse(
      R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
          "pre_tokenizer": {"type": "Sequence", "pretokenizers":
            [{"type": "ByteLevel"}]}})");
  ASSERT_TRUE(bool(small)) << llvm::toString(small.takeError());
  llvm::Expected<Ids> ids = small->encode("az");
  ASSERT_FALSE(bool(ids));
  EXPECT_NE(llvm::toString(ids.takeError()).find("no token for 'z'"),
            std::string::npos);
}

TEST(ChatTemplateTest, WritesChatML) {
  EXPECT_EQ(renderChatML({{"system", "S"}, {"user", "U\n"}}),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU\n<|im_end|>\n"
            "<|im_start|>assistant\n");
}

//===--- Sampling ---------------------------------------------------------===//

TEST(SampleTokenTest, GreedyTemperatureAndTopP) {
  std::mt19937_64 rng(1);
  std::vector<float> logits = {0, 3, 3, 1};
  // Greedy: the first highest.
  EXPECT_EQ(sampleToken(logits, 0, 1, rng), 1);
  // Token 0 holds ~0.92 of the mass at temperature 1.
  std::vector<float> peaked(10, 0.f);
  peaked[0] = 4; // p = e^4 / (e^4 + 9) = 0.86
  int others = 0, othersTopP = 0;
  for (int i = 0; i < 500; ++i) {
    others += sampleToken(peaked, 1.0, 1.0, rng) != 0;
    othersTopP += sampleToken(peaked, 1.0, 0.8, rng) != 0;
  }
  EXPECT_GT(others, 30);    // top-p 1 keeps the tail (~70 expected)
  EXPECT_EQ(othersTopP, 0); // top-p 0.8 is token 0 alone
  // A high temperature flattens: the tail is drawn far more often (~430).
  int hot = 0;
  for (int i = 0; i < 500; ++i)
    hot += sampleToken(peaked, 10.0, 1.0, rng) != 0;
  EXPECT_GT(hot, 3 * others);
  // NaN is never drawn.
  std::vector<float> nan = {std::nanf(""), 0.f};
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(sampleToken(nan, 1.0, 1.0, rng), 1);
}

//===--- Model ------------------------------------------------------------===//

TEST_F(TorchAgentTest, GreedyDecodingFollowsTheCannedModel) {
  for (bool full : {false, true}) {
    std::string model = path(full ? "canned-full.pt" : "canned.pt");
    ASSERT_FALSE(
        bool(torch_test::writeCannedModel(model, *tokenizer, "in the", full)));
    std::unique_ptr<TorchModel> lm = load(model);
    ASSERT_TRUE(lm);
    SamplingOptions options;
    options.temperature = 0;
    llvm::Expected<Ids> out =
        lm->generate(encode("<|im_start|>assistant\n"), options);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    // Without stop tokens the model's <|im_end|> is returned and then the
    // table's last row repeats it.
    options.maxTokens = 4;
    out = lm->generate(encode("<|im_start|>assistant\n"), options);
    ASSERT_TRUE(bool(out));
    EXPECT_EQ(*out, (Ids{259, 258, 263, 263}));
    options.stopIds = {263};
    out = lm->generate(encode("<|im_start|>assistant\n"), options);
    ASSERT_TRUE(bool(out));
    EXPECT_EQ(*out, (Ids{259, 258}));
  }
}

TEST_F(TorchAgentTest, SamplingIsDeterministicForASeed) {
  std::string model = path("uniform.pt");
  ASSERT_FALSE(bool(torch_test::writeUniformModel(model, tokenizer->size())));
  std::unique_ptr<TorchModel> lm = load(model);
  ASSERT_TRUE(lm);
  auto run = [&](uint64_t seed) {
    SamplingOptions options{1.0, 1.0, 24, seed, {}};
    llvm::Expected<Ids> out = lm->generate({'a'}, options);
    EXPECT_TRUE(bool(out)) << llvm::toString(out.takeError());
    return out ? *out : Ids{};
  };
  Ids first = run(7);
  EXPECT_EQ(first.size(), 24u);
  EXPECT_EQ(run(7), first);
  EXPECT_NE(run(8), first);
}

TEST_F(TorchAgentTest, LoadFailuresAreErrors) {
  auto message = [](const std::string &model, llvm::StringRef device) {
    llvm::Expected<std::unique_ptr<TorchModel>> lm =
        TorchModel::load(model, device);
    return lm ? std::string() : llvm::toString(lm.takeError());
  };
  EXPECT_NE(message(path("missing.pt"), "cpu").find("does not exist"),
            std::string::npos);
  write(path("corrupt.pt"), "this is not a TorchScript archive");
  EXPECT_NE(message(path("corrupt.pt"), "cpu")
                .find("cannot load the TorchScript model"),
            std::string::npos);
  std::string model = path("uniform.pt");
  ASSERT_FALSE(bool(torch_test::writeUniformModel(model, tokenizer->size())));
  EXPECT_NE(message(model, "tpu").find("expected cpu, cuda or cuda:N"),
            std::string::npos);
  if (TorchModel::cudaAvailable())
    EXPECT_EQ(message(model, "cuda"), "");
  else
    EXPECT_NE(message(model, "cuda").find("no CUDA support or sees no GPU"),
              std::string::npos);
}

TEST_F(TorchAgentTest, OutputsOutsideTheContractAreErrors) {
  std::string model = path("bad.pt");
  ASSERT_FALSE(bool(torch_test::writeBadShapeModel(model, tokenizer->size())));
  std::unique_ptr<TorchModel> lm = load(model);
  ASSERT_TRUE(lm);
  llvm::Expected<Ids> out = lm->generate({'a'}, SamplingOptions());
  ASSERT_FALSE(bool(out));
  EXPECT_NE(llvm::toString(out.takeError()).find("expected [1,T,V] or [1,V]"),
            std::string::npos);
}

//===--- Agent ------------------------------------------------------------===//

TEST_F(TorchAgentTest, GreedyAgentYieldsTheParsedCandidate) {
  std::string model = path("canned.pt");
  ASSERT_FALSE(bool(torch_test::writeCannedModel(model, *tokenizer, kReply)));
  std::unique_ptr<KernelAgent> torch = agent(model, /*temperature=*/0);
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->getName(), "torch");
  llvm::Expected<std::vector<Candidate>> candidates =
      torch->propose(task(), {}, 4);
  ASSERT_TRUE(bool(candidates)) << llvm::toString(candidates.takeError());
  // Greedy: one candidate, the others would be copies.
  ASSERT_EQ(candidates->size(), 1u);
  Candidate c = candidates->front();
  EXPECT_EQ(c.name, "reply-1");
  EXPECT_EQ(c.agent, "torch");
  EXPECT_EQ(c.model, "canned");
  EXPECT_EQ(c.reply, kReply);
  EXPECT_EQ(c.replyError, "");
  EXPECT_EQ(c.source,
            "extern \"C\" __global__ void k0(const float *in0, float *out0) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < 32) out0[i] = in0[i] > 0.f ? in0[i] : 0.f;\n"
            "}\n");
  EXPECT_EQ(c.launchPlan,
            "{\"launches\": [{\"kernel\": \"k0\", \"grid\": [1, 1, 1], "
            "\"block\": [32, 1, 1], \"shared_bytes\": 0}], "
            "\"workspace_bytes\": 0}");
  // The next turn sees the conversation so far and names its reply after it.
  Attempt attempt{c, "slower", "1.2x slower"};
  candidates = torch->propose(task(), attempt, 1);
  ASSERT_TRUE(bool(candidates));
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ(candidates->front().name, "reply-2");
  EXPECT_EQ(candidates->front().source, c.source);
}

TEST_F(TorchAgentTest, SampledAgentRepliesDependOnlyOnTheSeed) {
  std::string model = path("uniform.pt");
  ASSERT_FALSE(bool(torch_test::writeUniformModel(model, tokenizer->size())));
  auto replies = [&](uint64_t seed) {
    std::unique_ptr<KernelAgent> torch = agent(model, 0.8, seed, 16);
    std::vector<std::string> out;
    if (!torch)
      return out;
    llvm::Expected<std::vector<Candidate>> candidates =
        torch->propose(task(), {}, 3);
    EXPECT_TRUE(bool(candidates)) << llvm::toString(candidates.takeError());
    if (candidates)
      for (const Candidate &c : *candidates) {
        EXPECT_NE(c.replyError, "");
        out.push_back(c.reply);
      }
    return out;
  };
  std::vector<std::string> first = replies(11);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(replies(11), first);
  // The three samples of one turn differ, and so does another seed.
  EXPECT_NE(first[0], first[1]);
  EXPECT_NE(replies(12), first);
}

TEST_F(TorchAgentTest, GarbageRepliesAreFeedbackNotErrors) {
  std::string model = path("repeat.pt");
  ASSERT_FALSE(
      bool(torch_test::writeRepeatModel(model, tokenizer->size(), 'x')));
  std::unique_ptr<KernelAgent> torch = agent(model, 0, 0, /*maxTokens=*/20);
  ASSERT_TRUE(torch);
  llvm::Expected<std::vector<Candidate>> candidates =
      torch->propose(task(), {}, 2);
  ASSERT_TRUE(bool(candidates)) << llvm::toString(candidates.takeError());
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ(candidates->front().reply, std::string(20, 'x'));
  EXPECT_EQ(candidates->front().replyError,
            "the reply has no ```cuda code block");
  EXPECT_EQ(candidates->front().source, "");
}

TEST_F(TorchAgentTest, MissingOrCorruptModelsAreCleanErrors) {
  // No model or tokenizer: the agent is not created.
  AgentConfig config;
  llvm::Expected<std::unique_ptr<KernelAgent>> created =
      createAgent("torch", config);
  ASSERT_FALSE(bool(created));
  EXPECT_NE(llvm::toString(created.takeError()).find("torch-model=PATH"),
            std::string::npos);
  config.torch.modelPath = path("model.pt");
  created = createAgent("torch", config);
  ASSERT_FALSE(bool(created));
  EXPECT_NE(llvm::toString(created.takeError()).find("tokenizer=PATH"),
            std::string::npos);

  // A corrupt model: every propose() says so, without loading again.
  write(path("corrupt.pt"), "PK\x03\x04 truncated");
  std::unique_ptr<KernelAgent> torch = agent(path("corrupt.pt"), 0);
  ASSERT_TRUE(torch);
  for (int i = 0; i < 2; ++i) {
    llvm::Expected<std::vector<Candidate>> candidates =
        torch->propose(task(), {}, 1);
    ASSERT_FALSE(bool(candidates));
    std::string message = llvm::toString(candidates.takeError());
    EXPECT_NE(message.find("agent=torch: cannot load the TorchScript model"),
              std::string::npos)
        << message;
  }
  // A missing one.
  torch = agent(path("missing.pt"), 0);
  ASSERT_TRUE(torch);
  llvm::Expected<std::vector<Candidate>> candidates =
      torch->propose(task(), {}, 1);
  ASSERT_FALSE(bool(candidates));
  EXPECT_NE(llvm::toString(candidates.takeError()).find("does not exist"),
            std::string::npos);
}

TEST_F(TorchAgentTest, TheModuleServesCreateAgent) {
  // createAgent() loads CudaAgentTorchBackend.so (this build's, named by the
  // environment so that no other is picked up) and the agent it makes
  // answers like the one linked in.
  ASSERT_EQ(setenv("CUDA_AGENT_TORCH_BACKEND", CUDA_AGENT_TORCH_BACKEND_MODULE,
                   /*overwrite=*/1),
            0);
  std::string model = path("canned.pt");
  ASSERT_FALSE(bool(torch_test::writeCannedModel(model, *tokenizer, kReply)));
  AgentConfig config;
  config.torch.modelPath = model;
  config.torch.tokenizerPath = tokenizerPath;
  config.torch.temperature = 0;
  llvm::Expected<std::unique_ptr<KernelAgent>> created =
      createAgent("torch", config);
  ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
  std::unique_ptr<KernelAgent> torch = std::move(*created);
  EXPECT_EQ(torch->getName(), "torch");
  llvm::Expected<std::vector<Candidate>> candidates =
      torch->propose(task(), {}, 2);
  ASSERT_TRUE(bool(candidates)) << llvm::toString(candidates.takeError());
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ(candidates->front().reply, kReply);
  EXPECT_EQ(candidates->front().model, "canned");
  EXPECT_NE(candidates->front().source.find("__global__ void k0"),
            std::string::npos);
  // Errors made in the module read like any other.
  config.torch.modelPath = path("missing.pt");
  created = createAgent("torch", config);
  ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
  candidates = (*created)->propose(task(), {}, 1);
  ASSERT_FALSE(bool(candidates));
  EXPECT_NE(llvm::toString(candidates.takeError()).find("does not exist"),
            std::string::npos);
  unsetenv("CUDA_AGENT_TORCH_BACKEND");
}

} // namespace
