//===- ResultImport.h - Verified kernels from runner results ----*- C++ -*-===//
//
// Turns what cuda-agent-run verified into kernel database records: every
// accepted candidate of a job (its source and launch plan read from its
// bundle, the runner's verdict as its verification) and one splice decision
// per job. The compiler stores a region's accepted candidates right after its
// job ran (`verify=gpu`); `cuda-agent-db import-results DIR` stores those of
// a jobs directory that ran on another machine (`verify=bundle:DIR`).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_KERNELDB_RESULTIMPORT_H
#define CUDA_AGENT_KERNELDB_RESULTIMPORT_H

#include "cuda-agent/KernelDb/KernelDb.h"
#include "cuda-agent/Runner/Protocol.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace mlir::cuda_agent {

/// The database record of verdict `verdict` of `result`: source and launch
/// plan read from its bundle, the key from `jobs`.
llvm::Expected<KernelRecord> makeKernelRecord(llvm::StringRef dir,
                                              const JobSet &jobs,
                                              const JobResult &result,
                                              const CandidateVerdict &verdict);

/// Stores every accepted candidate of `result` in `db` and returns how many;
/// `winnerId` gets the database id of candidate `winner` (-1 when it is not
/// given or not accepted). Stops at the first record that cannot be made or
/// stored.
llvm::Expected<int> storeAcceptedKernels(KernelDb &db, llvm::StringRef dir,
                                         const JobSet &jobs,
                                         const JobResult &result,
                                         std::optional<size_t> winner,
                                         int64_t &winnerId);

/// What importJobResults did.
struct ImportedResults {
  int jobsRun = 0, jobsNotRun = 0, kernelsAdded = 0, decisions = 0;
};

/// Stores every accepted candidate of the jobs in `dir` in `db`, and one
/// decision per job that ran (decideJob with the jobs' min_speedup).
llvm::Expected<ImportedResults> importJobResults(KernelDb &db,
                                                 llvm::StringRef dir);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_KERNELDB_RESULTIMPORT_H
