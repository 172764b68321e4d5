//===- Driver.cpp - Checked CUDA driver API ---------------------*- C++ -*-===//
//
// Loads the driver library and resolves the entry points listed in Driver.h.
// Only cuGetProcAddress and the two error-describing functions (whose ABI
// never changed) are looked up with dlsym; everything else comes from the
// driver itself, which hands out the ABI version this header expects.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <dlfcn.h>

using namespace mlir::cuda_agent;

Driver::Driver() {
  // Never dlclose'd: the driver stays loaded for the life of the process.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    throw RunnerError(kExitCuda, std::string("cannot load the CUDA driver "
                                             "(libcuda.so.1): ") +
                                     (reason ? reason : "unknown reason"));
  }
  // cuGetProcAddress_v2 exists since CUDA 12.5; cuda.h maps the name to it.
  auto getProcAddress = reinterpret_cast<decltype(&::cuGetProcAddress)>(
      dlsym(library, "cuGetProcAddress_v2"));
  cuGetErrorName = reinterpret_cast<decltype(cuGetErrorName)>(
      dlsym(library, "cuGetErrorName"));
  cuGetErrorString = reinterpret_cast<decltype(cuGetErrorString)>(
      dlsym(library, "cuGetErrorString"));
  if (!getProcAddress || !cuGetErrorName || !cuGetErrorString)
    throw RunnerError(kExitCuda, "the CUDA driver is too old: "
                                 "cuGetProcAddress_v2 is missing (need a "
                                 "CUDA 12.5 or newer driver)");

  auto resolve = [&](const char *name, void **slot) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult result = getProcAddress(name, slot, CUDA_VERSION,
                                     CU_GET_PROC_ADDRESS_DEFAULT, &status);
    check(result, (std::string("cuGetProcAddress(") + name + ")").c_str());
    if (status != CU_GET_PROC_ADDRESS_SUCCESS || !*slot)
      throw RunnerError(kExitCuda, std::string("the CUDA driver lacks ") +
                                       name + " (query status " +
                                       std::to_string(int(status)) + ")");
  };
#define CUDA_AGENT_RESOLVE(fn) resolve(#fn, reinterpret_cast<void **>(&fn));
  CUDA_AGENT_DRIVER_FUNCTIONS(CUDA_AGENT_RESOLVE)
#undef CUDA_AGENT_RESOLVE
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    // The stub cannot describe its own error code.
    name = "CUDA_ERROR_STUB_LIBRARY";
    text = "libcuda.so.1 is the toolkit's link stub, not a real driver";
  }
  if (!name && (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name))
    name = "unknown CUresult";
  if (!text && (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text))
    text = "no description";
  return std::string(name) + " (" + text + ", code " +
         std::to_string(int(result)) + ")";
}

void Driver::check(CUresult result, const char *call) const {
  if (result != CUDA_SUCCESS)
    throw RunnerError(kExitCuda, std::string(call) + ": " + describe(result));
}

void mlir::cuda_agent::prepareFunction(const Driver &driver,
                                       CUfunction function,
                                       unsigned sharedBytes, int sharedLimit) {
  if (sharedBytes > unsigned(sharedLimit))
    throw RunnerError(kExitCuda, "shared_bytes " + std::to_string(sharedBytes) +
                                     " exceeds the device limit of " +
                                     std::to_string(sharedLimit) +
                                     " bytes per block");
  // Opted in whenever there is any, as MLIR's runtime (mgpuLaunchKernel)
  // does for the lowered program: a kernel's static shared memory plus
  // dynamic bytes up to 48 KB may pass 48 KB, which needs the opt-in.
  if (sharedBytes > 0)
    CU_CHECK(driver, cuFuncSetAttribute, function,
             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(sharedBytes));
}
