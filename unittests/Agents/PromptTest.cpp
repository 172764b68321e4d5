//===- PromptTest.cpp - Prompt rendering and reply parsing ----------------===//

#include "cuda-agent/Agents/Prompt.h"

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
