//===- IncludeScannerFuzzer.cpp - Fuzzes the candidate #include check -*- C++ -*-===//
//
// checkCandidateIncludes() stands between a model's source and NVRTC, which
// would read any file it is pointed at. The include directory here is a
// scratch copy of a toolkit's shape (cuda_fp16.h, cuda/std/cstdint) plus a
// symlink out of it. Checked besides the sanitizers, for every accepted
// source: no NUL byte, no carriage return without a newline, and, when the
// source holds no comment, quote or backslash that could hide a line, every
// plain `#include <...>` line names a relative path without `..`.
//
//===----------------------------------------------------------------------===//

#include "FuzzScratch.h"

#include "cuda-agent/Cuda/IncludeScanner.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir::cuda_agent;
using cuda_agent_fuzz::require;
using cuda_agent_fuzz::scratchDir;
using cuda_agent_fuzz::writeScratchFile;

static const std::string &getIncludeDir() {
  static const std::string dir = [] {
    static const uint8_t header[] = "// header\n";
    std::string include = scratchDir() + "/include";
    mkdir(include.c_str(), 0700);
    mkdir((include + "/cuda").c_str(), 0700);
    mkdir((include + "/cuda/std").c_str(), 0700);
    writeScratchFile("include/cuda_fp16.h", header, sizeof(header) - 1);
    writeScratchFile("include/cuda/std/cstdint", header, sizeof(header) - 1);
    std::string outside =
        writeScratchFile("outside.h", header, sizeof(header) - 1);
    if (symlink(outside.c_str(), (include + "/escape.h").c_str()) != 0)
      std::abort();
    return include;
  }();
  return dir;
}

/// The plain-directive oracle (see the file comment).
static void checkPlainIncludes(llvm::StringRef source) {
  if (source.contains("/*") || source.contains("//") ||
      source.find_first_of("\\\"'") != llvm::StringRef::npos)
    return;
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.ltrim(" \t\f\v\r");
    if (!line.consume_front("#"))
      continue;
    line = line.ltrim(" \t\f\v");
    if (!line.consume_front("include"))
      continue;
    line = line.ltrim(" \t\f\v");
    if (!line.consume_front("<"))
      continue;
    llvm::StringRef name = line.take_until([](char c) { return c == '>'; });
    require(!name.starts_with("/") && !name.contains(".."),
            "an accepted source includes an absolute or '..' path");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  if (llvm::Error error = checkCandidateIncludes(source, {getIncludeDir()})) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  require(!source.contains('\0'), "an accepted source holds a NUL byte");
  for (size_t at = source.find('\r'); at != llvm::StringRef::npos;
       at = source.find('\r', at + 1))
    require(at + 1 < source.size() && source[at + 1] == '\n',
            "an accepted source holds a lone carriage return");
  checkPlainIncludes(source);
  return 0;
}
