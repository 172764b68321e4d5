//===- NvrtcCompiler.cpp - NVRTC wrapper ------------------------*- C++ -*-===//
//
// Compiles a candidate kernel in process with NVRTC. NVRTC 13 gives both the
// cubin and the PTX from one compile for a real arch (`-arch=sm_90`); should a
// build give no PTX, a second compile for the virtual arch (`compute_90`)
// supplies it, so no nvJitLink step is needed. Everything the agent sends is
// checked before NVRTC sees it (size, headers), because NVRTC will open any
// path it is given and quote the file into its log.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/NvrtcCompiler.h"

#include "cuda-agent/Cuda/IncludeScanner.h"

#include "PtxEntries.h"
#include "cuda-agent/Cuda/ModuleState.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <nvrtc.h>

#include <optional>

#ifndef CUDA_AGENT_CUDA_HOME
#define CUDA_AGENT_CUDA_HOME "/usr/local/cuda"
#endif

using namespace mlir::cuda_agent;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// The name NVRTC gives the candidate in its log ("candidate.cu(3): error").
constexpr const char *kSourceName = "candidate.cu";

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The one check of an NVRTC status: success, or an error naming the call.
Error checkNvrtc(nvrtcResult result, StringRef call) {
  if (result == NVRTC_SUCCESS)
    return Error::success();
  return makeError(call + " failed: " + nvrtcGetErrorString(result));
}

/// Cuts `log` to `maxBytes` (at a line end when one is in the second half)
/// and says how much was cut.
std::string trimLog(StringRef log, unsigned maxBytes) {
  log = log.rtrim(StringRef("\0 \t\r\n", 5));
  if (log.size() <= maxBytes)
    return log.str();
  StringRef kept = log.take_front(maxBytes);
  size_t lineEnd = kept.rfind('\n');
  if (lineEnd != StringRef::npos && lineEnd >= maxBytes / 2)
    kept = kept.take_front(lineEnd);
  return (kept + "\n[... " + llvm::Twine(log.size() - kept.size()) + " of " +
          llvm::Twine(log.size()) + " bytes of the NVRTC log cut]")
      .str();
}

/// Owns one nvrtcProgram.
class Program {
public:
  ~Program() {
    if (program)
      nvrtcDestroyProgram(&program);
  }

  Error create(StringRef source) {
    // NVRTC reads a C string; the source was checked to hold no NUL byte.
    sourceCopy = source.str();
    return checkNvrtc(nvrtcCreateProgram(&program, sourceCopy.c_str(),
                                         kSourceName, 0, nullptr, nullptr),
                      "nvrtcCreateProgram");
  }

  /// Compiles; a compile error is not an Error here, it is `compiled` false
  /// with the log to show.
  Error compile(llvm::ArrayRef<std::string> flags, bool &compiled) {
    std::vector<const char *> argv;
    for (const std::string &flag : flags)
      argv.push_back(flag.c_str());
    nvrtcResult result =
        nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
    compiled = result == NVRTC_SUCCESS;
    if (result == NVRTC_ERROR_COMPILATION)
      return Error::success();
    return checkNvrtc(result, "nvrtcCompileProgram");
  }

  Expected<std::string> getLog() {
    return getOutput(nvrtcGetProgramLogSize, nvrtcGetProgramLog,
                     "nvrtcGetProgramLog");
  }
  Expected<std::string> getPtx() {
    return getOutput(nvrtcGetPTXSize, nvrtcGetPTX, "nvrtcGetPTX");
  }
  Expected<std::string> getCubin() {
    return getOutput(nvrtcGetCUBINSize, nvrtcGetCUBIN, "nvrtcGetCUBIN");
  }

private:
  using SizeFn = nvrtcResult (*)(nvrtcProgram, size_t *);
  using DataFn = nvrtcResult (*)(nvrtcProgram, char *);

  /// Reads one NVRTC output; text outputs lose their trailing NUL.
  Expected<std::string> getOutput(SizeFn sizeFn, DataFn dataFn,
                                  StringRef call) {
    size_t size = 0;
    if (Error err = checkNvrtc(sizeFn(program, &size), (call + "Size").str()))
      return std::move(err);
    std::string data(size, '\0');
    if (size != 0)
      if (Error err = checkNvrtc(dataFn(program, data.data()), call))
        return std::move(err);
    if (call != "nvrtcGetCUBIN")
      while (!data.empty() && data.back() == '\0')
        data.pop_back();
    return data;
  }

  nvrtcProgram program = nullptr;
  std::string sourceCopy;
};

/// The NVRTC outputs of one compile.
struct CompileOutput {
  bool compiled = false;
  std::string log;
  std::string ptx;
  std::string cubin;
};

Expected<CompileOutput> runNvrtc(StringRef source,
                                 llvm::ArrayRef<std::string> flags,
                                 bool wantCubin) {
  Program program;
  if (Error err = program.create(source))
    return std::move(err);
  CompileOutput out;
  if (Error err = program.compile(flags, out.compiled))
    return std::move(err);
  Expected<std::string> log = program.getLog();
  if (!log)
    return log.takeError();
  out.log = std::move(*log);
  if (!out.compiled)
    return out;
  // PTX is optional here: the caller falls back to a virtual-arch compile.
  Expected<std::string> ptx = program.getPtx();
  if (ptx)
    out.ptx = std::move(*ptx);
  else
    llvm::consumeError(ptx.takeError());
  if (wantCubin) {
    Expected<std::string> cubin = program.getCubin();
    if (!cubin)
      return cubin.takeError();
    out.cubin = std::move(*cubin);
  }
  return out;
}

/// Flags that would undo the checks made here; they have fields of their own.
Error checkExtraFlags(llvm::ArrayRef<std::string> flags) {
  static constexpr StringRef kReserved[] = {
      "-I",          "--include-path", "-include-path", "--pre-include",
      "-include",    "-arch",          "--gpu-architecture",
      "-std",        "--std"};
  for (const std::string &flag : flags)
    for (StringRef reserved : kReserved)
      if (StringRef(flag).starts_with(reserved))
        return makeError("extra NVRTC flag '" + flag +
                         "' is not allowed: the arch, language standard and "
                         "include paths are set by CompileOptions");
  return Error::success();
}

/// The include directories NVRTC may search: the toolkit's and its `cccl`.
Expected<std::vector<std::string>> getIncludeDirs(const CompileOptions &options) {
  std::string dir = options.toolkitIncludeDir.empty()
                        ? getDefaultToolkitIncludeDir()
                        : options.toolkitIncludeDir;
  if (!llvm::sys::fs::is_directory(dir))
    return makeError("CUDA toolkit include directory '" + dir +
                     "' does not exist (set CUDA_HOME or "
                     "CompileOptions::toolkitIncludeDir)");
  std::vector<std::string> dirs = {dir};
  llvm::SmallString<256> cccl(dir);
  llvm::sys::path::append(cccl, "cccl");
  if (llvm::sys::fs::is_directory(cccl))
    dirs.push_back(std::string(cccl));
  return dirs;
}

/// True when the ELF image names a section `.text.<name>`.
bool cubinHasKernel(StringRef cubin, StringRef name) {
  std::string section = (".text." + name).str();
  section.push_back('\0');
  return cubin.contains(section);
}

} // namespace

std::string mlir::cuda_agent::getCudaVersion() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string mlir::cuda_agent::getDefaultToolkitIncludeDir() {
  std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME");
  llvm::SmallString<256> dir(home && !home->empty() ? StringRef(*home)
                                                    : CUDA_AGENT_CUDA_HOME);
  llvm::sys::path::append(dir, "include");
  return std::string(dir);
}

Expected<CompiledKernel>
mlir::cuda_agent::compileCandidate(StringRef source,
                                   const CompileOptions &options) {
  StringRef arch = options.arch;
  if (!arch.starts_with("sm_") || arch.size() < 5)
    return makeError("arch '" + arch +
                     "' is not a real GPU arch such as sm_90 (a cubin is "
                     "needed)");
  if (source.size() > options.maxSourceBytes)
    return makeError("candidate rejected: source is " +
                     llvm::Twine(source.size()) + " bytes, over the limit of " +
                     llvm::Twine(options.maxSourceBytes) + " bytes");
  Expected<std::vector<std::string>> includeDirs = getIncludeDirs(options);
  if (!includeDirs)
    return includeDirs.takeError();
  if (Error err = checkCandidateIncludes(source, *includeDirs))
    return makeError("candidate rejected before compiling: " +
                     llvm::toString(std::move(err)));
  if (Error err = checkExtraFlags(options.extraFlags))
    return std::move(err);

  std::vector<std::string> flags = {"--gpu-architecture=" + arch.str(),
                                    "-std=c++17", "--no-source-include"};
  for (const std::string &dir : *includeDirs)
    flags.push_back("--include-path=" + dir);
  flags.insert(flags.end(), options.extraFlags.begin(),
               options.extraFlags.end());

  Expected<CompileOutput> out = runNvrtc(source, flags, /*wantCubin=*/true);
  if (!out)
    return out.takeError();
  std::string log = trimLog(out->log, options.maxLogBytes);
  if (!out->compiled)
    return makeError("NVRTC failed to compile the candidate for " + arch +
                     ":\n" + log);

  CompiledKernel kernel;
  kernel.arch = arch.str();
  kernel.cubin = std::move(out->cubin);
  kernel.ptx = std::move(out->ptx);
  kernel.log = std::move(log);
  if (!StringRef(kernel.cubin).starts_with("\x7f" "ELF"))
    return makeError("NVRTC returned no cubin for " + arch);

  if (kernel.ptx.empty()) {
    // No PTX from the real-arch compile: get it from the virtual arch.
    flags[0] = "--gpu-architecture=compute_" + arch.drop_front(3).str();
    Expected<CompileOutput> virt = runNvrtc(source, flags, /*wantCubin=*/false);
    if (!virt)
      return virt.takeError();
    if (!virt->compiled || virt->ptx.empty())
      return makeError("NVRTC gave no PTX for compute_" + arch.drop_front(3) +
                       ":\n" + trimLog(virt->log, options.maxLogBytes));
    kernel.ptx = std::move(virt->ptx);
  }

  // State that outlives a launch (module-scope .global variables, the device
  // heap) lets a kernel replay remembered answers; rejected before any run.
  std::vector<ModuleStateDecl> state = findModuleState(kernel.ptx);
  if (!state.empty())
    return makeError("candidate rejected: " + describeModuleState(state));

  for (PtxEntry &entry : parsePtxEntries(kernel.ptx))
    if (cubinHasKernel(kernel.cubin, entry.name))
      kernel.entryPoints.push_back(std::move(entry.name));
  if (kernel.entryPoints.empty())
    return makeError("the candidate defines no kernel: declare each entry "
                     "point as extern \"C\" __global__ void NAME(...)");
  return kernel;
}

std::vector<Expected<CompiledKernel>>
mlir::cuda_agent::compileCandidates(llvm::ArrayRef<std::string> sources,
                                    const CompileOptions &options,
                                    unsigned jobs) {
  std::vector<std::string> archs(sources.size(), options.arch);
  return compileCandidates(sources, archs, options, jobs);
}

std::vector<Expected<CompiledKernel>>
mlir::cuda_agent::compileCandidates(llvm::ArrayRef<std::string> sources,
                                    llvm::ArrayRef<std::string> archs,
                                    const CompileOptions &options,
                                    unsigned jobs) {
  assert(archs.size() == sources.size() && "one arch per source");
  // Expected has no default state; fill optionals, then move them out.
  std::vector<std::optional<Expected<CompiledKernel>>> slots(sources.size());
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
    for (size_t i = 0; i < sources.size(); ++i)
      pool.async([&, i] {
        CompileOptions own = options;
        own.arch = archs[i];
        slots[i].emplace(compileCandidate(sources[i], own));
      });
    pool.wait();
  }
  std::vector<Expected<CompiledKernel>> results;
  results.reserve(sources.size());
  for (std::optional<Expected<CompiledKernel>> &slot : slots)
    results.push_back(std::move(*slot));
  return results;
}
