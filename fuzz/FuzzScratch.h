//===- FuzzScratch.h - A scratch directory for file-reading fuzzers -*- C++ -*-===//
//
// Several readers under test take a path, not bytes (the runner reads
// plan.json from a bundle, jobs.json from a jobs directory, a .npy file).
// Their fuzzers write each input into one directory made once per process
// under $TMPDIR (else /dev/shm, else /tmp) and removed at exit. Plain POSIX,
// so that both the -fno-exceptions compiler side and the -fexceptions
// runner side use it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_FUZZ_FUZZSCRATCH_H
#define CUDA_AGENT_FUZZ_FUZZSCRATCH_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cuda_agent_fuzz {

/// The process's scratch directory, made on first use, removed at exit.
inline const std::string &scratchDir() {
  static const std::string dir = [] {
    // Memory-backed when there is one: a file per input is written.
    const char *tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp
                       : access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                        : "/tmp";
    std::string pattern = base + "/cuda-agent-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] {
      nftw(
          scratchDir().c_str(),
          [](const char *path, const struct stat *, int, struct FTW *) {
            return std::remove(path);
          },
          16, FTW_DEPTH | FTW_PHYS);
    });
    return pattern;
  }();
  return dir;
}

/// Writes `size` bytes to `path` (relative to the scratch directory, its
/// parent made first when `makeParent`); returns the full path.
inline std::string writeScratchFile(const std::string &path,
                                    const uint8_t *data, size_t size,
                                    bool makeParent = false) {
  std::string full = scratchDir() + "/" + path;
  if (makeParent) {
    std::string parent = full.substr(0, full.rfind('/'));
    mkdir(parent.c_str(), 0700);
  }
  FILE *file = std::fopen(full.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size || std::fclose(file)) {
    std::perror(full.c_str());
    std::abort();
  }
  return full;
}

/// Stops the run when an invariant of the reader under test does not hold.
inline void require(bool condition, const char *what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

} // namespace cuda_agent_fuzz

#endif // CUDA_AGENT_FUZZ_FUZZSCRATCH_H
