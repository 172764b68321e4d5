//===- TorchBackendTest.cpp - Loading agent=torch's module ----------------===//
//
// What createAgent("torch") says when the module it is told to load
// ($CUDA_AGENT_TORCH_BACKEND) is missing, not a shared object, not a torch
// backend, or from another build: a reason naming the path and what the
// loader said, never a crash. Built whether or not libtorch was found.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/TorchBackend.h"
#include "cuda-agent/Agents/KernelAgent.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

/// Sets $CUDA_AGENT_TORCH_BACKEND for one test.
class TorchBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("torch-backend-test", dir));
  }
  void TearDown() override {
    unsetenv(kTorchBackendEnv.data());
    llvm::sys::fs::remove_directories(dir);
  }

  /// createAgent("torch") with the module at `module`: its error message.
  std::string reason(const std::string &module) {
    EXPECT_EQ(setenv(kTorchBackendEnv.data(), module.c_str(), 1), 0);
    AgentConfig config;
    config.torch.modelPath = "model.pt";
    config.torch.tokenizerPath = "tokenizer.json";
    llvm::Expected<std::unique_ptr<KernelAgent>> created =
        createAgent("torch", config);
    EXPECT_FALSE(bool(created));
    return created ? "" : llvm::toString(created.takeError());
  }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }

  llvm::SmallString<128> dir;
};

TEST_F(TorchBackendTest, AMissingModuleIsNamed) {
  std::string module = path("missing.so");
  std::string message = reason(module);
  EXPECT_NE(message.find("agent=torch: cannot load the torch backend " +
                         module + ": "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos)
      << message;
  EXPECT_NE(message.find("(from $CUDA_AGENT_TORCH_BACKEND)"), std::string::npos)
      << message;
}

TEST_F(TorchBackendTest, AFileThatIsNotASharedObjectIsRefused) {
  std::string module = path("text.so");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(module, ec);
    ASSERT_FALSE(ec);
    os << "not an ELF file, but long enough to have a header to read.\n";
  }
  std::string message = reason(module);
  EXPECT_NE(message.find("cannot load the torch backend " + module + ": "),
            std::string::npos)
      << message;
}

TEST_F(TorchBackendTest, AModuleOfAnotherBuildIsRefusedUncalled) {
  // The fixture's factory aborts: reaching it fails the test.
  std::string message = reason(STALE_TORCH_BACKEND_MODULE);
  EXPECT_NE(message.find("is stale: built for 'abi 0, LLVM 0.0.0, sizes "
                         "0/0/0/0', this build expects '" +
                         getTorchBackendAbi() + "'"),
            std::string::npos)
      << message;
}

TEST_F(TorchBackendTest, MissingOptionsComeBeforeTheModule) {
  ASSERT_EQ(setenv(kTorchBackendEnv.data(), path("missing.so").c_str(), 1), 0);
  AgentConfig config;
  llvm::Expected<std::unique_ptr<KernelAgent>> created =
      createAgent("torch", config);
  ASSERT_FALSE(bool(created));
  EXPECT_EQ(llvm::toString(created.takeError()),
            "agent=torch needs a TorchScript model: torch-model=PATH");
}

} // namespace
