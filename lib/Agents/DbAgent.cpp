//===- DbAgent.cpp - Exact hits from the kernel database
//-------------------===//
//
// The db backend proposes the best kernel verified earlier for the task's
// exact database key, so that it is verified (and timed) again here. Near
// hits as few-shot examples belong to the prompt builders of the LLM agents.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/KernelAgent.h"

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {
class DbAgent final : public KernelAgent {
public:
  DbAgent(KernelDb &db, llvm::StringRef cudaVersion)
      : db(db), cudaVersion(cudaVersion.str()) {}

  llvm::StringRef getName() const override { return "db"; }

  llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) override {
    if (count == 0 || !history.empty())
      return std::vector<Candidate>();
    KernelKey key{task.regionHash, task.arch, cudaVersion, kContractVersion};
    llvm::Expected<std::optional<KernelRecord>> best = db.bestKernel(key);
    if (!best)
      return best.takeError();
    if (!*best)
      return std::vector<Candidate>();
    const KernelRecord &record = **best;
    // The original author stays visible in the model field.
    return std::vector<Candidate>{
        {"db-" + std::to_string(record.id), record.source,
         record.launchPlanJson, "db",
         record.agent + (record.model.empty() ? "" : "/" + record.model)}};
  }

private:
  KernelDb &db;
  std::string cudaVersion;
};
} // namespace

std::unique_ptr<KernelAgent>
cuda_agent::createDbAgent(KernelDb &db, llvm::StringRef cudaVersion) {
  return std::make_unique<DbAgent>(db, cudaVersion);
}
