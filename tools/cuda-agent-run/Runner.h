//===- Runner.h - Launch plan execution on the GPU --------------*- C++ -*-===//
//
// PlanRunner owns everything a plan needs on the device: the primary context
// of one GPU, a stream, the loaded modules and kernel handles, and one
// allocation per buffer with guard bytes on both sides. It runs the launches
// once with a check after each (so a fault names its launch), or many times
// under CUDA events with an L2 flush between runs to time the plan.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_RUNNER_H
#define CUDA_AGENT_RUN_RUNNER_H

#include "Driver.h"
#include "Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// What --probe and the run summary say about a device.
struct DeviceInfo {
  std::string name;
  std::string arch; ///< "sm_90"
  uint64_t memoryBytes = 0;
  int l2Bytes = 0;
};

/// Returns the properties of device `ordinal`. cuInit must have succeeded.
DeviceInfo queryDevice(const Driver &driver, int ordinal);

/// Statistics over the per-run times of a timed plan, in microseconds.
struct TimingStats {
  double medianUs, minUs, maxUs, p10Us, p90Us, meanUs;
  int runs;
};

/// Summarizes per-run times (microseconds, at least one).
TimingStats summarizeTimes(std::vector<double> timesUs);

/// Device blocks that runners give back, scrubbed, instead of freeing them,
/// and take again instead of allocating: the verifier reallocates every
/// buffer of both plans every trial, and a cuMemAlloc/cuMemFree pair of a
/// multi-GB block costs milliseconds. A block in the pool holds only the
/// scrub pattern; a runner never takes back a block it just gave up.
class BlockPool {
public:
  explicit BlockPool(const Driver &driver) : driver(driver) {}
  ~BlockPool();
  BlockPool(const BlockPool &) = delete;
  BlockPool &operator=(const BlockPool &) = delete;

  /// A block of exactly `bytes` that is not in `avoid`, from the pool if it
  /// has one (the oldest given back first), else newly allocated; when the
  /// device is out of memory, after freeing the pool's idle blocks.
  CUdeviceptr take(uint64_t bytes, const std::vector<CUdeviceptr> &avoid);
  /// Takes back a block of `bytes` that the caller has scrubbed.
  void give(CUdeviceptr block, uint64_t bytes);

private:
  const Driver &driver;
  std::vector<std::pair<CUdeviceptr, uint64_t>> blocks;
};

class PlanRunner {
public:
  /// Initializes the driver, makes device `ordinal`'s primary context current,
  /// loads every object and kernel of `plan` and allocates every buffer. Throws
  /// RunnerError(kExitCuda); a module or kernel failure names the launch.
  /// With `allocate` false it starts without buffers, as after release():
  /// the verifier reallocates before every run, so blocks allocated here
  /// (and the fill of their every byte) would be wasted.
  PlanRunner(const Driver &driver, const Plan &plan, int ordinal, bool allocate = true);
  ~PlanRunner();
  PlanRunner(const PlanRunner &) = delete;
  PlanRunner &operator=(const PlanRunner &) = delete;

  const DeviceInfo &getDevice() const { return device; }

  /// The device address the launches use for buffer `index`: past its
  /// leading guard, or the address bindBuffer() gave. Valid until the next
  /// reallocate() or release(); for the verifier's own kernels.
  CUdeviceptr getBufferPointer(size_t index) const;

  /// Points the launches' argument `index` at `data` (memory the caller owns,
  /// with its own guards) instead of the buffer's own allocation, until
  /// unbindBuffers() or reallocate(). The verifier times runs on input sets
  /// kept resident this way instead of copying them in before every run.
  void bindBuffer(size_t index, CUdeviceptr data);
  /// Points every launch argument back at the buffers' own allocations.
  void unbindBuffers();

  /// Copies `bytes` (exactly the buffer's size) into buffer `index`.
  void upload(size_t index, const std::vector<uint8_t> &bytes);
  /// Sets every byte of buffer `index` to `value`.
  void fill(size_t index, uint8_t value);
  /// Copies buffer `index` back to the host.
  std::vector<uint8_t> download(size_t index);
  /// Returns the names of the buffers whose guard bytes changed, with the
  /// side ("res0 (after)").
  std::vector<std::string> findGuardViolations();

  /// Gives every buffer a new allocation (guards set, contents unspecified:
  /// the caller fills every buffer before a run) and scrubs, then frees, the
  /// old ones (if any: none after release()). The new blocks are allocated
  /// while the old ones are still held, so no buffer gets its own previous
  /// block back, and nothing freed still holds data from a run. With
  /// `exactAlignment` (the offset trial's 64) every buffer starts at an
  /// address aligned to exactly that (BufferPlacement.h) instead of past the
  /// guard at the block's own (256-byte or more) alignment.
  void reallocate(uint64_t exactAlignment = 0);
  /// Scrubs, then frees, every buffer; the runner has none until the next
  /// reallocate(). One pass where scrub() and a later reallocate() make two.
  void release();
  /// From now on reallocate() takes its blocks from `pool` and scrubbed
  /// blocks go back to it instead of being freed; the blocks the runner gave
  /// up last are never among those it takes.
  void setBlockPool(BlockPool *pool) { this->pool = pool; }
  /// Overwrites every buffer, guards included, with the guard pattern (0xA5),
  /// so that a later allocation recycling the block finds no results in it.
  void scrub();

  /// Runs every launch once in order, synchronizing after each one so that an
  /// asynchronous fault is reported with its launch index and kernel.
  void runChecked();

  /// Runs the plan `warmup` times, then `runs` times each bracketed by events
  /// (the first launch to the last), flushing L2 before every run outside the
  /// timed interval.
  TimingStats time(int warmup, int runs);

  /// One timed run as in time(): L2 flush, then the launches between two
  /// events. Returns microseconds. Lets callers interleave two plans.
  double timeOnce();

private:
  /// A buffer's device block: the buffer starts `lead` bytes in; the bytes
  /// before and after it are guards.
  struct Block {
    CUdeviceptr base = 0;
    uint64_t bytes = 0, lead = 0;
  };
  std::vector<Block> allocateBuffers(bool guardsOnly, uint64_t exactAlignment = 0);
  void releaseBuffers(const std::vector<Block> &blocks);
  /// The address of buffer `index` in its own block.
  CUdeviceptr getOwnData(size_t index) const;
  void bindArgs();
  void enqueueLaunch(size_t index);
  void flushL2();
  std::string describeLaunch(size_t index) const;

  const Driver &driver;
  const Plan &plan;
  DeviceInfo device;
  CUdevice cuDevice = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;       ///< one per launch
  std::vector<Block> allocations;          ///< one per buffer, with guards
  std::vector<CUdeviceptr> bound;          ///< per buffer: bindBuffer()'s, or 0
  BlockPool *pool = nullptr;               ///< setBlockPool()
  std::vector<CUdeviceptr> givenUp;        ///< the blocks released last
  std::vector<std::vector<CUdeviceptr>> argValues; ///< per launch
  std::vector<std::vector<void *>> argPointers;    ///< into argValues
  CUdeviceptr flushBuffer = 0; ///< L2 flush scratch, allocated by time()
  size_t flushBytes = 0;
  CUevent startEvent = nullptr, stopEvent = nullptr; ///< created by time()
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_RUNNER_H
