//===- Executor.cpp - A plan run on the caller's memory and stream -*- C++ -*-===//
//
// Loads the plan's objects once into the device's primary context, and per
// call binds the caller's buffer addresses into each launch's arguments and
// enqueues launches and copies on the caller's stream, asynchronously.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <map>
#include <string>

using namespace mlir::cuda_agent;


PlanExecutor::PlanExecutor(const Driver &driver, const Plan &plan, int ordinal)
    : driver(driver), plan(plan) {
  CU_CHECK(driver, cuInit, 0);
  CU_CHECK(driver, cuDeviceGet, &device, ordinal);
  CU_CHECK(driver, cuDevicePrimaryCtxRetain, &context, device);
  // A constructor that throws runs no destructor: give back what was taken.
  try {
    loadKernels();
  } catch (...) {
    for (CUmodule module : modules)
      driver.cuModuleUnload(module);
    driver.cuDevicePrimaryCtxRelease(device);
    throw;
  }
}

void PlanExecutor::loadKernels() {
  CU_CHECK(driver, cuCtxSetCurrent, context);
  int sharedLimit = 0;
  CU_CHECK(driver, cuDeviceGetAttribute, &sharedLimit,
           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);

  std::map<std::string, CUmodule> moduleByObject;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchSpec &launch = plan.launches[i];
    if (launch.isCopy) {
      functions.push_back(nullptr);
      continue;
    }
    std::string step = "launch " + std::to_string(i) + " (" + launch.kernel + ")";
    withContext(step, [&] {
      CUmodule &module = moduleByObject[launch.object];
      if (!module) {
        char log[8192] = {};
        CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
        const std::vector<char> &image = plan.objects.at(launch.object);
        CUresult result =
            driver.cuModuleLoadDataEx(&module, image.data(), 2, options, values);
        if (result != CUDA_SUCCESS)
          throw RunnerError(kExitCuda,
                            "loading '" + launch.object + "': cuModuleLoadDataEx: " +
                                driver.describe(result) +
                                (log[0] ? std::string("; JIT log: ") + log : ""));
        modules.push_back(module);
      }
      CUfunction function;
      CU_CHECK(driver, cuModuleGetFunction, &function, module, launch.kernel.c_str());
      prepareFunction(driver, function, launch.sharedBytes, sharedLimit);
      functions.push_back(function);
    });
  }
}

PlanExecutor::~PlanExecutor() {
  for (CUmodule module : modules)
    driver.cuModuleUnload(module);
  if (context)
    driver.cuDevicePrimaryCtxRelease(device);
}

void PlanExecutor::enqueue(const std::vector<CUdeviceptr> &buffers,
                           CUstream stream) {
  if (buffers.size() != plan.buffers.size())
    throw RunnerError(kExitUsage, "the plan has " +
                                      std::to_string(plan.buffers.size()) +
                                      " buffers, " + std::to_string(buffers.size()) +
                                      " addresses were given");
  for (size_t i = 0; i < buffers.size(); ++i)
    if (plan.buffers[i].numBytes() > 0 && (buffers[i] == 0 || buffers[i] % 16))
      throw RunnerError(kExitUsage, "buffer '" + plan.buffers[i].name +
                                        "': address " + std::to_string(buffers[i]) +
                                        " is null or not 16-byte aligned");
  CU_CHECK(driver, cuCtxSetCurrent, context);
  std::vector<CUdeviceptr> values;
  std::vector<void *> pointers;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchSpec &launch = plan.launches[i];
    withContext("launch " + std::to_string(i) + " (" + launch.kernel + ")", [&] {
      if (launch.isCopy) {
        CU_CHECK(driver, cuMemcpyDtoDAsync, buffers[launch.copyTo],
                 buffers[launch.copyFrom], plan.buffers[launch.copyTo].numBytes(),
                 stream);
        return;
      }
      values.clear();
      pointers.clear();
      for (size_t buffer : launch.args)
        values.push_back(buffers[buffer]);
      for (CUdeviceptr &value : values)
        pointers.push_back(&value);
      CU_CHECK(driver, cuLaunchKernel, functions[i], launch.grid[0],
               launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
               launch.block[2], launch.sharedBytes, stream, pointers.data(),
               nullptr);
    });
  }
}
