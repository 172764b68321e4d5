//===- DeviceChecks.cpp - The verifier's work done on the GPU ---*- C++ -*-===//
//
// Loads the fatbin that the build embedded (DeviceKernelsImage.cpp, made by
// nvcc from DeviceKernels.cu) and launches its kernels on the legacy default
// stream, which orders itself with the runners' blocking streams and with the
// synchronous copies and memsets the verifier uses; each result is read back
// with a synchronous copy, so a call returns when its kernel is done. A
// kernel's grid is one wave: the blocks that fit on every SM at once (the
// driver's occupancy for its registers and shared memory), since the
// kernels are grid-stride loops; that also bounds the partial summaries the
// host combines.
//
//===----------------------------------------------------------------------===//

#include "DeviceChecks.h"

#include "ElementOps.h"

#include <algorithm>
#include <random>

extern const unsigned char kDeviceKernelsImage[];
extern const unsigned long kDeviceKernelsImageSize;

using namespace mlir::cuda_agent;
namespace el = mlir::cuda_agent::elements;

static_assert(unsigned(DType::F32) == el::F32 && unsigned(DType::F16) == el::F16 &&
                  unsigned(DType::BF16) == el::BF16 && unsigned(DType::F64) == el::F64 &&
                  unsigned(DType::I1) == el::I1 && unsigned(DType::I8) == el::I8 &&
                  unsigned(DType::I16) == el::I16 && unsigned(DType::I32) == el::I32 &&
                  unsigned(DType::I64) == el::I64 && unsigned(DType::U8) == el::U8,
              "ElementOps.h's Kind must follow DType");
static_assert(unsigned(Distribution::Normal) == el::Normal &&
                  unsigned(Distribution::UniformOffset) == el::UniformOffset &&
                  unsigned(Distribution::SmallInt) == el::SmallInt &&
                  unsigned(Distribution::LargeNormal) == el::LargeNormal,
              "ElementOps.h's Draw must follow Distribution");

static constexpr unsigned kBlock = 256; // DeviceKernels.cu's kBlock

DeviceChecks::DeviceChecks(const Driver &driver, int ordinal) : driver(driver) {
  withContext("loading the verifier kernels", [&] {
    char log[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
    CUresult result =
        driver.cuModuleLoadDataEx(&module, kDeviceKernelsImage, 2, options, values);
    if (result != CUDA_SUCCESS)
      throw RunnerError(kExitCuda, "cuModuleLoadDataEx: " + driver.describe(result) +
                                       (log[0] ? std::string("; JIT log: ") + log : ""));
    CUdevice device;
    int sms = 0;
    CU_CHECK(driver, cuDeviceGet, &device, ordinal);
    CU_CHECK(driver, cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
             device);
    generateKernel = loadKernel("cuda_agent_generate", sms);
    unmaskKernel = loadKernel("cuda_agent_unmask", sms);
    captureKernel = loadKernel("cuda_agent_capture", sms);
    compareKernel = loadKernel("cuda_agent_compare", sms);
    firstDifferenceKernel = loadKernel("cuda_agent_first_difference", sms);
    poisonKernel = loadKernel("cuda_agent_poison", sms);
    counter = allocate(sizeof(uint64_t));
    partials = allocate(
        std::max(uint64_t(compareKernel.maxBlocks) * sizeof(el::ComparePartial),
                 uint64_t(captureKernel.maxBlocks) * sizeof(el::CapturePartial)));
  });
  (void)kDeviceKernelsImageSize;
}

DeviceChecks::~DeviceChecks() {
  // Best effort, like ~PlanRunner: after a sticky error these fail too.
  for (auto [ptr, bytes] : owned) {
    driver.cuMemsetD8(ptr, 0xA5, bytes);
    driver.cuMemFree(ptr);
  }
  if (module)
    driver.cuModuleUnload(module);
}

CUdeviceptr DeviceChecks::allocate(uint64_t bytes) {
  CUdeviceptr ptr = 0;
  withContext("allocating " + std::to_string(bytes) + " bytes for the verifier",
              [&] { CU_CHECK(driver, cuMemAlloc, &ptr, std::max<uint64_t>(bytes, 1)); });
  owned.push_back({ptr, std::max<uint64_t>(bytes, 1)});
  return ptr;
}

DeviceChecks::Kernel DeviceChecks::loadKernel(const char *name, int sms) {
  Kernel kernel;
  CU_CHECK(driver, cuModuleGetFunction, &kernel.function, module, name);
  int perSm = 0;
  CU_CHECK(driver, cuOccupancyMaxActiveBlocksPerMultiprocessor, &perSm, kernel.function,
           int(kBlock), size_t(0));
  kernel.maxBlocks = unsigned(std::max(sms, 1)) * unsigned(std::max(perSm, 1));
  return kernel;
}

/// Launches `kernel` over `count` elements on the legacy default stream.
unsigned DeviceChecks::launch(const Kernel &kernel, uint64_t count,
                              std::vector<void *> args) {
  unsigned blocks =
      unsigned(std::clamp<uint64_t>((count + kBlock - 1) / kBlock, 1, kernel.maxBlocks));
  CU_CHECK(driver, cuLaunchKernel, kernel.function, blocks, 1, 1, kBlock, 1, 1, 0, nullptr,
           args.data(), nullptr);
  return blocks;
}

uint64_t DeviceChecks::readCounter() {
  uint64_t value = 0;
  CU_CHECK(driver, cuMemcpyDtoH, &value, counter, sizeof(value));
  return value;
}

uint64_t DeviceChecks::makeKey() {
  std::random_device random;
  uint64_t key = (uint64_t(random()) << 32) ^ random();
  return key ? key : 1; // 0 means "no key" to the capture kernel
}

void DeviceChecks::generate(DeviceCopy &into, const BufferSpec &buffer, uint64_t seed,
                            size_t bufferIndex, Distribution distribution) {
  withContext("generating buffer '" + buffer.name + "'", [&] {
    into.key = makeKey();
    CUdeviceptr out = into.store;
    uint64_t count = buffer.numElements(), pairs = (count + 1) / 2;
    uint32_t kind = uint32_t(buffer.dtype), draw = uint32_t(distribution);
    uint64_t start = el::streamStart(seed, bufferIndex);
    launch(generateKernel, pairs, {&out, &count, &kind, &start, &draw, &into.key});
  });
}

void DeviceChecks::restore(const DeviceCopy &copy, CUdeviceptr data,
                           const BufferSpec &buffer) {
  withContext("filling buffer '" + buffer.name + "'", [&] {
    CUdeviceptr store = copy.store;
    uint64_t key = copy.key, count = buffer.numElements();
    uint32_t size = getInfo(buffer.dtype).size;
    launch(unmaskKernel, count, {&store, &key, &data, &count, &size});
  });
}

el::CapturePartial DeviceChecks::runCapture(CUdeviceptr data, CUdeviceptr store,
                                            const BufferSpec &buffer, uint64_t key,
                                            uint64_t hashKey) {
  uint64_t count = buffer.numElements();
  uint32_t kind = uint32_t(buffer.dtype);
  CUdeviceptr out = partials;
  unsigned blocks =
      launch(captureKernel, count, {&data, &store, &count, &kind, &key, &out, &hashKey});
  std::vector<el::CapturePartial> parts(blocks);
  CU_CHECK(driver, cuMemcpyDtoH, parts.data(), partials,
           parts.size() * sizeof(el::CapturePartial));
  el::CapturePartial total = {0, {0, 0}};
  for (const el::CapturePartial &part : parts)
    el::combine(total, part);
  return total;
}

void DeviceChecks::capture(CUdeviceptr data, const BufferSpec &buffer,
                           DeviceCopy &into) {
  withContext("capturing output '" + buffer.name + "'", [&] {
    into.key = makeKey();
    el::CapturePartial total = runCapture(data, into.store, buffer, into.key, 0);
    into.scale = total.scale;
    into.hash = {total.hash[0], total.hash[1]};
  });
}

BufferHash DeviceChecks::hash(CUdeviceptr data, const BufferSpec &buffer, uint64_t key) {
  return withContext("hashing buffer '" + buffer.name + "'", [&] {
    el::CapturePartial total = runCapture(data, 0, buffer, 0, key);
    return BufferHash{total.hash[0], total.hash[1]};
  });
}

void DeviceChecks::poison(CUdeviceptr data, uint64_t bytes, uint64_t seed) {
  withContext("poisoning " + std::to_string(bytes) + " bytes", [&] {
    uint64_t words = std::max<uint64_t>(bytes / 8, 1);
    launch(poisonKernel, words, {&data, &bytes, &seed});
    // Ordered before the runner's next launch: the legacy default stream
    // synchronizes with the runners' blocking streams.
  });
}

DeviceComparison DeviceChecks::compare(const DeviceCopy &expected, CUdeviceptr got,
                                       const BufferSpec &buffer,
                                       const Tolerance &tolerance, CUdeviceptr other) {
  return withContext("comparing output '" + buffer.name + "'", [&] {
    if (other)
      CU_CHECK(driver, cuMemsetD8, counter, 0xFF, sizeof(uint64_t));
    uint64_t count = buffer.numElements();
    uint32_t kind = uint32_t(buffer.dtype), exact = tolerance.exact;
    double rtol = tolerance.rtol, atol = tolerance.atol * expected.scale;
    CUdeviceptr store = expected.store;
    uint64_t key = expected.key;
    CUdeviceptr out = partials, first = counter;
    unsigned blocks = launch(compareKernel, count,
                             {&store, &key, &got, &count, &kind, &rtol, &atol, &exact, &out,
                              &other, &first});
    std::vector<el::ComparePartial> parts(blocks);
    CU_CHECK(driver, cuMemcpyDtoH, parts.data(), partials,
             parts.size() * sizeof(el::ComparePartial));
    el::ComparePartial total;
    for (const el::ComparePartial &part : parts)
      el::combine(total, part);
    DeviceComparison result;
    Comparison &c = result.comparison;
    c.numElements = count;
    setVerdict(c, total);
    c.scale = tolerance.exact ? 0 : expected.scale;
    result.gotBits = total.gotBits;
    result.gotHash = {total.hash[0], total.hash[1]};
    if (other) {
      uint64_t index = readCounter();
      if (index != ~uint64_t(0))
        result.otherDifference = index;
    }
    return result;
  });
}

std::optional<uint64_t> DeviceChecks::findDifference(CUdeviceptr a, uint64_t keyA,
                                                     bool maskedA, CUdeviceptr b,
                                                     const BufferSpec &buffer) {
  return withContext("comparing buffer '" + buffer.name + "' bitwise", [&] {
    CU_CHECK(driver, cuMemsetD8, counter, 0xFF, sizeof(uint64_t));
    uint64_t count = buffer.numElements();
    uint32_t size = getInfo(buffer.dtype).size, masked = maskedA;
    CUdeviceptr out = counter;
    launch(firstDifferenceKernel, count, {&a, &keyA, &masked, &b, &count, &size, &out});
    uint64_t first = readCounter();
    return first == ~uint64_t(0) ? std::nullopt : std::optional<uint64_t>(first);
  });
}

std::optional<uint64_t> DeviceChecks::firstDifference(CUdeviceptr a, CUdeviceptr b,
                                                      const BufferSpec &buffer) {
  return findDifference(a, 0, false, b, buffer);
}

std::optional<uint64_t> DeviceChecks::firstDifference(const DeviceCopy &copy,
                                                      CUdeviceptr data,
                                                      const BufferSpec &buffer) {
  return findDifference(copy.store, copy.key, true, data, buffer);
}

double DeviceChecks::readElement(CUdeviceptr data, const BufferSpec &buffer,
                                 uint64_t index) {
  unsigned size = getInfo(buffer.dtype).size;
  uint8_t bytes[8] = {};
  withContext("reading buffer '" + buffer.name + "'", [&] {
    CU_CHECK(driver, cuMemcpyDtoH, bytes, data + index * size, size);
  });
  return decodeFloat(buffer.dtype, bytes);
}

double DeviceChecks::readCaptured(const DeviceCopy &output, const BufferSpec &buffer,
                                  uint64_t index) {
  unsigned size = getInfo(buffer.dtype).size;
  uint64_t bits = 0;
  withContext("reading the reference's '" + buffer.name + "'", [&] {
    CU_CHECK(driver, cuMemcpyDtoH, &bits, output.store + index * size, size);
  });
  bits ^= el::maskOf(output.key, index); // little-endian: the low bytes count
  return decodeFloat(buffer.dtype, &bits);
}
