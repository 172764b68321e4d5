//===- Child.cpp - A child process with a watchdog --------------*- C++ -*-===//
//
// fork + execv with a CLOEXEC pipe for stdout. The parent polls the pipe with
// the time left before the deadline; once stdout is closed it polls waitpid
// until the same deadline. Between fork and exec the child calls only
// async-signal-safe functions.
//
//===----------------------------------------------------------------------===//

#include "Child.h"

#include "Error.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <filesystem>

using namespace mlir::cuda_agent;
using Clock = std::chrono::steady_clock;

std::string ChildResult::describe() const {
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", timeoutSeconds);
  switch (ending) {
  case Ending::TimedOut:
    return std::string("timed out after ") + seconds + " s (killed)";
  case Ending::Signaled:
    return "crashed with signal " + std::to_string(signal) + " (" +
           strsignal(signal) + ")";
  case Ending::Exited:
    break;
  }
  return "exited with code " + std::to_string(exitCode);
}

std::string mlir::cuda_agent::getSelfExecutable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw RunnerError(kExitIo, "cannot resolve /proc/self/exe: " + ec.message());
  return self.string();
}

/// Milliseconds until `deadline`, at least 0, for poll().
static int millisecondsLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - Clock::now());
  return left.count() > 0 ? int(std::min<long long>(left.count(), 1 << 30)) : 0;
}

ChildResult mlir::cuda_agent::runChild(const std::vector<std::string> &argv,
                                       double timeoutSeconds) {
  // Everything the child needs is prepared before fork.
  std::vector<char *> args;
  for (const std::string &arg : argv)
    args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw RunnerError(kExitIo, std::string("pipe2: ") + std::strerror(errno));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    close(fds[0]);
    close(fds[1]);
    throw RunnerError(kExitIo, std::string("fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    // Child: die with the parent; stdout to the pipe; stdin from /dev/null.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(127);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, STDIN_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    execv(args[0], args.data());
    const char message[] = "cuda-agent-run: cannot exec the child runner\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof(message) - 1);
    (void)ignored;
    _exit(127);
  }
  close(fds[1]);

  ChildResult result;
  result.timeoutSeconds = timeoutSeconds;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeoutSeconds));
  bool timedOut = false;
  char buffer[65536];
  for (;;) {
    pollfd fd = {fds[0], POLLIN, 0};
    int ready = poll(&fd, 1, millisecondsLeft(deadline));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0) {
      timedOut = true;
      break;
    }
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; // EOF (or a read error: treat as the end of the output)
    result.output.append(buffer, size_t(n));
  }
  close(fds[0]);

  // Stdout is closed; the child may still be running (or hang in exit).
  if (timedOut)
    kill(pid, SIGKILL);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, timedOut ? 0 : WNOHANG);
    if (done == pid)
      break;
    if (done < 0) {
      if (errno == EINTR)
        continue;
      throw RunnerError(kExitIo, std::string("waitpid: ") + std::strerror(errno));
    }
    if (millisecondsLeft(deadline) == 0) {
      timedOut = true;
      kill(pid, SIGKILL);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (timedOut) {
    result.ending = ChildResult::Ending::TimedOut;
  } else if (WIFSIGNALED(status)) {
    result.ending = ChildResult::Ending::Signaled;
    result.signal = WTERMSIG(status);
  } else {
    result.exitCode = WEXITSTATUS(status);
  }
  return result;
}
