//===- TorchLmFixture.cpp - Writes agent=torch fixtures for lit -----------===//
//
// torch-lm-fixture DIR REPLY: writes DIR/tokenizer.json (the small byte-level
// BPE of TorchTestModels.h), DIR/canned.pt (greedy decoding answers every
// prompt with the text of the file REPLY), DIR/garbage.pt (repeats "x") and
// DIR/corrupt.pt (not TorchScript), so that lit tests can run agent=torch
// through cuda-agent-opt without downloading a model.
//
//===----------------------------------------------------------------------===//

#include "TorchTestModels.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::cuda_agent;

static int fail(llvm::Error error) {
  llvm::errs() << "torch-lm-fixture: " << llvm::toString(std::move(error))
               << "\n";
  return 1;
}

static llvm::Error writeText(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write %s: %s", path.c_str(),
                                   ec.message().c_str());
  os << text;
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: torch-lm-fixture DIR REPLY\n";
    return 2;
  }
  std::string dir = argv[1];
  auto at = [&](llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail(llvm::createStringError("cannot create %s: %s", dir.c_str(),
                                        ec.message().c_str()));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> reply =
      llvm::MemoryBuffer::getFile(argv[2]);
  if (!reply)
    return fail(llvm::createStringError("cannot read %s", argv[2]));
  std::string json = torch_test::smallTokenizerJson();
  if (llvm::Error error = writeText(at("tokenizer.json"), json))
    return fail(std::move(error));
  llvm::Expected<BpeTokenizer> tokenizer = BpeTokenizer::parse(json);
  if (!tokenizer)
    return fail(tokenizer.takeError());
  if (llvm::Error error = torch_test::writeCannedModel(
          at("canned.pt"), *tokenizer, (*reply)->getBuffer()))
    return fail(std::move(error));
  if (llvm::Error error = torch_test::writeRepeatModel(at("garbage.pt"),
                                                       tokenizer->size(), 'x'))
    return fail(std::move(error));
  if (llvm::Error error = writeText(at("corrupt.pt"), "not TorchScript"))
    return fail(std::move(error));
  return 0;
}
