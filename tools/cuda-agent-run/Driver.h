//===- Driver.h - Checked CUDA driver API -----------------------*- C++ -*-===//
//
// The CUDA driver, opened at run time with dlopen("libcuda.so.1") and resolved
// through cuGetProcAddress, so that the runner has no link-time dependency on
// libcuda and `--probe` still answers on a machine without a driver. Every
// call goes through CU_CHECK, which turns a failing CUresult into a
// RunnerError(kExitCuda) naming the call and the driver's error.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_DRIVER_H
#define CUDA_AGENT_RUN_DRIVER_H

#include "Error.h"

#include <cuda.h>

#include <string>

namespace mlir::cuda_agent {

// Every driver entry point the runner uses besides cuGetErrorName and
// cuGetErrorString (which are looked up first, to describe failures). The names are the unversioned API
// names; cuda.h maps some to versioned symbols (cuMemAlloc -> cuMemAlloc_v2),
// and cuGetProcAddress returns the version matching this header's CUDA_VERSION.
#define CUDA_AGENT_DRIVER_FUNCTIONS(X)                                         \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

/// The driver's entry points as function pointers, one member per API name.
class Driver {
public:
  /// Opens libcuda.so.1 and resolves every entry point. Does not call cuInit.
  /// Throws RunnerError(kExitCuda) when the library or a symbol is missing.
  Driver();

#define CUDA_AGENT_DECLARE(fn) decltype(&::fn) fn = nullptr;
  CUDA_AGENT_DECLARE(cuGetErrorName)
  CUDA_AGENT_DECLARE(cuGetErrorString)
  CUDA_AGENT_DRIVER_FUNCTIONS(CUDA_AGENT_DECLARE)
#undef CUDA_AGENT_DECLARE

  /// Returns "CUDA_ERROR_NAME (description)" for `result`.
  std::string describe(CUresult result) const;

  /// Throws RunnerError(kExitCuda) "`call`: CUDA_ERROR_NAME (description)"
  /// unless `result` is CUDA_SUCCESS.
  void check(CUresult result, const char *call) const;
};

/// Readies a loaded kernel for launches with `sharedBytes` of dynamic shared
/// memory: rejects more than the device's opt-in limit `sharedLimit` and opts
/// in to `sharedBytes` whenever there are any (as MLIR's runtime does). It
/// does not opt in to clusters beyond CUDA's portable 8 blocks: neither do
/// MLIR's gpu.launch_func nor IREE, where a verified kernel ends up, so such
/// a kernel fails its launch here too.
void prepareFunction(const Driver &driver, CUfunction function,
                     unsigned sharedBytes, int sharedLimit);

/// Calls driver entry point `fn` of `driver` and checks its result, e.g.
/// `CU_CHECK(drv, cuMemAlloc, &ptr, bytes)`.
#define CU_CHECK(driver, fn, ...) (driver).check((driver).fn(__VA_ARGS__), #fn)

/// Runs `body`; a RunnerError escaping it gets `context` and ": " prepended,
/// e.g. "launch 2 (softmax_kernel): cuStreamSynchronize: ...".
template <typename Body>
auto withContext(const std::string &context, Body &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const RunnerError &error) {
    throw RunnerError(error.exitCode(), context + ": " + error.what());
  }
}

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_DRIVER_H
