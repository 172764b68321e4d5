//===- TorchTestModels.cpp - Tiny tokenizers and models for agent=torch ---===//
//
// The TorchScript modules are written in TorchScript source, defined on an
// empty torch::jit::Module with their tables as buffers and attributes, and
// saved; libtorch exceptions become llvm::Error here.
//
//===----------------------------------------------------------------------===//

#include "TorchTestModels.h"

#include <torch/script.h>

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::cuda_agent;

std::string torch_test::smallTokenizerJson(bool pairMerges) {
  // GPT-2's bytes-to-unicode, spelt out again independently of the tokenizer.
  nlohmann::json vocab = nlohmann::json::object();
  unsigned shifted = 0;
  for (unsigned b = 0; b < 256; ++b) {
    bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) ||
                     (b >= 174 && b <= 255);
    unsigned cp = printable ? b : 256 + shifted++;
    std::string s;
    if (cp < 0x80) {
      s += char(cp);
    } else {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    }
    vocab[s] = b;
  }
  const char *merges[][2] = {{"\xc4\xa0", "t"},   {"h", "e"},
                             {"\xc4\xa0t", "he"}, {"i", "n"},
                             {"\xc4\xa0", "in"},  {"\xc4\xa0", "\xc4\xa0"}};
  nlohmann::json mergeList = nlohmann::json::array();
  int64_t next = 256;
  for (auto &merge : merges) {
    vocab[std::string(merge[0]) + merge[1]] = next++;
    if (pairMerges)
      mergeList.push_back({merge[0], merge[1]});
    else
      mergeList.push_back(std::string(merge[0]) + " " + merge[1]);
  }
  nlohmann::json added = nlohmann::json::array();
  for (const char *special : {"<|im_start|>", "<|im_end|>", "<|endoftext|>"})
    added.push_back({{"id", next++}, {"content", special}, {"special", true}});
  nlohmann::json root = {
      {"version", "1.0"},
      {"added_tokens", added},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", mergeList}}}};
  return root.dump(2);
}

static llvm::Error save(torch::jit::Module &module, llvm::StringRef path,
                        const std::string &source) {
  try {
    module.define(source);
    module.save(path.str());
  } catch (const std::exception &e) {
    return llvm::createStringError("cannot write the test model %s: %s",
                                   path.str().c_str(), e.what());
  }
  return llvm::Error::success();
}

llvm::Error torch_test::writeCannedModel(llvm::StringRef path,
                                         const BpeTokenizer &tokenizer,
                                         llvm::StringRef reply,
                                         bool fullLogits) {
  llvm::Expected<std::vector<int64_t>> ids = tokenizer.encode(reply);
  if (!ids)
    return ids.takeError();
  llvm::Expected<std::vector<int64_t>> header =
      tokenizer.encode("<|im_start|>assistant\n");
  if (!header)
    return header.takeError();
  std::optional<int64_t> start = tokenizer.tokenId("<|im_start|>");
  std::optional<int64_t> end = tokenizer.tokenId("<|im_end|>");
  if (!start || !end)
    return llvm::createStringError("the tokenizer has no ChatML tokens");
  ids->push_back(*end);
  torch::Tensor table = torch::zeros({int64_t(ids->size()), tokenizer.size()});
  for (size_t i = 0; i < ids->size(); ++i)
    table[i][(*ids)[i]] = 10.0;
  torch::jit::Module module("CannedLM");
  module.register_buffer("table", table);
  module.register_attribute("start_id", c10::IntType::get(), *start);
  module.register_attribute("header", c10::IntType::get(),
                            int64_t(header->size()));
  std::string ret = fullLogits ? "row.unsqueeze(0).unsqueeze(0).expand(1, "
                                 "ids.size(0), row.size(0))"
                               : "row.unsqueeze(0)";
  return save(module, path, R"(
def forward(self, input_ids: Tensor) -> Tensor:
    ids = input_ids[0]
    starts = torch.nonzero(ids == self.start_id).flatten()
    n = ids.size(0) - int(starts[-1]) - self.header
    last = self.table.size(0) - 1
    if n > last:
        n = last
    row = self.table[n]
    return )" + ret + "\n");
}

llvm::Error torch_test::writeUniformModel(llvm::StringRef path,
                                          int64_t vocabSize) {
  torch::jit::Module module("UniformLM");
  module.register_attribute("vocab", c10::IntType::get(), vocabSize);
  return save(module, path, R"(
def forward(self, input_ids: Tensor) -> Tensor:
    return torch.zeros([1, input_ids.size(1), self.vocab])
)");
}

llvm::Error torch_test::writeRepeatModel(llvm::StringRef path,
                                         int64_t vocabSize, int64_t token) {
  torch::Tensor row = torch::zeros({1, vocabSize});
  row[0][token] = 10.0;
  torch::jit::Module module("RepeatLM");
  module.register_buffer("row", row);
  return save(module, path, R"(
def forward(self, input_ids: Tensor) -> Tensor:
    return self.row
)");
}

llvm::Error torch_test::writeBadShapeModel(llvm::StringRef path,
                                           int64_t vocabSize) {
  torch::jit::Module module("BadShapeLM");
  module.register_attribute("vocab", c10::IntType::get(), vocabSize);
  return save(module, path, R"(
def forward(self, input_ids: Tensor) -> Tensor:
    return torch.zeros([self.vocab])
)");
}
