//===- ChatTemplate.cpp - A conversation as one text for a local LM -------===//
//
// ChatML, the template renderChatML() documents.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/ChatTemplate.h"

using namespace mlir;
using namespace mlir::cuda_agent;

std::string cuda_agent::renderChatML(llvm::ArrayRef<ChatMessage> messages) {
  std::string text;
  for (const ChatMessage &message : messages)
    text +=
        "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  text += "<|im_start|>assistant\n";
  return text;
}
