//===- ChatTemplate.h - A conversation as one text for a local LM -*- C++
//-*-===//
//
// agent=openai sends the conversation as messages and the server applies the
// model's chat template; agent=torch runs the model itself, so it writes the
// conversation out as text. The template is ChatML (Qwen, DeepSeek-Coder-V2
// instruct and most current code models understand it).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_CHATTEMPLATE_H
#define CUDA_AGENT_AGENTS_CHATTEMPLATE_H

#include "cuda-agent/Agents/Prompt.h"

#include <string>

namespace mlir::cuda_agent {

/// The conversation in ChatML, opened for the assistant's reply:
///   <|im_start|>{role}\n{content}<|im_end|>\n   for each message, then
///   <|im_start|>assistant\n
std::string renderChatML(llvm::ArrayRef<ChatMessage> messages);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_AGENTS_CHATTEMPLATE_H
