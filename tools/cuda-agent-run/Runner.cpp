//===- Runner.cpp - Launch plan execution on the GPU ------------*- C++ -*-===//
//
// The device side of the runner. Buffers are allocated with kGuardBytes of a
// known pattern before and after them so that a kernel writing out of bounds
// is caught after the checked run; kernels get the pointer past the leading
// guard, which keeps the 256-byte alignment cuMemAlloc gives, or for the
// verifier's offset trial an address aligned to exactly 64 bytes, as IREE may
// place a binding (the leading guard then grows to reach it).
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "BufferPlacement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

using namespace mlir::cuda_agent;

static constexpr size_t kGuardBytes = 256;
static constexpr uint8_t kGuardPattern = 0xA5;

DeviceInfo mlir::cuda_agent::queryDevice(const Driver &driver, int ordinal) {
  CUdevice dev;
  CU_CHECK(driver, cuDeviceGet, &dev, ordinal);
  char name[256] = {};
  CU_CHECK(driver, cuDeviceGetName, name, sizeof(name), dev);
  auto attribute = [&](CUdevice_attribute attr) {
    int value = 0;
    CU_CHECK(driver, cuDeviceGetAttribute, &value, attr, dev);
    return value;
  };
  DeviceInfo info;
  info.name = name;
  info.arch = "sm_" +
              std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
              std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info.l2Bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  size_t memory = 0;
  CU_CHECK(driver, cuDeviceTotalMem, &memory, dev);
  info.memoryBytes = memory;
  return info;
}

/// Loads one object; for PTX the JIT's error log is appended to a failure.
static CUmodule loadModule(const Driver &driver, const std::vector<char> &image) {
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  CUmodule module = nullptr;
  CUresult result = driver.cuModuleLoadDataEx(&module, image.data(), 2, options, values);
  if (result != CUDA_SUCCESS)
    throw RunnerError(kExitCuda, "cuModuleLoadDataEx: " + driver.describe(result) +
                                     (log[0] ? std::string("; JIT log: ") + log : ""));
  return module;
}

PlanRunner::PlanRunner(const Driver &driver, const Plan &plan, int ordinal, bool allocate)
    : driver(driver), plan(plan) {
  CU_CHECK(driver, cuInit, 0);
  int count = 0;
  CU_CHECK(driver, cuDeviceGetCount, &count);
  if (ordinal < 0 || ordinal >= count)
    throw RunnerError(kExitCuda, "device " + std::to_string(ordinal) +
                                     " does not exist (" + std::to_string(count) +
                                     " CUDA devices)");
  device = queryDevice(driver, ordinal);
  CU_CHECK(driver, cuDeviceGet, &cuDevice, ordinal);
  CU_CHECK(driver, cuDevicePrimaryCtxRetain, &context, cuDevice);
  CU_CHECK(driver, cuCtxSetCurrent, context);
  // A blocking stream: the uploads and fills done with the synchronous copy
  // and memset calls run on the legacy default stream, which orders itself
  // only with blocking streams. On a non-blocking stream a poison memset
  // could still be landing while the kernel writes its outputs (seen on the
  // H200: a correct kernel's first element read back as the NaN poison).
  CU_CHECK(driver, cuStreamCreate, &stream, CU_STREAM_DEFAULT);

  int sharedLimit = 0;
  CU_CHECK(driver, cuDeviceGetAttribute, &sharedLimit,
           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, cuDevice);

  std::map<std::string, CUmodule> moduleByObject;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchSpec &launch = plan.launches[i];
    if (launch.isCopy) {
      functions.push_back(nullptr); // keeps functions[] indexed by step
      continue;
    }
    withContext(describeLaunch(i), [&] {
      CUmodule &module = moduleByObject[launch.object];
      if (!module) {
        module = withContext("loading '" + launch.object + "'", [&] {
          return loadModule(driver, plan.objects.at(launch.object));
        });
        modules.push_back(module);
      }
      CUfunction function;
      CU_CHECK(driver, cuModuleGetFunction, &function, module, launch.kernel.c_str());
      prepareFunction(driver, function, launch.sharedBytes, sharedLimit);
      functions.push_back(function);
    });
  }

  if (!allocate)
    return;
  allocations = allocateBuffers(/*guardsOnly=*/false);
  bindArgs();
}

BlockPool::~BlockPool() {
  for (auto [block, bytes] : blocks)
    driver.cuMemFree(block);
}

CUdeviceptr BlockPool::take(uint64_t bytes, const std::vector<CUdeviceptr> &avoid) {
  for (auto it = blocks.begin(); it != blocks.end(); ++it)
    if (it->second == bytes && std::find(avoid.begin(), avoid.end(), it->first) == avoid.end()) {
      CUdeviceptr block = it->first;
      blocks.erase(it);
      return block;
    }
  CUdeviceptr block;
  CUresult result = driver.cuMemAlloc(&block, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY && !blocks.empty()) {
    // The idle blocks are of other sizes (a plan with larger temporaries,
    // such as the f64 oracle, ran before): give them back and try again.
    for (auto [idle, idleBytes] : blocks)
      driver.cuMemFree(idle);
    blocks.clear();
    result = driver.cuMemAlloc(&block, bytes);
  }
  driver.check(result, "cuMemAlloc");
  return block;
}

void BlockPool::give(CUdeviceptr block, uint64_t bytes) { blocks.push_back({block, bytes}); }

/// With `guardsOnly` only the guards get the pattern (the verifier fills
/// every byte of every buffer before a run); else the whole block does.
/// With a pool the blocks come from it, never one the runner holds now or
/// gave up last. With `exactAlignment` each block has room to start its
/// buffer at an address aligned to exactly that.
std::vector<PlanRunner::Block> PlanRunner::allocateBuffers(bool guardsOnly,
                                                           uint64_t exactAlignment) {
  std::vector<Block> blocks;
  std::vector<CUdeviceptr> avoid = givenUp;
  for (const Block &block : allocations)
    avoid.push_back(block.base);
  try {
    for (const BufferSpec &buffer : plan.buffers) {
      withContext("allocating buffer '" + buffer.name + "' (" +
                      std::to_string(buffer.numBytes()) + " bytes)",
                  [&] {
                    Block block;
                    block.bytes = buffer.numBytes() + 2 * kGuardBytes +
                                  (exactAlignment ? getExactAlignmentSlack(exactAlignment) : 0);
                    if (pool)
                      block.base = pool->take(block.bytes, avoid);
                    else
                      CU_CHECK(driver, cuMemAlloc, &block.base, block.bytes);
                    block.lead = exactAlignment ? getExactlyAlignedLead(block.base, kGuardBytes,
                                                                        exactAlignment)
                                                : kGuardBytes;
                    blocks.push_back(block);
                    if (!guardsOnly) {
                      CU_CHECK(driver, cuMemsetD8, block.base, kGuardPattern, block.bytes);
                      return;
                    }
                    uint64_t end = block.lead + buffer.numBytes();
                    CU_CHECK(driver, cuMemsetD8, block.base, kGuardPattern, block.lead);
                    CU_CHECK(driver, cuMemsetD8, block.base + end, kGuardPattern,
                             block.bytes - end);
                  });
    }
  } catch (const RunnerError &) {
    for (const Block &block : blocks)
      driver.cuMemFree(block.base); // never written: nothing to scrub
    throw;
  }
  return blocks;
}

/// Kernel parameters: one device pointer per arg, passed by address.
void PlanRunner::bindArgs() {
  argValues.clear();
  argPointers.clear();
  bound.resize(allocations.size(), 0);
  for (const LaunchSpec &launch : plan.launches) {
    std::vector<CUdeviceptr> values;
    for (size_t buffer : launch.args)
      values.push_back(getBufferPointer(buffer));
    argValues.push_back(std::move(values));
  }
  for (std::vector<CUdeviceptr> &values : argValues) {
    std::vector<void *> pointers;
    for (CUdeviceptr &value : values)
      pointers.push_back(&value);
    argPointers.push_back(std::move(pointers));
  }
}

void PlanRunner::releaseBuffers(const std::vector<Block> &blocks) {
  givenUp.clear();
  for (const Block &block : blocks)
    givenUp.push_back(block.base);
  for (size_t i = 0; i < blocks.size(); ++i) {
    withContext("releasing buffer '" + plan.buffers[i].name + "'", [&] {
      CU_CHECK(driver, cuMemsetD8, blocks[i].base, kGuardPattern, blocks[i].bytes);
      if (pool)
        pool->give(blocks[i].base, blocks[i].bytes);
      else
        CU_CHECK(driver, cuMemFree, blocks[i].base);
    });
  }
}

void PlanRunner::reallocate(uint64_t exactAlignment) {
  std::vector<Block> fresh = allocateBuffers(/*guardsOnly=*/true, exactAlignment);
  std::swap(allocations, fresh);
  bound.assign(allocations.size(), 0);
  bindArgs();
  releaseBuffers(fresh);
}

void PlanRunner::release() {
  std::vector<Block> old;
  std::swap(allocations, old);
  bound.clear();
  argValues.clear();
  argPointers.clear();
  releaseBuffers(old);
}

void PlanRunner::bindBuffer(size_t index, CUdeviceptr data) {
  bound[index] = data;
  bindArgs();
}

void PlanRunner::unbindBuffers() {
  bound.assign(allocations.size(), 0);
  bindArgs();
}

void PlanRunner::scrub() {
  for (size_t i = 0; i < allocations.size(); ++i)
    withContext("scrubbing buffer '" + plan.buffers[i].name + "'", [&] {
      CU_CHECK(driver, cuMemsetD8, allocations[i].base, kGuardPattern, allocations[i].bytes);
    });
}

PlanRunner::~PlanRunner() {
  // Best effort: after a sticky error (a faulting kernel) these calls fail too.
  if (startEvent)
    driver.cuEventDestroy(startEvent);
  if (stopEvent)
    driver.cuEventDestroy(stopEvent);
  if (flushBuffer)
    driver.cuMemFree(flushBuffer);
  // Scrubbed before freeing, like reallocate(): no results in freed blocks.
  for (const Block &block : allocations) {
    driver.cuMemsetD8(block.base, kGuardPattern, block.bytes);
    driver.cuMemFree(block.base);
  }
  for (CUmodule module : modules)
    driver.cuModuleUnload(module);
  if (stream)
    driver.cuStreamDestroy(stream);
  if (context)
    driver.cuDevicePrimaryCtxRelease(cuDevice);
}

std::string PlanRunner::describeLaunch(size_t index) const {
  return "launch " + std::to_string(index) + " (" + plan.launches[index].kernel + ")";
}

CUdeviceptr PlanRunner::getBufferPointer(size_t index) const {
  if (index < bound.size() && bound[index])
    return bound[index];
  return getOwnData(index);
}

CUdeviceptr PlanRunner::getOwnData(size_t index) const {
  return allocations[index].base + allocations[index].lead;
}

void PlanRunner::upload(size_t index, const std::vector<uint8_t> &bytes) {
  withContext("uploading buffer '" + plan.buffers[index].name + "'", [&] {
    CU_CHECK(driver, cuMemcpyHtoD, getOwnData(index),
             bytes.data(), bytes.size());
  });
}

void PlanRunner::fill(size_t index, uint8_t value) {
  withContext("filling buffer '" + plan.buffers[index].name + "'", [&] {
    CU_CHECK(driver, cuMemsetD8, getOwnData(index), value,
             plan.buffers[index].numBytes());
  });
}

std::vector<uint8_t> PlanRunner::download(size_t index) {
  std::vector<uint8_t> bytes(plan.buffers[index].numBytes());
  withContext("downloading buffer '" + plan.buffers[index].name + "'", [&] {
    CU_CHECK(driver, cuMemcpyDtoH, bytes.data(), getOwnData(index), bytes.size());
  });
  return bytes;
}

std::vector<std::string> PlanRunner::findGuardViolations() {
  std::vector<std::string> violations;
  std::vector<uint8_t> guard;
  auto intact = [&](CUdeviceptr ptr, uint64_t bytes) {
    guard.resize(bytes);
    CU_CHECK(driver, cuMemcpyDtoH, guard.data(), ptr, bytes);
    return std::all_of(guard.begin(), guard.end(),
                       [](uint8_t byte) { return byte == kGuardPattern; });
  };
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    withContext("checking the guards of buffer '" + plan.buffers[i].name + "'", [&] {
      const Block &block = allocations[i];
      uint64_t end = block.lead + plan.buffers[i].numBytes();
      if (!intact(block.base, block.lead))
        violations.push_back(plan.buffers[i].name + " (before)");
      if (!intact(block.base + end, block.bytes - end))
        violations.push_back(plan.buffers[i].name + " (after)");
    });
  }
  return violations;
}

void PlanRunner::enqueueLaunch(size_t index) {
  const LaunchSpec &launch = plan.launches[index];
  withContext(describeLaunch(index), [&] {
    if (launch.isCopy) {
      CU_CHECK(driver, cuMemcpyDtoDAsync, getBufferPointer(launch.copyTo),
               getBufferPointer(launch.copyFrom),
               plan.buffers[launch.copyTo].numBytes(), stream);
      return;
    }
    CU_CHECK(driver, cuLaunchKernel, functions[index], launch.grid[0],
             launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
             launch.block[2], launch.sharedBytes, stream,
             argPointers[index].data(), nullptr);
  });
}

void PlanRunner::runChecked() {
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    enqueueLaunch(i);
    withContext(describeLaunch(i),
                [&] { CU_CHECK(driver, cuStreamSynchronize, stream); });
  }
}

void PlanRunner::flushL2() {
  if (!flushBuffer) {
    // Twice the L2 size, so that no line of the previous run survives.
    flushBytes = 2 * size_t(device.l2Bytes > 0 ? device.l2Bytes : 64 << 20);
    CU_CHECK(driver, cuMemAlloc, &flushBuffer, flushBytes);
  }
  CU_CHECK(driver, cuMemsetD8Async, flushBuffer, 0, flushBytes, stream);
}

/// Percentile `p` in [0, 1] of sorted `values`, interpolated as numpy does.
static double percentile(const std::vector<double> &values, double p) {
  double position = p * double(values.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, values.size() - 1);
  double fraction = position - double(lower);
  return values[lower] + (values[upper] - values[lower]) * fraction;
}

double PlanRunner::timeOnce() {
  float ms = 0;
  withContext("timing", [&] {
    if (!startEvent) {
      CU_CHECK(driver, cuEventCreate, &startEvent, CU_EVENT_DEFAULT);
      CU_CHECK(driver, cuEventCreate, &stopEvent, CU_EVENT_DEFAULT);
    }
    flushL2();
    CU_CHECK(driver, cuEventRecord, startEvent, stream);
    for (size_t i = 0; i < plan.launches.size(); ++i)
      enqueueLaunch(i);
    CU_CHECK(driver, cuEventRecord, stopEvent, stream);
    CU_CHECK(driver, cuEventSynchronize, stopEvent);
    CU_CHECK(driver, cuEventElapsedTime, &ms, startEvent, stopEvent);
  });
  return double(ms) * 1000.0;
}

TimingStats PlanRunner::time(int warmup, int runs) {
  std::vector<double> times;
  for (int run = 0; run < warmup + runs; ++run) {
    double us = timeOnce();
    if (run >= warmup)
      times.push_back(us);
  }
  return summarizeTimes(std::move(times));
}

TimingStats mlir::cuda_agent::summarizeTimes(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  TimingStats stats;
  stats.runs = int(times.size());
  stats.minUs = times.front();
  stats.maxUs = times.back();
  stats.medianUs = percentile(times, 0.5);
  stats.p10Us = percentile(times, 0.1);
  stats.p90Us = percentile(times, 0.9);
  stats.meanUs = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
  return stats;
}
