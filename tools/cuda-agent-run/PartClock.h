//===- PartClock.h - Where the verifier's time goes --------------*- C++ -*-===//
//
// PartClock sums the wall time of named parts of a phase (the verifier's
// trials and its timing loop), so that the result JSON can say where the
// verifier's own time goes beyond the kernels ("trial_phase_s",
// "timing_phase_s"). A part that throws is counted up to the throw.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_PARTCLOCK_H
#define CUDA_AGENT_RUN_PARTCLOCK_H

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace mlir::cuda_agent {

class PartClock {
public:
  /// Runs `body`, adding its wall time to part `name`.
  template <typename Body>
  auto measure(const char *name, Body &&body) -> decltype(body()) {
    Scope scope{*this, name, std::chrono::steady_clock::now()};
    return body();
  }
  /// Seconds per part, in the order the parts were first measured.
  const std::vector<std::pair<std::string, double>> &getTotals() const { return totals; }

private:
  struct Scope {
    PartClock &clock;
    const char *name;
    std::chrono::steady_clock::time_point start;
    ~Scope() {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (auto &[part, total] : clock.totals)
        if (part == name) {
          total += seconds;
          return;
        }
      clock.totals.push_back({name, seconds});
    }
  };
  std::vector<std::pair<std::string, double>> totals;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_PARTCLOCK_H
