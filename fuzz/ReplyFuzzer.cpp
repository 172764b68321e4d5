//===- ReplyFuzzer.cpp - Fuzzes the reading of a model's reply ---*- C++ -*-===//
//
// A language model's reply is the least trusted text the compiler reads.
// parseReply() picks the kernel and the launch plan out of it; what it
// returns goes on to llvm::json::parse() and validateLaunchPlan(), here
// against a fixed compiled kernel with two entries, as agent=openai does.
// Checked besides the sanitizers: a reply gives either an error or both a
// source and a plan, never a mix.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "cuda-agent/Agents/Prompt.h"
#include "cuda-agent/Cuda/LaunchPlanCheck.h"

#include "llvm/Support/JSON.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;

static const CompiledKernel &getKernel() {
  static const CompiledKernel kernel = [] {
    CompiledKernel k;
    k.arch = "sm_90";
    k.entryPoints = {"add_relu", "finish"};
    k.ptx = ".visible .entry add_relu(\n\t.param .u64 p0,\n\t.param .u64 p1,\n"
            "\t.param .u64 p2\n)\n{\n\tret;\n}\n"
            ".visible .entry finish(\n\t.param .u64 p0,\n\t.param .u64 p1,\n"
            "\t.param .u64 p2,\n\t.param .u64 p3\n)\n{\n\tret;\n}\n";
    return k;
  }();
  return kernel;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef reply(reinterpret_cast<const char *>(data), size);
  ParsedReply parsed = parseReply(reply);
  if (!parsed.error.empty()) {
    require(parsed.source.empty() && parsed.launchPlan.empty(),
            "a reply with an error also has a source or a plan");
    return 0;
  }
  require(!parsed.source.empty() && !parsed.launchPlan.empty(),
          "a reply without an error lacks its source or its plan");
  llvm::Expected<llvm::json::Value> plan = llvm::json::parse(parsed.launchPlan);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  llvm::consumeError(validateLaunchPlan(*plan, getKernel(), /*numBuffers=*/3));
  return 0;
}
