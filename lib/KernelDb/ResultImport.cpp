//===- ResultImport.cpp - Verified kernels from runner results ------------===//
//
// Reads a jobs directory through the runner client, decides per job with the
// protocol's rule, and stores records and decisions through KernelDb.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/KernelDb/ResultImport.h"
#include "cuda-agent/Runner/RunnerClient.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::cuda_agent;

static llvm::Expected<std::string> readFile(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s'",
                                   path.str().c_str());
  return (*buffer)->getBuffer().str();
}

llvm::Expected<KernelRecord>
cuda_agent::makeKernelRecord(llvm::StringRef dir, const JobSet &jobs,
                             const JobResult &result,
                             const CandidateVerdict &verdict) {
  llvm::SmallString<256> bundlePath(dir);
  llvm::sys::path::append(bundlePath, verdict.candidate.bundle);
  std::string bundle = bundlePath.str().str();
  llvm::Expected<std::string> source = readFile(bundle + "/kernel.cu");
  if (!source)
    return source.takeError();
  llvm::Expected<std::string> plan =
      readFile(bundle + "/" + kCandidateLaunchName);
  if (!plan)
    return plan.takeError();
  KernelRecord record;
  record.key = {result.job->hash, jobs.chip, jobs.cudaVersion,
                jobs.contractVersion};
  record.source = std::move(*source);
  record.launchPlanJson = std::move(*plan);
  record.agent = verdict.candidate.agent;
  record.model = verdict.candidate.model;
  record.promptVersion = verdict.candidate.promptVersion;
  record.verification = verdict.record;
  record.refUs = verdict.refUs.value_or(0);
  record.candUs = verdict.candUs.value_or(0);
  record.speedup = verdict.speedup.value_or(0);
  record.verifiedOn = result.device;
  record.createdAt = result.verifiedAt;
  record.kind = result.job->kind;
  record.regionMlir = result.job->regionMlir;
  record.flops = result.job->flops;
  record.bytes = result.job->bytes;
  return record;
}

llvm::Expected<int> cuda_agent::storeAcceptedKernels(
    KernelDb &db, llvm::StringRef dir, const JobSet &jobs,
    const JobResult &result, std::optional<size_t> winner, int64_t &winnerId) {
  winnerId = -1;
  int added = 0;
  for (auto [index, verdict] : llvm::enumerate(result.verdicts)) {
    if (!verdict.accepted)
      continue;
    llvm::Expected<KernelRecord> record =
        makeKernelRecord(dir, jobs, result, verdict);
    if (!record)
      return record.takeError();
    llvm::Expected<int64_t> id = db.insertKernel(*record);
    if (!id)
      return id.takeError();
    ++added;
    if (winner == index)
      winnerId = *id;
  }
  return added;
}

llvm::Expected<ImportedResults>
cuda_agent::importJobResults(KernelDb &db, llvm::StringRef dir) {
  llvm::Expected<JobSet> jobs = readJobSet(dir);
  if (!jobs)
    return jobs.takeError();
  llvm::Expected<std::vector<JobResult>> results = readJobResults(dir, *jobs);
  if (!results)
    return results.takeError();
  ImportedResults imported;
  for (const JobResult &result : *results) {
    if (!result.ran) {
      ++imported.jobsNotRun;
      continue;
    }
    ++imported.jobsRun;
    int64_t winnerId = -1;
    JobDecision decision = decideJob(result, jobs->minSpeedup);
    llvm::Expected<int> added =
        storeAcceptedKernels(db, dir, *jobs, result, decision.winner, winnerId);
    if (!added)
      return added.takeError();
    imported.kernelsAdded += *added;
    DecisionRecord record;
    record.regionHash = result.job->hash;
    record.arch = jobs->chip;
    record.decision = decision.winner ? "spliced" : "default";
    record.reason = decision.reason;
    record.kernelId = winnerId;
    if (llvm::Expected<int64_t> id = db.insertDecision(record); !id)
      return id.takeError();
    ++imported.decisions;
  }
  return imported;
}
