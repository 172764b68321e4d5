//===- DeviceChecks.h - The verifier's work done on the GPU -----*- C++ -*-===//
//
// DeviceChecks runs the verifier's embedded kernels (DeviceKernels.cu) in the
// current context, so that a trial moves no buffer through the host: inputs
// are generated in place from the seed, an input is checked by regenerating
// it, a reference output is captured into a masked device copy (with its
// scale and hash), and a candidate output is compared against that copy.
// Every call returns a small summary; the host reads back nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_DEVICECHECKS_H
#define CUDA_AGENT_RUN_DEVICECHECKS_H

#include "Driver.h"
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

/// A reference output held on the device for the comparisons of one trial.
struct CapturedOutput {
  CUdeviceptr store = 0; ///< the output XOR a keyed mask
  uint64_t key = 0;
  double scale = 0; ///< largest finite |element| (floats)
  BufferHash hash{};
};

/// The comparison of a candidate output with a captured reference output.
struct DeviceComparison {
  Comparison comparison;  ///< as compareElements() would report it
  uint64_t gotBits = 0;   ///< raw bits of the candidate's element at `worst`
  BufferHash gotHash{};   ///< hash of the candidate's output
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

  /// Fills `buffer`'s elements at `data` with the stream generateInput()
  /// gives for (`seed`, `bufferIndex`, `distribution`).
  void generate(CUdeviceptr data, const BufferSpec &buffer, uint64_t seed,
                size_t bufferIndex, Distribution distribution);
  /// The number of elements at `data` that differ from what generate() put
  /// there.
  uint64_t countChanged(CUdeviceptr data, const BufferSpec &buffer, uint64_t seed,
                        size_t bufferIndex, Distribution distribution);

  /// Copies `buffer`'s output at `data` into `into.store` (allocated by the
  /// caller, the buffer's size) masked with a fresh random key; fills scale
  /// and hash.
  void capture(CUdeviceptr data, const BufferSpec &buffer, CapturedOutput &into);
  /// Hashes `buffer`'s elements at `data`.
  BufferHash hash(CUdeviceptr data, const BufferSpec &buffer);
  /// Compares the candidate output at `got` with `expected` under `tolerance`.
  DeviceComparison compare(const CapturedOutput &expected, CUdeviceptr got,
                           const BufferSpec &buffer, const Tolerance &tolerance);
  /// The flat index of the first element where `a` and `b` differ bitwise.
  std::optional<uint64_t> firstDifference(CUdeviceptr a, CUdeviceptr b,
                                          const BufferSpec &buffer);
  /// Reads element `index` of `buffer` at `data` as a double (decodeFloat).
  double readElement(CUdeviceptr data, const BufferSpec &buffer, uint64_t index);
  /// Reads element `index` of a captured output.
  double readCaptured(const CapturedOutput &output, const BufferSpec &buffer,
                      uint64_t index);

private:
  void launch(CUfunction function, uint64_t count, std::vector<void *> args);
  uint64_t readCounter();

  const Driver &driver;
  CUmodule module = nullptr;
  CUfunction generateFn = nullptr, countChangedFn = nullptr, captureFn = nullptr,
             compareFn = nullptr, firstDifferenceFn = nullptr;
  unsigned maxBlocks = 0;
  CUdeviceptr counter = 0;  ///< one u64 for the atomic kernels
  CUdeviceptr partials = 0; ///< one partial summary per block
  std::vector<std::pair<CUdeviceptr, uint64_t>> owned;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_DEVICECHECKS_H
