//===- GeneratorSession.cpp - agent-generate's session setup ---------------===//
//
// What one agent-generate run needs before the first region: its options
// (defaults and `verify=`), the kernel database, the runner and the GPU it
// verifies on, the agent, and the directory the bundles and jobs go to.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

GenerateOptions::GenerateOptions() {
  GenerateOptions &to = *this;
#define CUDA_AGENT_GENERATE_OPTION(TYPE, MEMBER, FLAG, DEFAULT, HELP, FIELD)   \
  to.FIELD = TYPE{DEFAULT};
#include "cuda-agent/Generate/GenerateOptions.def"
}

LogicalResult GenerateOptions::parseVerify(Location loc) {
  StringRef text = verifySpec;
  if (text == "gpu") {
    verify = VerifyMode::Gpu;
  } else if (text == "db") {
    verify = VerifyMode::Db;
  } else if (text.starts_with("bundle:") && text.size() > 7) {
    verify = VerifyMode::Bundle;
    bundleDir = text.drop_front(7).str();
  } else {
    return emitError(loc) << "verify=" << text
                          << " is not one of gpu, db or bundle:DIR";
  }
  if (precision != wire::kPrecisionF32 && precision != wire::kPrecisionTf32)
    return emitError(loc) << "precision=" << precision << " is not one of "
                          << wire::kPrecisionF32 << " or " << wire::kPrecisionTf32;
  return success();
}

std::string cuda_agent::joinPath(const Twine &a, const Twine &b) {
  SmallString<256> path;
  a.toVector(path);
  llvm::sys::path::append(path, b);
  return path.str().str();
}

LogicalResult cuda_agent::writeText(const Twine &path, StringRef text,
                                    Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path.str(), ec);
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  os << text;
  return success();
}

LogicalResult Generator::setUp() {
  Location loc = module.getLoc();
  // The database.
  std::string dbPath = options.db;
  if (dbPath.empty())
    dbPath = KernelDb::defaultPath().str();
  if (dbPath == "none" || dbPath.empty()) {
    dbNote = dbPath.empty() ? "no kernel database (neither $XDG_CACHE_HOME "
                              "nor $HOME is set)"
                            : "no kernel database (db=none)";
    if (options.verify == VerifyMode::Db)
      return emitError(loc) << "verify=db needs a kernel database: " << dbNote;
  } else {
    // verify=db reads what is there: a missing file is a mistake.
    llvm::Expected<std::unique_ptr<KernelDb>> opened =
        KernelDb::open(dbPath, /*create=*/options.verify != VerifyMode::Db);
    if (!opened)
      return emitError(loc)
             << "kernel database: " << llvm::toString(opened.takeError());
    db = std::move(*opened);
  }
  // The GPU: verify=gpu needs one; verify=db on a machine with one verifies
  // the database's kernels again here (the db agent proposes them and
  // verify=gpu takes over).
  if (options.verify != VerifyMode::Bundle) {
    llvm::Expected<std::string> found = findRunner(options.runner);
    llvm::Expected<GpuProbe> probe =
        found ? probeGpu(*found) : llvm::Expected<GpuProbe>(found.takeError());
    if (!probe)
      noGpuReason = "cannot verify: " + llvm::toString(probe.takeError());
    else if (!probe->gpu)
      noGpuReason = "no GPU here to verify on (" + probe->error +
                    "); use verify=bundle:DIR or verify=db";
    else
      gpuDevice = probe->device;
    if (found)
      runner = *found;
  }
  if (options.verify == VerifyMode::Db) {
    if (gpuDevice.empty())
      return success();
    llvm::errs() << "agent-generate: verify=db with a GPU here (" << gpuDevice
                 << "): the database's kernels are verified again on it\n";
    options.verify = VerifyMode::Gpu;
    options.agent = "db";
  }

  // The agent.
  AgentConfig config = options.agents;
  config.db = db.get();
  config.cudaVersion = cudaVersion;
  llvm::Expected<std::unique_ptr<KernelAgent>> created =
      createAgent(options.agent, config);
  if (created)
    agent = std::move(*created);
  else
    agentError = llvm::toString(created.takeError());

  // Where bundles go.
  if (options.verify == VerifyMode::Bundle) {
    workDir = options.bundleDir;
  } else if (!options.workDir.empty()) {
    workDir = options.workDir;
  } else {
    SmallString<128> dir;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("cuda-agent", dir))
      return emitError(loc)
             << "cannot create a temporary directory: " << ec.message();
    workDir = dir.str().str();
    removeWorkDir = true;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(workDir))
    return emitError(loc) << "cannot create '" << workDir
                          << "': " << ec.message();
  bundleJobs = {options.chip,
                cudaVersion,
                kContractVersion,
                options.minSpeedup,
                options.timeoutSeconds,
                kTrials,
                {}};

  return success();
}
