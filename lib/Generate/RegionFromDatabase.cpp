//===- RegionFromDatabase.cpp - verify=db: splice what was verified -------===//
//
// verify=db: a region gets the best kernel the database verified for its
// exact key (hash, chip, CUDA version, contract version), recompiled here
// and its launch plan checked again; no agent and no GPU are involved.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "cuda-agent/Cuda/LaunchPlanCheck.h"
#include "cuda-agent/Splice/KernelSplicer.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

void Generator::fromDatabase(func::FuncOp func, const KernelTask &task,
                             RegionReport &report) {
  KernelKey key{task.regionHash, task.arch, cudaVersion, kContractVersion};
  std::string keyText = describeKey(key);
  llvm::Expected<std::optional<KernelRecord>> best = db->bestKernel(key);
  if (!best) {
    report.reason = "kernel database: " + llvm::toString(best.takeError());
    return recordDecision(report, -1);
  }
  if (!*best) {
    report.reason = "no kernel verified for this region in " +
                    db->path().str() + " (" + keyText + ")";
    return recordDecision(report, -1);
  }
  const KernelRecord &record = **best;
  CandidateReport candidate{"db-" + std::to_string(record.id),
                            record.agent,
                            record.model,
                            0,
                            "ok",
                            "pass",
                            "verified on " + record.verifiedOn + " at " +
                                record.createdAt,
                            record.refUs,
                            record.candUs,
                            record.speedup};
  auto fail = [&](StringRef compile, StringRef reason) {
    candidate.compile = compile.str();
    candidate.verify = "skipped";
    candidate.reason = reason.str();
    report.candidates.push_back(candidate);
    report.reason = "the database's kernel #" + std::to_string(record.id) +
                    " cannot be used: " + reason.str();
    recordDecision(report, -1);
  };
  CompileOptions compileOptions;
  // The arch it was verified for: the chip or its arch-specific form.
  llvm::Expected<std::string> arch =
      getCandidateArch(record.launchPlanJson, options.chip);
  if (!arch)
    return fail("error", llvm::toString(arch.takeError()));
  compileOptions.arch = *arch;
  llvm::Expected<CompiledKernel> kernel =
      compileCandidate(record.source, compileOptions);
  if (!kernel)
    return fail("error", llvm::toString(kernel.takeError()));
  llvm::Expected<json::Value> plan =
      checkLaunchPlan(record.launchPlanJson, *kernel, task.operands.size());
  if (!plan)
    return fail("ok", llvm::toString(plan.takeError()));
  report.candidates.push_back(candidate);
  if (record.speedup < options.minSpeedup) {
    report.reason =
        llvm::formatv("the database's best kernel (#{0}) is "
                      "{1:F2}x faster; min-speedup is {2:F2}x",
                      record.id, record.speedup, options.minSpeedup);
    return recordDecision(report, -1);
  }
  LaunchPlan launchPlan =
      buildCandidatePlan(task, *plan->getAsObject(), *kernel);
  addProvenance(launchPlan, record, record.id);
  launchPlan.extra["ptx"] = kernel->ptx;
  attachKernel(func, launchPlan);
  report.decision = "spliced";
  report.reason =
      llvm::formatv("kernel #{0} from the database ({1}/{2}): "
                    "{3:F2}x faster, verified on {4} at {5}",
                    record.id, record.agent, record.model, record.speedup,
                    record.verifiedOn, record.createdAt);
  recordDecision(report, record.id);
}
