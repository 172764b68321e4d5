//===- CandidatePlan.cpp - A candidate's launch plan ----------------------===//
//
// An agent's launch plan checked against its compiled kernel, made into the
// runner's plan (the task's operands as buffers, the cubin as the object),
// and, for a winner, marked with where its kernel came from.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "cuda-agent/Cuda/LaunchPlanCheck.h"
#include "cuda-agent/Runner/Protocol.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

LaunchPlan cuda_agent::buildCandidatePlan(const KernelTask &task, const json::Object &plan,
                              const CompiledKernel &kernel) {
  LaunchPlan result;
  // The arch the cubin is for: the task's chip or its arch-specific form.
  result.chip = kernel.arch;
  SmallVector<std::string> args;
  for (const OperandSpec &operand : task.operands) {
    result.buffers.push_back({operand.name, operand.shape, operand.dtype,
                              operand.isOutput ? "output" : "input"});
    args.push_back(operand.name);
  }
  result.workspaceBytes = plan.getInteger("workspace_bytes").value_or(0);
  if (result.workspaceBytes > 0)
    args.push_back("workspace");
  for (const json::Value &value : *plan.getArray("launches")) {
    const json::Object &launch = *value.getAsObject();
    PlanLaunch entry;
    entry.kernel = launch.getString("kernel")->str();
    entry.object = kCandidateObjectName.str();
    auto dims = [&](StringRef key) {
      std::array<int64_t, 3> dims = {1, 1, 1};
      for (auto [i, dim] : llvm::enumerate(*launch.getArray(key)))
        dims[i] = *dim.getAsInteger();
      return dims;
    };
    entry.grid = dims("grid");
    entry.block = dims("block");
    entry.sharedBytes = launch.getInteger("shared_bytes").value_or(0);
    entry.args = args;
    result.launches.push_back(std::move(entry));
  }
  result.objects[kCandidateObjectName] = kernel.cubin;
  return result;
}

llvm::Expected<json::Value> cuda_agent::checkLaunchPlan(StringRef text,
                                            const CompiledKernel &kernel,
                                            unsigned numOperands) {
  llvm::Expected<json::Value> plan = json::parse(text);
  if (!plan)
    return llvm::createStringError("launch plan is not JSON: %s",
                                   llvm::toString(plan.takeError()).c_str());
  if (llvm::Error error = validateLaunchPlan(*plan, kernel, numOperands))
    return std::move(error);
  return plan;
}

std::string cuda_agent::describeKey(const KernelKey &key,
                                    llvm::StringRef promptVersion) {
  std::string text = llvm::formatv("{0}, CUDA {1}, contract {2}", key.arch,
                                   key.cudaVersion, key.contractVersion);
  if (!promptVersion.empty())
    text += ", " + promptVersion.str();
  return text;
}

void cuda_agent::addProvenance(LaunchPlan &plan, const KernelRecord &record, int64_t id) {
  plan.extra["agent"] = record.agent;
  plan.extra["model"] = record.model;
  plan.extra["speedup"] = record.speedup;
  plan.extra["ref_us"] = record.refUs;
  plan.extra["cand_us"] = record.candUs;
  plan.extra["verified_on"] = record.verifiedOn;
  plan.extra["verified_at"] = record.createdAt;
  plan.extra["db_key"] = describeKey(record.key, record.promptVersion);
  if (id >= 0)
    plan.extra["db_id"] = std::to_string(id);
  plan.extra["source"] = record.source;
  // The verifier's run at IREE's binding alignment, when it made one (older
  // records have none): the IREE export reads it.
  if (llvm::Expected<json::Value> verification = json::parse(record.verification)) {
    if (const json::Object *entry = verification->getAsObject())
      if (const json::Value *trial = entry->get(wire::kOffsetTrial))
        plan.extra[wire::kOffsetTrial] = *trial;
  } else {
    llvm::consumeError(verification.takeError());
  }
}
