//===- KernelGenerator.cpp - The closed loop per region -------------------===//
//
// agent-generate's driver: sets the session up (GeneratorSession.cpp), runs
// every outlined region (RegionTurns.cpp, RegionFromDatabase.cpp), puts its
// decision on it and a line on stderr, then writes the jobs (verify=bundle)
// and the report (GenerateReport.cpp).
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "cuda-agent/Outline/RegionOutliner.h"
#include "cuda-agent/Splice/KernelSplicer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::cuda_agent;

LogicalResult Generator::run() {
  if (options.verify == VerifyMode::Bundle && options.bundleDir.empty())
    return module.emitError("verify=bundle needs a directory: "
                            "verify=bundle:DIR");
  if (failed(setUp()))
    return failure();

  // Who calls each region, for the report.
  module.walk([&](func::CallOp call) {
    auto caller = call->getParentOfType<func::FuncOp>();
    callers.try_emplace(call.getCalleeAttr().getAttr(),
                        caller.getSymNameAttr());
  });
  SmallVector<func::FuncOp> regions;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kRegionAttrName) && !func.isExternal() &&
        !func->hasAttr(kSplicedAttrName))
      regions.push_back(func);

  for (auto [index, func] : llvm::enumerate(regions)) {
    auto attr = func->getAttrOfType<DictionaryAttr>(kRegionAttrName);
    RegionReport report;
    report.region = func.getSymName().str();
    if (StringAttr caller = callers.lookup(func.getSymNameAttr()))
      report.function = caller.str();
    if (auto hash = attr.getAs<StringAttr>("hash"))
      report.hash = hash.str();
    if (auto kind = attr.getAs<StringAttr>("kind"))
      report.kind = kind.str();
    processRegion(func, report);
    Builder builder(func.getContext());
    func->setAttr(kDecisionAttrName,
                  builder.getDictionaryAttr(
                      {builder.getNamedAttr(
                           "decision", builder.getStringAttr(report.decision)),
                       builder.getNamedAttr(
                           "reason", builder.getStringAttr(report.reason))}));
    llvm::errs() << llvm::formatv(
        "agent-generate: [{0}/{1}] @{2} ({3}, {4}): "
        "{5}: {6}\n",
        index + 1, regions.size(), report.region, report.kind,
        StringRef(report.hash).take_front(12), report.decision, report.reason);
    reports.push_back(std::move(report));
  }

  LogicalResult result = success();
  if (options.verify == VerifyMode::Bundle && failed(writeBundleJobs()))
    result = failure();
  if (failed(writeReport()))
    result = failure();
  if (removeWorkDir)
    llvm::sys::fs::remove_directories(workDir);
  return result;
}

LogicalResult Generator::writeBundleJobs() {
  // Jobs DIR accumulates across compiles (several files, split inputs):
  // earlier jobs of the same key stay unless this run replaced them.
  if (llvm::sys::fs::exists(joinPath(workDir, "jobs.json"))) {
    llvm::Expected<JobSet> earlier = readJobSet(workDir);
    if (!earlier) {
      llvm::consumeError(earlier.takeError());
    } else if (earlier->chip == bundleJobs.chip &&
               earlier->cudaVersion == bundleJobs.cudaVersion &&
               earlier->contractVersion == bundleJobs.contractVersion) {
      std::vector<Job> merged;
      for (Job &job : earlier->jobs)
        if (llvm::none_of(bundleJobs.jobs,
                          [&](const Job &j) { return j.hash == job.hash; }))
          merged.push_back(std::move(job));
      merged.insert(merged.end(), bundleJobs.jobs.begin(),
                    bundleJobs.jobs.end());
      bundleJobs.jobs = std::move(merged);
    }
  }
  if (llvm::Error error = writeJobSet(workDir, bundleJobs))
    return module.emitError() << llvm::toString(std::move(error));
  llvm::errs() << llvm::formatv(
      "agent-generate: {0} job(s) in {1}; run `cuda-agent-run --jobs {1}` "
      "on a GPU machine, then `cuda-agent-db --db DB import-results {1}`\n",
      bundleJobs.jobs.size(), workDir);
  return success();
}

LogicalResult cuda_agent::generateKernels(ModuleOp module,
                                          const GenerateOptions &options) {
  return Generator(module, options).run();
}
