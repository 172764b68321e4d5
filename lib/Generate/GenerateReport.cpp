//===- GenerateReport.cpp - agent-generate's report -----------------------===//
//
// The report's JSON (per region: its decision, every candidate's verdict and
// times, a language-model agent's conversation), written to `report=PATH`
// and with each decision to the kernel database.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "cuda-agent/Agents/Prompt.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
namespace json = llvm::json;

json::Value cuda_agent::toJSON(const CandidateReport &report) {
  auto number = [](std::optional<double> value) -> json::Value {
    return value ? json::Value(*value) : json::Value(nullptr);
  };
  json::Object object{{"name", report.name},
                      {"agent", report.agent},
                      {"model", report.model},
                      {"turn", report.turn},
                      {"compile", report.compile},
                      {"verify", report.verify},
                      {"reason", report.reason},
                      {"ref_us", number(report.refUs)},
                      {"cand_us", number(report.candUs)},
                      {"speedup", number(report.speedup)}};
  // Only regions verified against an f64 oracle have these.
  if (report.refOracleErr)
    object[wire::kRefOracleErr] = *report.refOracleErr;
  if (report.candOracleErr)
    object[wire::kCandOracleErr] = *report.candOracleErr;
  return object;
}

json::Value cuda_agent::toJSON(const RegionReport &report) {
  json::Array candidates;
  for (const CandidateReport &candidate : report.candidates)
    candidates.push_back(toJSON(candidate));
  json::Object object{{"function", report.function},
                      {"region", report.region},
                      {"hash", report.hash},
                      {"kind", report.kind},
                      {"decision", report.decision},
                      {"reason", report.reason},
                      {"candidates", std::move(candidates)}};
  if (!report.conversation.empty()) {
    json::Array messages;
    for (const ChatMessage &message : report.conversation)
      messages.push_back(
          json::Object{{"role", message.role}, {"content", message.content}});
    object["conversation"] = std::move(messages);
  }
  return object;
}

std::vector<ChatMessage>
cuda_agent::buildConversation(llvm::ArrayRef<Candidate> lastTurn,
                              llvm::ArrayRef<Attempt> feedback) {
  if (lastTurn.empty() || lastTurn.front().conversation.empty())
    return {};
  std::vector<ChatMessage> messages = lastTurn.front().conversation;
  for (const Attempt &attempt : feedback)
    llvm::append_range(messages, renderAttempt(attempt));
  for (const Candidate &candidate : lastTurn)
    if (llvm::none_of(feedback, [&](const Attempt &attempt) {
          return attempt.candidate.name == candidate.name;
        }))
      messages.push_back({"assistant", candidate.reply});
  return messages;
}

void Generator::recordDecision(const RegionReport &report, int64_t kernelId) {
  if (!db)
    return;
  DecisionRecord record;
  record.regionHash = report.hash;
  record.arch = options.chip;
  record.decision = report.decision;
  record.reason = report.reason;
  record.reportJson = llvm::formatv("{0}", toJSON(report)).str();
  record.kernelId = kernelId;
  if (llvm::Expected<int64_t> id = db->insertDecision(record); !id)
    module.emitWarning() << "could not record the decision: "
                         << llvm::toString(id.takeError());
}

LogicalResult Generator::writeReport() {
  if (options.report.empty())
    return success();
  json::Array regions;
  for (const RegionReport &report : reports)
    regions.push_back(toJSON(report));
  std::string verify = options.verify == VerifyMode::Gpu  ? "gpu"
                       : options.verify == VerifyMode::Db ? "db"
                                                          : "bundle";
  json::Object root{{"chip", options.chip},
                    {"cuda", cudaVersion},
                    {"agent", options.verify == VerifyMode::Db
                                  ? json::Value("db")
                                  : json::Value(options.agent)},
                    {"verify", verify},
                    {"min_speedup", options.minSpeedup},
                    {"device", gpuDevice.empty() ? json::Value(nullptr)
                                                 : json::Value(gpuDevice)},
                    {"db", db ? json::Value(db->path()) : json::Value(nullptr)},
                    {"regions", std::move(regions)}};
  if (options.verify == VerifyMode::Bundle)
    root["jobs"] = options.bundleDir;
  std::string text = llvm::formatv("{0:2}", json::Value(std::move(root)));
  return writeText(options.report, text + "\n", module.getLoc());
}
