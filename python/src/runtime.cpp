//===- runtime.cpp - cuda_agent._runtime: plans run on torch's memory ------===//
//
// The package's native extension (nanobind). It reads and validates a
// whole-program bundle with the runner's own plan parser (no GPU needed, so
// the signature checks work anywhere), hands out its constants' bytes (the
// weights, uploaded once per device by the Python side) and runs it with
// PlanExecutor on device addresses and a stream that the Python side takes
// from torch tensors and torch's current stream. It needs no MLIR and no
// LLVM: the CUDA driver is dlopen'ed on the first run.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <memory>

namespace nb = nanobind;
using namespace mlir::cuda_agent;

namespace {

/// One loaded bundle: its plan, and per device the loaded kernels.
class Program {
public:
  explicit Program(const std::string &bundle) : plan(loadPlan(bundle)) {}

  /// Per buffer (views resolved): name, shape, dtype, role and size in bytes.
  nb::list buffers() const {
    nb::list list;
    for (const BufferSpec &buffer : plan.buffers) {
      nb::dict entry;
      entry["name"] = buffer.name;
      entry["shape"] = nb::cast(buffer.shape);
      entry["dtype"] = std::string(getInfo(buffer.dtype).name);
      entry["role"] = std::string(getRoleName(buffer.role));
      entry["bytes"] = buffer.numBytes();
      list.append(entry);
    }
    return list;
  }

  /// The bytes of constant buffer `index` (a program's weights, from the
  /// bundle's data file), for the caller to upload once per device as
  /// cuda-agent-run does.
  nb::bytes constantData(size_t index) const {
    if (index >= plan.buffers.size() || plan.buffers[index].role != Role::Constant)
      throw nb::index_error("not a constant buffer");
    const std::vector<uint8_t> &data = plan.buffers[index].data;
    return nb::bytes(reinterpret_cast<const char *>(data.data()), data.size());
  }

  size_t numSteps() const { return plan.launches.size(); }
  std::string chip() const { return plan.chip; }

  /// Enqueues the plan on `stream` of device `ordinal`, loading its kernels
  /// into that device's primary context the first time.
  void enqueue(int ordinal, const std::vector<uint64_t> &addresses,
               uint64_t stream) {
    if (!driver)
      driver = std::make_unique<Driver>();
    std::unique_ptr<PlanExecutor> &executor = executors[ordinal];
    if (!executor)
      executor = std::make_unique<PlanExecutor>(*driver, plan, ordinal);
    std::vector<CUdeviceptr> pointers(addresses.begin(), addresses.end());
    nb::gil_scoped_release release;
    executor->enqueue(pointers, reinterpret_cast<CUstream>(stream));
  }

private:
  Plan plan;
  std::unique_ptr<Driver> driver;
  std::map<int, std::unique_ptr<PlanExecutor>> executors;
};

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "Runs cuda-agent whole-program bundles on caller-owned device memory.";
  nb::class_<Program>(m, "Program")
      .def(nb::init<const std::string &>(), nb::arg("bundle"),
           "Reads and validates BUNDLE/plan.json and the objects it names.")
      .def_prop_ro("buffers", &Program::buffers,
                   "Per buffer: name, shape, dtype, role, bytes.")
      .def("constant_data", &Program::constantData, nb::arg("index"),
           "The bytes of constant buffer INDEX (its data file's contents).")
      .def_prop_ro("num_steps", &Program::numSteps)
      .def_prop_ro("chip", &Program::chip)
      .def("enqueue", &Program::enqueue, nb::arg("device"), nb::arg("addresses"),
           nb::arg("stream"),
           "Enqueues every launch and copy on STREAM; one address per buffer.");
}
