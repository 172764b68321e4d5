//===- PromptTest.cpp - Prompt rendering and reply parsing ----------------===//

#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Task/TorchReference.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

TEST(ParseReplyTest, ReadsFencedCodeAndPlanAmidProse) {
  ParsedReply r =
      parseReply("Sure.\n```cuda\nextern \"C\" __global__ void k() {}\n"
                 "```\nThe plan:\n```json\n{\"launches\": []}\n```\nDone.");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.source, "extern \"C\" __global__ void k() {}\n");
  EXPECT_EQ(r.launchPlan, "{\"launches\": []}");
}

TEST(ParseReplyTest, LastCudaBlockWinsAndUnlabelledBlocksCount) {
  ParsedReply r =
      parseReply("```cpp\n// first try\n```\n```\n__global__ void "
                 "k2() {}\n```\n{\"launches\": [{\"kernel\": \"k2\"}]}");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.source, "__global__ void k2() {}\n");
  // A bare JSON object with "launches" in the prose is the plan.
  EXPECT_EQ(r.launchPlan, "{\"launches\": [{\"kernel\": \"k2\"}]}");
}

TEST(ParseReplyTest, MissingPiecesBecomeFeedback) {
  EXPECT_EQ(parseReply("I cannot do that.").error,
            "the reply has no ```cuda code block");
  EXPECT_EQ(parseReply("```cuda\n__global__ void k() {}\n```").error,
            "the reply has no launch plan (a ```json block with \"launches\")");
  // A reply cut off inside its code block has no code block.
  EXPECT_EQ(parseReply("```cuda\n__global__ void k() {").error,
            "the reply has no ```cuda code block");
  // JSON without "launches" is not a plan.
  EXPECT_NE(parseReply("```cuda\nx\n```\n{\"grid\": [1]}").error, "");
}

// The search for a bare plan scanned to the end of the reply once per '{':
// under reply-fuzzer 64 KB of '{' took 24 s, a 256 KB reply of nested
// '{"launches": ' 34 s, then overflowed the stack in llvm::json::parse. It
// is one pass now; the first balanced object that mentions "launches" and
// parses still wins, nested or not.
TEST(ParseReplyTest, BarePlanSearchIsNotQuadratic) {
  std::string code = "```cuda\n__global__ void k() {}\n```\n";
  std::string reply = code + std::string(1 << 20, '{');
  EXPECT_NE(parseReply(reply).error, "");
  reply = code;
  for (int i = 0; i < 100000; ++i)
    reply += "{\"launches\": ";
  reply += std::string(100000, '}');
  EXPECT_NE(parseReply(reply).error, "");
  // Nested that deep, llvm::json::parse would overflow the stack: a plan
  // (fenced or bare) deeper than 64 levels is refused before it is parsed.
  EXPECT_EQ(parseReply(code + "```json\n{\"launches\": " +
                       std::string(100000, '[') + "\n```\n")
                .error,
            "the launch plan nests deeper than 64 levels");
  ParsedReply r = parseReply(code + "{see {here} and {\"launches\": [], "
                                    "\"n\": {\"a\": 1}}} {\"launches\": 2}");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.launchPlan, "{\"launches\": [], \"n\": {\"a\": 1}}");
}

TEST(RenderPromptTest, CarriesTheTaskAndTheFeedback) {
  KernelTask task;
  task.regionHash = std::string(64, 'c');
  task.kind = "elementwise";
  task.arch = "sm_90";
  task.bytes = 4230000;
  task.regionMlir = "func.func @region() { return }\n";
  task.operands.push_back({"in0", {4, 8}, "f16", false});
  task.operands.push_back({"out0", {4, 8}, "f32", true});
  Attempt attempt{{"reply-1", "__global__ void k() {}", "{}", "openai", "m",
                   "my reply", ""},
                  "compile-error",
                  "candidate.cu(3): error: expected a \";\""};
  std::vector<ChatMessage> messages = renderPrompt(task, attempt);
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_NE(messages[0].content.find("extern \"C\" __global__"),
            std::string::npos);
  EXPECT_NE(messages[1].content.find("- in0: input, f16[4x8]"),
            std::string::npos);
  EXPECT_NE(messages[1].content.find("the memory floor is 1.000 us"),
            std::string::npos);
  EXPECT_NE(messages[1].content.find("func.func @region()"), std::string::npos);
  EXPECT_EQ(messages[2].role, "assistant");
  EXPECT_EQ(messages[2].content, "my reply");
  EXPECT_NE(messages[3].content.find("(compile-error)"), std::string::npos);
  EXPECT_NE(messages[3].content.find("expected a \";\""), std::string::npos);
}

} // namespace

namespace {

std::string torchOf(const char *mlir) {
  llvm::Expected<std::string> text = renderTorchReference(mlir);
  if (!text)
    return "error: " + llvm::toString(text.takeError());
  return *text;
}

TEST(TorchReferenceTest, ReductionsFoldTheirInitWithTheCombiner) {
  // A max from a fill of 2.0 over the leading dim, written to a permuted
  // output: amax over dim 0 of the loop space, then torch.maximum with 2.0.
  std::string text = torchOf(R"(
func.func @region(%x: tensor<4x5x6xf16>) -> tensor<6x5xf16> {
  %c = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<6x5xf16>
  %f = linalg.fill ins(%c : f16) outs(%e : tensor<6x5xf16>) -> tensor<6x5xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%x : tensor<4x5x6xf16>) outs(%f : tensor<6x5xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %o : f16
    linalg.yield %m : f16
  } -> tensor<6x5xf16>
  return %r : tensor<6x5xf16>
})");
  EXPECT_NE(text.find("        out0 = torch.maximum(in0.amax(dim=0).permute(1, "
                      "0), torch.tensor(2.0, dtype=torch.float16))\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    in0 = torch.randn(4, 5, 6, dtype=torch.float16)\n"),
            std::string::npos)
      << text;
}

TEST(TorchReferenceTest, BroadcastsAReductionBodyThatSkipsALoop) {
  // The body does not depend on the reduced loop: it must still be summed
  // over its full length, so it is broadcast first.
  std::string text = torchOf(R"(
func.func @region(%x: tensor<3xf32>, %y: tensor<7xf32>) -> (tensor<3xf32>, tensor<3x7xf32>) {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %y : tensor<3xf32>, tensor<7xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %g = tensor.empty() : tensor<3x7xf32>
  %k = arith.constant 1.5 : f32
  %t = linalg.fill ins(%k : f32) outs(%g : tensor<3x7xf32>) -> tensor<3x7xf32>
  return %r, %t : tensor<3xf32>, tensor<3x7xf32>
})");
  EXPECT_NE(
      text.find("out0 = torch.broadcast_to(in0[:, None], (3, 7)).sum(dim=1)\n"),
      std::string::npos)
      << text;
  // A fill that is returned is a tensor of its own.
  EXPECT_NE(text.find("out1 = torch.full((3, 7), 1.5, dtype=torch.float32)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("return out0, out1\n"), std::string::npos) << text;
}

TEST(TorchReferenceTest, SaysWhatItCannotSpell) {
  EXPECT_EQ(torchOf(R"(
func.func @region(%x: tensor<8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
})"),
            "error: an indexing map that is not a projected permutation "
            "((d0) -> (d0 * 2))");
  EXPECT_TRUE(llvm::StringRef(torchOf("not mlir"))
                  .starts_with("error: cannot parse the region"));
}

} // namespace
