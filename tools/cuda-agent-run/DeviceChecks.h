//===- DeviceChecks.h - The verifier's work done on the GPU -----*- C++ -*-===//
//
// DeviceChecks runs the verifier's embedded kernels (DeviceKernels.cu) in the
// current context, so that a trial moves no buffer through the host: inputs
// are generated once per trial from the seed into masked device copies,
// unmasked into each run's buffers and compared with them after the run; a
// reference output is captured into a masked copy (with its scale and hash),
// and a candidate output is compared against that copy; outputs are
// poisoned with random bytes by a kernel.
// Every call returns a small summary; the host reads back nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_DEVICECHECKS_H
#define CUDA_AGENT_RUN_DEVICECHECKS_H

#include "Driver.h"
#include "ElementOps.h"
#include "Inputs.h"
#include "Plan.h"
#include "Tolerance.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::cuda_agent {

/// 128 bits of an order-free hash of a buffer's elements (ElementOps.h).
using BufferHash = std::array<uint64_t, 2>;

/// A buffer's contents kept by the verifier on the device, XORed with a mask
/// drawn from a random key, so that no plain copy of an input or of the
/// reference's answer sits in device memory for a candidate to find.
struct DeviceCopy {
  CUdeviceptr store = 0; ///< allocated by the caller, the buffer's size
  uint64_t key = 0;
  double scale = 0; ///< capture(): largest finite |element| (floats)
  BufferHash hash{}; ///< capture(): hash of the plain contents
};

/// The comparison of a candidate output with a captured reference output.
struct DeviceComparison {
  Comparison comparison;  ///< as compareElements() would report it
  uint64_t gotBits = 0;   ///< raw bits of the candidate's element at `worst`
  BufferHash gotHash{};   ///< hash of the candidate's output
  /// With compare()'s `other`: the first index where it differs bitwise
  /// from the candidate's output (found in the same pass).
  std::optional<uint64_t> otherDifference;
};

class DeviceChecks {
public:
  /// Loads the embedded kernels into the current context (that of device
  /// `ordinal`, made current by a PlanRunner). Throws RunnerError(kExitCuda).
  DeviceChecks(const Driver &driver, int ordinal);
  ~DeviceChecks();
  DeviceChecks(const DeviceChecks &) = delete;
  DeviceChecks &operator=(const DeviceChecks &) = delete;

  /// Device memory owned by this object, freed (after a scrub) with it.
  CUdeviceptr allocate(uint64_t bytes);

  /// Fills `into.store` with `buffer`'s elements of the stream generateInput()
  /// gives for (`seed`, `bufferIndex`, `distribution`), masked with a fresh
  /// key.
  void generate(DeviceCopy &into, const BufferSpec &buffer, uint64_t seed,
                size_t bufferIndex, Distribution distribution);
  /// Writes the plain contents of `copy` to `data`.
  void restore(const DeviceCopy &copy, CUdeviceptr data, const BufferSpec &buffer);
  /// The flat index of the first element where `data` differs from `copy`.
  std::optional<uint64_t> firstDifference(const DeviceCopy &copy, CUdeviceptr data,
                                          const BufferSpec &buffer);

  /// Copies `buffer`'s output at `data` into `into.store` masked with a
  /// fresh key; fills scale and hash.
  void capture(CUdeviceptr data, const BufferSpec &buffer, DeviceCopy &into);
  /// Hashes `buffer`'s elements at `data`; with `key` nonzero a keyed hash
  /// (of the elements XOR the mask of `key`) that a candidate cannot keep
  /// unchanged while changing the buffer, since it does not know the key.
  BufferHash hash(CUdeviceptr data, const BufferSpec &buffer, uint64_t key = 0);
  /// Fills the `bytes` bytes at `data` (8-byte aligned) with random bytes
  /// keyed by `seed` (ElementOps.h's poisonWord), made by a kernel.
  void poison(CUdeviceptr data, uint64_t bytes, uint64_t seed);
  /// A fresh random key (std::random_device): what a candidate cannot guess.
  static uint64_t makeKey();
  /// Compares the candidate output at `got` with `expected` under `tolerance`;
  /// with `other` (a plain buffer like `got`) also finds, in the same pass
  /// over `got`, the first index where `other` differs from it bitwise.
  DeviceComparison compare(const DeviceCopy &expected, CUdeviceptr got,
                           const BufferSpec &buffer, const Tolerance &tolerance,
                           CUdeviceptr other = 0);
  /// The flat index of the first element where `a` and `b` differ bitwise.
  std::optional<uint64_t> firstDifference(CUdeviceptr a, CUdeviceptr b,
                                          const BufferSpec &buffer);
  /// Reads element `index` of `buffer` at `data` as a double (decodeFloat).
  double readElement(CUdeviceptr data, const BufferSpec &buffer, uint64_t index);
  /// Reads element `index` of a captured output.
  double readCaptured(const DeviceCopy &output, const BufferSpec &buffer,
                      uint64_t index);

private:
  /// A kernel and its grid: one wave of as many blocks as fit on the device
  /// at once (the kernels are grid-stride loops).
  struct Kernel {
    CUfunction function = nullptr;
    unsigned maxBlocks = 1;
  };
  Kernel loadKernel(const char *name, int sms);
  /// Launches `kernel` over `count` elements; returns the blocks it got.
  unsigned launch(const Kernel &kernel, uint64_t count, std::vector<void *> args);
  std::optional<uint64_t> findDifference(CUdeviceptr a, uint64_t keyA, bool maskedA,
                                         CUdeviceptr b, const BufferSpec &buffer);
  uint64_t readCounter();
  /// Runs the capture kernel (store 0: hash only) and combines its partials.
  elements::CapturePartial runCapture(CUdeviceptr data, CUdeviceptr store,
                                      const BufferSpec &buffer, uint64_t key,
                                      uint64_t hashKey);

  const Driver &driver;
  CUmodule module = nullptr;
  Kernel generateKernel, unmaskKernel, captureKernel, compareKernel, firstDifferenceKernel,
      poisonKernel;
  CUdeviceptr counter = 0;  ///< one u64 for the atomic kernels
  CUdeviceptr partials = 0; ///< one partial summary per block
  std::vector<std::pair<CUdeviceptr, uint64_t>> owned;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_DEVICECHECKS_H
