//===- TorchBackendLoader.cpp - Finds and loads the agent=torch module ----===//
//
// agent=torch lives in a module of its own (TorchBackend.h) so that libtorch
// is loaded only by the processes that ask for it: the module is found,
// loaded with dlopen, checked for its ABI key and asked for the agent. It is
// never unloaded (its agents may outlive any caller).
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/TorchBackend.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

using AbiFn = const char *(*)();
using CreateFn = KernelAgent *(*)(const char *, const TorchConfig *);

/// A module loaded (or not) from one path: its factory, or why not.
struct TorchBackend {
  CreateFn create = nullptr;
  std::string error;
};

/// Loads the module at `path` and checks it; the reason names `path` and
/// what dlopen or dlsym said.
TorchBackend loadTorchBackend(const std::string &path) {
  TorchBackend backend;
  // RTLD_NOW: a missing symbol is an error here, not a crash mid-pass.
  // RTLD_LOCAL: the module's libtorch stays out of everyone else's lookups.
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    backend.error = "cannot load the torch backend " + path + ": " +
                    (reason ? reason : "unknown error");
    return backend;
  }
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "cudaAgentTorchBackendAbi"));
  auto create =
      reinterpret_cast<CreateFn>(dlsym(handle, "cudaAgentCreateTorchAgent"));
  if (!abi || !create) {
    backend.error = "cannot load the torch backend " + path +
                    ": not a cuda-agent torch backend (no "
                    "cudaAgentTorchBackendAbi or cudaAgentCreateTorchAgent)";
    return backend;
  }
  std::string expected = getTorchBackendAbi();
  const char *found = abi();
  if (!found || expected != found) {
    backend.error = "the torch backend " + path + " is stale: built for '" +
                    (found ? found : "") + "', this build expects '" +
                    expected + "' (rebuild CudaAgentTorchBackend)";
    return backend;
  }
  backend.create = create;
  return backend;
}

/// Loads each path once per process, failures included.
const TorchBackend &getTorchBackend(const std::string &path) {
  static std::mutex mutex;
  static llvm::StringMap<TorchBackend> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = loaded.try_emplace(path);
  if (inserted)
    it->second = loadTorchBackend(path);
  return it->second;
}

/// Where the module may be: `lib/` beside the `bin/` of the file holding
/// this code (the tool, or the plugin inside a stock mlir-opt) and of the
/// main executable, that directory itself, then the build tree.
std::vector<std::string> getTorchBackendCandidates() {
  static int anchor;
  std::vector<std::string> dirs;
  Dl_info info;
  if (dladdr(&anchor, &info) && info.dli_fname && *info.dli_fname) {
    llvm::SmallString<256> self(info.dli_fname);
    llvm::sys::fs::make_absolute(self);
    dirs.push_back(llvm::sys::path::parent_path(self).str());
  }
  std::string main = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!main.empty())
    dirs.push_back(llvm::sys::path::parent_path(main).str());
  std::vector<std::string> candidates;
  auto add = [&](const llvm::Twine &path) {
    llvm::SmallString<256> text;
    path.toVector(text);
    llvm::sys::path::remove_dots(text, /*remove_dot_dot=*/true);
    if (llvm::find(candidates, text.str()) == candidates.end())
      candidates.push_back(text.str().str());
  };
  for (const std::string &dir : dirs) {
    add(dir + "/../lib/" + kTorchBackendFileName);
    add(dir + "/" + kTorchBackendFileName);
  }
#ifdef CUDA_AGENT_TORCH_BACKEND_BUILD_PATH
  add(CUDA_AGENT_TORCH_BACKEND_BUILD_PATH);
#endif
  return candidates;
}

} // namespace

llvm::Expected<std::unique_ptr<KernelAgent>>
cuda_agent::createTorchAgentFromModule(const TorchConfig &config) {
  std::string path;
  const char *env = std::getenv(kTorchBackendEnv.data());
  if (env && *env) {
    path = env;
  } else {
    std::vector<std::string> candidates = getTorchBackendCandidates();
    for (const std::string &candidate : candidates)
      if (llvm::sys::fs::exists(candidate)) {
        path = candidate;
        break;
      }
    if (path.empty()) {
      std::string looked;
      for (const std::string &candidate : candidates)
        looked += (looked.empty() ? "" : ", ") + candidate;
      return llvm::createStringError(
          "agent=torch is not part of this build: %s not found (looked "
          "for %s; configure with libtorch-dev installed, or "
          "-DCUDA_AGENT_ENABLE_TORCH=ON, or set %s=PATH); use "
          "agent=builtin, openai, replay or db",
          kTorchBackendFileName.data(), looked.c_str(),
          kTorchBackendEnv.data());
    }
  }
  const TorchBackend &backend = getTorchBackend(path);
  if (!backend.create) {
    std::string from =
        env && *env ? (" (from $" + kTorchBackendEnv + ")").str() : "";
    return llvm::createStringError("agent=torch: %s%s", backend.error.c_str(),
                                   from.c_str());
  }
  std::string abi = getTorchBackendAbi();
  KernelAgent *agent = backend.create(abi.c_str(), &config);
  if (!agent)
    return llvm::createStringError(
        "agent=torch: the torch backend %s refused to create the agent",
        path.c_str());
  return std::unique_ptr<KernelAgent>(agent);
}
