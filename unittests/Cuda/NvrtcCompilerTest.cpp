//===- NvrtcCompilerTest.cpp - Unit tests for the candidate compile ---------===//
//
// Runs NVRTC for real (no GPU needed): the happy path gives an sm_90 cubin and
// PTX, each hostile fixture of test/Inputs/hostile is rejected with its
// reason, logs are trimmed, launch plans are validated case by case and
// compileCandidates keeps the order of its inputs.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/LaunchPlanCheck.h"
#include "cuda-agent/Cuda/NvrtcCompiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

using namespace mlir::cuda_agent;
using llvm::StringRef;

namespace {

/// Number of buffers of the add+relu region: a, b, out.
constexpr unsigned kNumBuffers = 3;

std::string readInput(StringRef name) {
  std::string path = std::string(CUDA_AGENT_TEST_INPUTS) + "/hostile/" +
                     name.str();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

llvm::json::Value readPlan(StringRef name) {
  llvm::Expected<llvm::json::Value> plan = llvm::json::parse(readInput(name));
  if (!plan) {
    ADD_FAILURE() << name.str() << ": " << llvm::toString(plan.takeError());
    return nullptr;
  }
  return std::move(*plan);
}

llvm::json::Value parseJson(StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    ADD_FAILURE() << text.str() << ": " << llvm::toString(value.takeError());
    return nullptr;
  }
  return std::move(*value);
}

/// The message of a failed compile; a test failure if it compiled.
std::string compileError(StringRef source, const CompileOptions &options = {}) {
  llvm::Expected<CompiledKernel> kernel = compileCandidate(source, options);
  if (kernel) {
    ADD_FAILURE() << "compiled, but should not have:\n" << source.str();
    return "";
  }
  return llvm::toString(kernel.takeError());
}

/// A compiled kernel; a test failure if it did not compile.
std::optional<CompiledKernel> compileOk(StringRef source,
                                        const CompileOptions &options = {}) {
  llvm::Expected<CompiledKernel> kernel = compileCandidate(source, options);
  if (!kernel) {
    ADD_FAILURE() << llvm::toString(kernel.takeError());
    return std::nullopt;
  }
  return std::move(*kernel);
}

std::string messageOf(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : std::string();
}

#define EXPECT_CONTAINS(text, substring)                                      \
  EXPECT_NE(std::string(text).find(substring), std::string::npos)             \
      << "in: '" << (text) << "'"

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

TEST(NvrtcCompilerTest, HappyPathGivesCubinAndPtx) {
  std::optional<CompiledKernel> kernel =
      compileOk(readInput("ok-add-relu.cu"));
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(StringRef(kernel->cubin).starts_with("\x7f" "ELF"));
  EXPECT_GT(kernel->cubin.size(), 64u);
  EXPECT_CONTAINS(kernel->ptx, ".entry add_relu(");
  EXPECT_CONTAINS(kernel->ptx, ".target sm_90");
  EXPECT_EQ(kernel->entryPoints, std::vector<std::string>{"add_relu"});
  EXPECT_EQ(kernel->arch, "sm_90");
  EXPECT_EQ(messageOf(validateLaunchPlan(readPlan("ok-add-relu.json"), *kernel,
                                         kNumBuffers)),
            "");
}

TEST(NvrtcCompilerTest, ToolkitHeadersWork) {
  std::optional<CompiledKernel> kernel = compileOk(R"cu(
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
extern "C" __global__ void half_add(const __half *a, const __half *b, __half *out) {
  cuda::std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __hadd(a[i], b[i]);
}
)cu");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->entryPoints, std::vector<std::string>{"half_add"});
}

TEST(NvrtcCompilerTest, OtherRealArch) {
  CompileOptions options;
  options.arch = "sm_80";
  std::optional<CompiledKernel> kernel =
      compileOk(readInput("ok-add-relu.cu"), options);
  ASSERT_TRUE(kernel);
  EXPECT_CONTAINS(kernel->ptx, ".target sm_80");
  EXPECT_EQ(kernel->arch, "sm_80");
}

TEST(NvrtcCompilerTest, HostHeaderRejectedBeforeCompiling) {
  std::string message = compileError(readInput("01-host-header.cu"));
  EXPECT_CONTAINS(message, "candidate rejected before compiling: line 3:");
  EXPECT_CONTAINS(message, "'#include <stdio.h>' is not allowed");
  EXPECT_CONTAINS(message, "not a CUDA toolkit header");
}

TEST(NvrtcCompilerTest, IncludeEscapesRejectedBeforeCompiling) {
  for (StringRef source :
       {"#include <cstdlib>\n", "#include \"../../etc/passwd\"\n",
        "#include \"/etc/passwd\"\n", "%:include \"/etc/passwd\"\n",
        "#include <../../../../etc/passwd>\n"}) {
    std::string message = compileError(source);
    EXPECT_CONTAINS(message, "candidate rejected before compiling");
    // NVRTC would have quoted the file into its log.
    EXPECT_EQ(message.find("root:"), std::string::npos) << message;
    EXPECT_EQ(message.find("NVRTC"), std::string::npos) << message;
  }
}

TEST(NvrtcCompilerTest, SyntaxErrorGivesNvrtcLog) {
  std::string message = compileError(readInput("01-syntax-error.cu"));
  EXPECT_CONTAINS(message, "NVRTC failed to compile the candidate for sm_90:");
  EXPECT_CONTAINS(message, "candidate.cu(6): error");
  EXPECT_CONTAINS(message, "error: expected a \";\"");
}

TEST(NvrtcCompilerTest, OversizeSourceRejectedBeforeNvrtc) {
  CompileOptions options;
  std::string source = readInput("ok-add-relu.cu");
  source += "// " + std::string(options.maxSourceBytes, 'x') + "\n";
  // A toolkit that does not exist: only a check made before any toolkit or
  // NVRTC use can give the size error.
  options.toolkitIncludeDir = "/nonexistent/cuda/include";
  std::string message = compileError(source, options);
  EXPECT_CONTAINS(message, "candidate rejected: source is " +
                               std::to_string(source.size()) +
                               " bytes, over the limit of 262144 bytes");
  // One byte under the limit compiles.
  options = CompileOptions();
  options.maxSourceBytes = source.size();
  EXPECT_TRUE(compileOk(source, options));
}

TEST(NvrtcCompilerTest, LogIsTrimmed) {
  std::string source;
  for (int i = 0; i < 200; ++i)
    source += "__device__ int f" + std::to_string(i) + "() { return undeclared" +
              std::to_string(i) + "; }\n";
  CompileOptions options;
  options.maxLogBytes = 1000000;
  std::string full = compileError(source, options);
  options.maxLogBytes = 512;
  std::string trimmed = compileError(source, options);

  StringRef header = "NVRTC failed to compile the candidate for sm_90:\n";
  ASSERT_TRUE(StringRef(trimmed).starts_with(header)) << trimmed;
  size_t note = trimmed.find("\n[... ");
  ASSERT_NE(note, std::string::npos) << trimmed;
  EXPECT_LE(note - header.size(), 512u);
  EXPECT_GE(note - header.size(), 256u);
  EXPECT_CONTAINS(trimmed, "bytes of the NVRTC log cut]");
  EXPECT_GT(full.size(), header.size() + 4 * 512);
  EXPECT_EQ(full.find("log cut]"), std::string::npos);
  // The kept part is the start of the full log.
  EXPECT_TRUE(StringRef(full).starts_with(trimmed.substr(0, note)));
}

TEST(NvrtcCompilerTest, SourceWithoutKernelRejected) {
  EXPECT_CONTAINS(compileError("__device__ int f() { return 1; }\n"),
                  "the candidate defines no kernel");
}

TEST(NvrtcCompilerTest, BadOptionsRejected) {
  CompileOptions options;
  options.arch = "compute_90";
  EXPECT_CONTAINS(compileError(readInput("ok-add-relu.cu"), options),
                  "arch 'compute_90' is not a real GPU arch");
  options = CompileOptions();
  options.extraFlags = {"-I/etc"};
  EXPECT_CONTAINS(compileError(readInput("ok-add-relu.cu"), options),
                  "extra NVRTC flag '-I/etc' is not allowed");
  options.extraFlags = {"-lineinfo"};
  EXPECT_TRUE(compileOk(readInput("ok-add-relu.cu"), options));
}

TEST(NvrtcCompilerTest, ToolkitDirFromEnvironment) {
  const char *old = std::getenv("CUDA_HOME");
  std::string saved = old ? old : "";
  ASSERT_EQ(setenv("CUDA_HOME", "/nonexistent/cuda", 1), 0);
  EXPECT_EQ(getDefaultToolkitIncludeDir(), "/nonexistent/cuda/include");
  std::string message = compileError(readInput("ok-add-relu.cu"));
  if (old)
    setenv("CUDA_HOME", saved.c_str(), 1);
  else
    unsetenv("CUDA_HOME");
  EXPECT_CONTAINS(message, "'/nonexistent/cuda/include' does not exist");
  EXPECT_NE(getDefaultToolkitIncludeDir(), "/nonexistent/cuda/include");
}

TEST(NvrtcCompilerTest, CompileCandidatesKeepsOrder) {
  std::vector<std::string> sources = {
      readInput("ok-add-relu.cu"), readInput("01-syntax-error.cu"),
      "extern \"C\" __global__ void k2(float *a) { a[threadIdx.x] = 2; }\n",
      "extern \"C\" __global__ void k3(float *a) { a[threadIdx.x] = 3; }\n"};
  std::vector<llvm::Expected<CompiledKernel>> results =
      compileCandidates(sources, CompileOptions(), /*jobs=*/2);
  ASSERT_EQ(results.size(), 4u);
  std::vector<std::string> expected = {"add_relu", "", "k2", "k3"};
  for (size_t i = 0; i < results.size(); ++i) {
    if (expected[i].empty()) {
      ASSERT_FALSE(bool(results[i])) << "result " << i;
      EXPECT_CONTAINS(llvm::toString(results[i].takeError()),
                      "NVRTC failed to compile");
      continue;
    }
    ASSERT_TRUE(bool(results[i]))
        << "result " << i << ": " << llvm::toString(results[i].takeError());
    EXPECT_EQ(results[i]->entryPoints, std::vector<std::string>{expected[i]});
  }
}

//===----------------------------------------------------------------------===//
// Launch plans
//===----------------------------------------------------------------------===//

class LaunchPlanTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    llvm::Expected<CompiledKernel> compiled =
        compileCandidate(readInput("ok-add-relu.cu"), CompileOptions());
    if (!compiled) {
      ADD_FAILURE() << llvm::toString(compiled.takeError());
      return;
    }
    kernel = new CompiledKernel(std::move(*compiled));
  }
  static void TearDownTestSuite() {
    delete kernel;
    kernel = nullptr;
  }
  void SetUp() override { ASSERT_NE(kernel, nullptr); }

  /// The validation message for a plan given as JSON text; "" when valid.
  static std::string check(StringRef planText,
                           unsigned numBuffers = kNumBuffers,
                           const CompiledKernel *with = nullptr) {
    return messageOf(validateLaunchPlan(parseJson(planText),
                                        with ? *with : *kernel, numBuffers));
  }

  static std::string launch(StringRef fields) {
    return (R"({"launches": [{"kernel": "add_relu", )" + fields + "}]}").str();
  }

  static CompiledKernel *kernel;
};

CompiledKernel *LaunchPlanTest::kernel = nullptr;

TEST_F(LaunchPlanTest, HostileFixtures) {
  std::optional<CompiledKernel> missing =
      compileOk(readInput("13-missing-kernel.cu"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(
      messageOf(validateLaunchPlan(readPlan("13-missing-kernel.json"),
                                   *missing, kNumBuffers)),
      "launch plan: launch 0 (add_relu_v2): kernel 'add_relu_v2' is not an "
      "entry point of the candidate (entry points: add_relu)");

  std::optional<CompiledKernel> zero = compileOk(readInput("13-zero-grid.cu"));
  ASSERT_TRUE(zero);
  EXPECT_EQ(messageOf(validateLaunchPlan(readPlan("13-zero-grid.json"), *zero,
                                         kNumBuffers)),
            "launch plan: launch 0 (add_relu): grid[0] = 0 is out of range "
            "[1, 2147483647]");
}

TEST_F(LaunchPlanTest, ValidPlans) {
  EXPECT_EQ(check(launch(R"("grid": [1024], "block": [256])")), "");
  EXPECT_EQ(check(launch(R"("grid": [2147483647, 65535, 65535],
                            "block": [16, 16, 4], "shared_bytes": 232448)")),
            "");
  EXPECT_EQ(check(R"({"launches": [
                       {"kernel": "add_relu", "grid": [1], "block": [1]},
                       {"kernel": "add_relu", "grid": [8], "block": [1024]}],
                     "workspace_bytes": 4294967296})"),
            "");
}

TEST_F(LaunchPlanTest, PlanShape) {
  EXPECT_EQ(check("[]"), "launch plan: must be a JSON object");
  EXPECT_EQ(check("{}"), "launch plan: top level: missing 'launches'");
  EXPECT_EQ(check(R"({"launches": []})"),
            "launch plan: top level: 'launches' is empty: a plan needs at "
            "least one launch");
  EXPECT_EQ(check(R"({"launches": {}})"),
            "launch plan: top level: 'launches' must be an array");
  EXPECT_CONTAINS(check(R"({"launches": [], "workspace": 4})"),
                  "top level: unknown key 'workspace'");
  EXPECT_CONTAINS(check(R"({"launches": [7]})"),
                  "launch 0: must be a JSON object");
  EXPECT_CONTAINS(check(R"({"launches": [{"grid": [1], "block": [1]}]})"),
                  "launch 0: 'kernel' must be a non-empty string");
}

TEST_F(LaunchPlanTest, Workspace) {
  std::string plan = launch(R"("grid": [1], "block": [1])");
  plan.pop_back();
  EXPECT_CONTAINS(check(plan + R"(, "workspace_bytes": -1})"),
                  "'workspace_bytes' = -1 is out of range [0, 4294967296]");
  EXPECT_CONTAINS(check(plan + R"(, "workspace_bytes": 4294967297})"),
                  "'workspace_bytes' = 4294967297 is out of range");
  EXPECT_CONTAINS(check(plan + R"(, "workspace_bytes": "4"})"),
                  "'workspace_bytes' must be an integer");
}

TEST_F(LaunchPlanTest, Dims) {
  EXPECT_CONTAINS(check(launch(R"("grid": [1], "block": [32, 33])")),
                  "launch 0 (add_relu): block has 1056 threads, more than the "
                  "1024 allowed");
  EXPECT_CONTAINS(check(launch(R"("grid": [1], "block": [1, 1, 65])")),
                  "block[2] = 65 is out of range [1, 64]");
  EXPECT_CONTAINS(check(launch(R"("grid": [1], "block": [1025])")),
                  "block[0] = 1025 is out of range [1, 1024]");
  EXPECT_CONTAINS(check(launch(R"("grid": [1, 65536], "block": [1])")),
                  "grid[1] = 65536 is out of range [1, 65535]");
  EXPECT_CONTAINS(check(launch(R"("grid": [1, 1, -2], "block": [1])")),
                  "grid[2] = -2 is out of range");
  EXPECT_CONTAINS(check(launch(R"("grid": [2147483648], "block": [1])")),
                  "grid[0] = 2147483648 is out of range");
  EXPECT_CONTAINS(check(launch(R"("grid": [1, 1, 1, 1], "block": [1])")),
                  "'grid' must be an array of 1 to 3 integers");
  EXPECT_CONTAINS(check(launch(R"("grid": [], "block": [1])")),
                  "'grid' must be an array of 1 to 3 integers");
  EXPECT_CONTAINS(check(launch(R"("grid": ["8"], "block": [1])")),
                  "'grid' must be an array of 1 to 3 integers");
  EXPECT_CONTAINS(check(launch(R"("grid": [1])")), "missing 'block'");
  // The index of the failing launch, not the first.
  EXPECT_CONTAINS(check(R"({"launches": [
                             {"kernel": "add_relu", "grid": [1], "block": [1]},
                             {"kernel": "add_relu", "grid": [0], "block": [1]}]})"),
                  "launch plan: launch 1 (add_relu): grid[0] = 0");
}

TEST_F(LaunchPlanTest, SharedBytes) {
  EXPECT_CONTAINS(
      check(launch(R"("grid": [1], "block": [1], "shared_bytes": 232449)")),
      "'shared_bytes' = 232449 is out of range [0, 232448]");
  EXPECT_CONTAINS(
      check(launch(R"("grid": [1], "block": [1], "shared_bytes": -4)")),
      "'shared_bytes' = -4 is out of range");
  EXPECT_CONTAINS(
      check(launch(R"("grid": [1], "block": [1], "shared_mem": 4096)")),
      "launch 0 (add_relu): unknown key 'shared_mem'");
  EXPECT_EQ(getMaxSharedBytes("sm_90a"), 227 * 1024);
  EXPECT_EQ(getMaxSharedBytes("sm_80"), 163 * 1024);
  EXPECT_EQ(getMaxSharedBytes("sm_86"), 99 * 1024);
  EXPECT_EQ(getMaxSharedBytes("sm_1"), 48 * 1024);
}

TEST_F(LaunchPlanTest, Clusters) {
  // The cluster a kernel is compiled with (`__cluster_dims__`, PTX
  // `.reqnctapercluster`) must divide the grid; 8 blocks (CUDA's portable
  // size) is the most: MLIR's and IREE's launchers do not opt in to more.
  auto source = [](int x, int y) {
    return llvm::formatv(R"cu(
extern "C" __global__ void __cluster_dims__({0}, {1}, 1) k(float *a) {{
  a[blockIdx.x] = 1.0f;
}
)cu",
                         x, y)
        .str();
  };
  auto clustered = [&](int x, int y) { return compileOk(source(x, y)); };
  std::optional<CompiledKernel> eight = clustered(8, 1);
  ASSERT_TRUE(eight);
  auto plan = [](StringRef grid) {
    return (R"({"launches": [{"kernel": "k", "grid": )" + grid +
            R"(, "block": [128]}]})")
        .str();
  };
  EXPECT_EQ(check(plan("[65536]"), 1, &*eight), "");
  EXPECT_EQ(check(plan("[65540]"), 1, &*eight),
            "launch plan: launch 0 (k): grid[0] = 65540 is not a multiple of "
            "the kernel's cluster size 8 in that dimension "
            "(.reqnctapercluster)");
  std::optional<CompiledKernel> twoByTwo = clustered(2, 2);
  ASSERT_TRUE(twoByTwo);
  EXPECT_EQ(check(plan("[8, 4]"), 1, &*twoByTwo), "");
  EXPECT_CONTAINS(check(plan("[8, 3]"), 1, &*twoByTwo),
                  "grid[1] = 3 is not a multiple of the kernel's cluster size 2");
  // Without a cluster any grid goes.
  EXPECT_EQ(check(launch(R"("grid": [65543], "block": [256])")), "");
  // 16 blocks compile (sm_90 places them when the launcher opts in) but are
  // refused.
  std::optional<CompiledKernel> sixteen = clustered(16, 1);
  ASSERT_TRUE(sixteen);
  EXPECT_EQ(check(plan("[64]"), 1, &*sixteen),
            "launch plan: launch 0 (k): kernel 'k' has clusters of 16 "
            "blocks, more than 8 (CUDA's portable cluster size)");
}

TEST_F(LaunchPlanTest, ArchSpecificBuild) {
  // A plan may ask for the chip's arch-specific form, nothing else.
  std::string plan = R"({"arch": "sm_90a", "launches": [{"kernel": "add_relu", "grid": [1], "block": [1]}]})";
  llvm::Expected<std::string> arch = getCandidateArch(plan, "sm_90");
  ASSERT_TRUE(bool(arch)) << llvm::toString(arch.takeError());
  EXPECT_EQ(*arch, "sm_90a");
  llvm::Expected<std::string> plain =
      getCandidateArch(launch(R"("grid": [1], "block": [1])"), "sm_90");
  ASSERT_TRUE(bool(plain));
  EXPECT_EQ(*plain, "sm_90");
  EXPECT_CONTAINS(
      messageOf(getCandidateArch(R"({"arch": "sm_100a", "launches": []})",
                                 "sm_90")
                    .takeError()),
      "'arch' may only be 'sm_90a'");
  // The plan's arch must be the one the kernel was built for.
  EXPECT_CONTAINS(check(plan), "'arch' must be the arch the kernel was "
                               "compiled for, 'sm_90'");
  CompileOptions options;
  options.arch = "sm_90a";
  std::optional<CompiledKernel> specific =
      compileOk(readInput("ok-add-relu.cu"), options);
  ASSERT_TRUE(specific.has_value());
  EXPECT_EQ(specific->arch, "sm_90a");
  EXPECT_EQ(check(plan, kNumBuffers, &*specific), "");
  // compileCandidates builds each source for its own arch.
  std::vector<std::string> sources = {readInput("ok-add-relu.cu"),
                                      readInput("ok-add-relu.cu")};
  std::vector<std::string> archs = {"sm_90", "sm_90a"};
  std::vector<llvm::Expected<CompiledKernel>> results =
      compileCandidates(sources, archs, CompileOptions(), /*jobs=*/2);
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(bool(results[i])) << llvm::toString(results[i].takeError());
    EXPECT_EQ(results[i]->arch, archs[i]);
  }
}

TEST_F(LaunchPlanTest, KernelParameters) {
  std::string plan = launch(R"("grid": [1], "block": [1])");
  EXPECT_CONTAINS(check(plan, /*numBuffers=*/2),
                  "launch 0 (add_relu): kernel takes 3 parameters, expected 2 "
                  "buffer pointers");
  // With a workspace, one more pointer is allowed but not required.
  plan.pop_back();
  EXPECT_EQ(check(plan + R"(, "workspace_bytes": 64})", /*numBuffers=*/2), "");
  EXPECT_CONTAINS(check(plan + R"(, "workspace_bytes": 64})", /*numBuffers=*/1),
                  "kernel takes 3 parameters, expected 1 buffer pointers "
                  "(plus an optional workspace pointer)");

  std::optional<CompiledKernel> scalar = compileOk(
      "extern \"C\" __global__ void add_relu(const float *a, float s, "
      "float *out) { out[0] = a[0] * s; }\n");
  ASSERT_TRUE(scalar);
  EXPECT_CONTAINS(check(launch(R"("grid": [1], "block": [1])"), kNumBuffers,
                        &*scalar),
                  "parameter 1 is '.f32', not a pointer");

  std::optional<CompiledKernel> mangled =
      compileOk("__global__ void add_relu(float *a) { a[0] = 1; }\n");
  ASSERT_TRUE(mangled);
  EXPECT_CONTAINS(check(launch(R"("grid": [1], "block": [1])"), 1, &*mangled),
                  "declare kernels extern \"C\"");
}

} // namespace
