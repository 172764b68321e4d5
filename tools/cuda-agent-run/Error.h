//===- Error.h - Runner errors and exit codes -------------------*- C++ -*-===//
//
// The one exception type of cuda-agent-run. Every failure the runner can
// report travels as a RunnerError carrying the process exit code that belongs
// to it, so that main() has a single place that turns failures into the JSON
// error summary, the stderr message and the exit status.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_ERROR_H
#define CUDA_AGENT_RUN_ERROR_H

#include <stdexcept>
#include <string>

namespace mlir::cuda_agent {

/// Process exit codes of cuda-agent-run.
enum ExitCode : int {
  kExitOk = 0,
  kExitIo = 1,     ///< a file could not be written
  kExitUsage = 2,  ///< bad command line, bad plan or bad input file
  kExitCuda = 3,   ///< a driver call failed (no driver, no GPU, kernel fault)
  kExitChecks = 4, ///< the plan ran but wrote outside a buffer or its inputs
};

/// A failure with the exit code it maps to. The message is a full sentence
/// fragment without a trailing period, e.g. "plan.json: launch 0 (k0): ...".
class RunnerError : public std::runtime_error {
public:
  RunnerError(ExitCode code, const std::string &message)
      : std::runtime_error(message), code(code) {}
  ExitCode exitCode() const { return code; }

private:
  ExitCode code;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_ERROR_H
