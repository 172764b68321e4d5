//===- Child.h - A child process with a watchdog ----------------*- C++ -*-===//
//
// Verification runs every candidate in a child process: a faulting kernel
// leaves its CUDA context unusable and a looping one never returns, so the
// parent (which never touches the driver) must be able to give up on a child
// and carry on with the next. runChild() starts a program with its stdout on a
// pipe, collects that output, and kills the child with SIGKILL when it has
// not exited within the timeout. The child also gets SIGKILL if the parent
// dies first.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_CHILD_H
#define CUDA_AGENT_RUN_CHILD_H

#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// How a child ended and what it printed on stdout.
struct ChildResult {
  enum class Ending {
    Exited,   ///< exited on its own; see exitCode
    Signaled, ///< killed by a signal it did not get from the watchdog
    TimedOut, ///< killed by the watchdog
  };
  Ending ending = Ending::Exited;
  int exitCode = 0; ///< when Exited
  int signal = 0;   ///< when Signaled
  double timeoutSeconds = 0;
  std::string output; ///< everything written to stdout

  /// "timed out after 20 s (killed)", "crashed with signal 11 (Segmentation
  /// fault)", "exited with code 3".
  std::string describe() const;
};

/// Runs `argv` (argv[0] is the program path; it is executed directly, no
/// PATH search) with stdin from /dev/null, stdout captured and stderr
/// inherited. Kills it with SIGKILL after `timeoutSeconds`. Throws
/// RunnerError(kExitIo) when the process cannot be started.
ChildResult runChild(const std::vector<std::string> &argv, double timeoutSeconds);

/// The path of the running executable (/proc/self/exe resolved), for
/// starting the runner as its own child.
std::string getSelfExecutable();

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_CHILD_H
