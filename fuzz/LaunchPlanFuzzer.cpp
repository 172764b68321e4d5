//===- LaunchPlanFuzzer.cpp - Fuzzes the launch-plan check -------*- C++ -*-===//
//
// validateLaunchPlan() reads a candidate's launch plan (JSON the model wrote)
// against the kernel NVRTC made of it, whose parameter lists come from the
// PTX. The input is the plan, then optionally a NUL byte and the PTX text;
// without a NUL the PTX is a fixed module with an extern "C" kernel of three
// pointers, one with a workspace pointer and a mangled one. The entry points
// are read from that PTX, as the compiler does. Checked besides the
// sanitizers: a plan that passes is an object whose launches are all objects.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "PtxEntries.h"

#include "cuda-agent/Cuda/LaunchPlanCheck.h"

#include "llvm/Support/JSON.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;

static const char kDefaultPtx[] =
    ".version 8.5\n.target sm_90\n.address_size 64\n"
    ".visible .entry k0(\n\t.param .u64 k0_param_0,\n"
    "\t.param .u64 k0_param_1,\n\t.param .u64 k0_param_2\n)\n"
    ".maxntid 256, 1, 1\n{\n\tret;\n}\n"
    ".visible .entry k1(\n\t.param .u64 .ptr .align 1 k1_param_0,\n"
    "\t.param .u64 k1_param_1,\n\t.param .u64 k1_param_2,\n"
    "\t.param .u64 k1_param_3\n)\n{\n\tret;\n}\n"
    ".weak .entry _Z6kernelPf(\n\t.param .align 4 .b8 _Z6kernelPf_param_0[12]\n)\n"
    "{\n\tret;\n}\n";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto [planText, ptx] = input.split('\0');
  CompiledKernel kernel;
  kernel.arch = "sm_90";
  kernel.ptx = planText.size() == input.size() ? kDefaultPtx : ptx.str();
  for (const PtxEntry &entry : parsePtxEntries(kernel.ptx)) {
    require(!entry.name.empty(), "a PTX entry without a name");
    kernel.entryPoints.push_back(entry.name);
  }
  llvm::Expected<llvm::json::Value> plan = llvm::json::parse(planText);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  if (llvm::Error error = validateLaunchPlan(*plan, kernel, /*numBuffers=*/3)) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  const llvm::json::Object *root = plan->getAsObject();
  require(root && root->getArray("launches") &&
              !root->getArray("launches")->empty(),
          "an accepted plan without launches");
  for (const llvm::json::Value &launch : *root->getArray("launches"))
    require(launch.getAsObject() != nullptr, "an accepted launch not an object");
  return 0;
}
