//===- RunnerPlanFuzzer.cpp - Fuzzes cuda-agent-run's plan.json reader -*- C++ -*-===//
//
// loadPlan() reads a bundle's plan.json before anything touches the GPU. The
// input is plan.json, in a bundle that also holds k.cubin and k.ptx. Its
// contract: a bad plan throws RunnerError and nothing else (any other
// exception escapes and counts as a crash). Checked besides the sanitizers,
// for every accepted plan: every launch argument and copy names a buffer,
// copies join buffers of one size, and every kernel's object was read.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "Error.h"
#include "Plan.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;
using cuda_agent_fuzz::scratchDir;
using cuda_agent_fuzz::writeScratchFile;

static const std::string &getBundle() {
  static const std::string bundle = [] {
    static const uint8_t object[] = "\x7f" "ELF not really a cubin";
    static const uint8_t ptx[] = ".version 8.5\n.target sm_90\n";
    mkdir((scratchDir() + "/bundle").c_str(), 0700);
    writeScratchFile("bundle/k.cubin", object, sizeof(object) - 1);
    writeScratchFile("bundle/k.ptx", ptx, sizeof(ptx) - 1);
    return scratchDir() + "/bundle";
  }();
  return bundle;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &bundle = getBundle();
  writeScratchFile("bundle/plan.json", data, size);
  Plan plan;
  try {
    plan = loadPlan(bundle);
  } catch (const RunnerError &error) {
    require(error.exitCode() == kExitUsage, "a bad plan not a usage error");
    return 0;
  }
  require(!plan.launches.empty(), "an accepted plan without launches");
  for (const LaunchSpec &launch : plan.launches) {
    if (launch.isCopy) {
      require(launch.copyFrom < plan.buffers.size() &&
                  launch.copyTo < plan.buffers.size(),
              "a copy of an unknown buffer");
      require(plan.buffers[launch.copyFrom].numBytes() ==
                  plan.buffers[launch.copyTo].numBytes(),
              "a copy between buffers of different sizes");
      continue;
    }
    for (size_t arg : launch.args)
      require(arg < plan.buffers.size(), "an argument naming no buffer");
    require(plan.objects.count(launch.object) &&
                !plan.objects.at(launch.object).empty(),
            "a launch whose object was not read");
    uint64_t threads =
        uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
    require(threads >= 1 && threads <= 1024, "a block of bad size");
  }
  return 0;
}
