//===- GenerateReport.h - agent-generate's report, private ------*- C++ -*-===//
//
// What agent-generate reports per region and candidate (the JSON of
// `report=PATH` and of the database's decisions), and the conversation a
// language-model agent had, put together from what it sent.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_GENERATE_GENERATEREPORT_H
#define CUDA_AGENT_LIB_GENERATE_GENERATEREPORT_H

#include "cuda-agent/Agents/KernelAgent.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent {

/// One candidate's line of the report.
struct CandidateReport {
  std::string name, agent, model;
  unsigned turn = 1;
  std::string compile = "ok", verify = "skipped", reason;
  std::optional<double> refUs, candUs, speedup;
  /// With an f64 oracle: the reference's and the candidate's largest
  /// absolute error against it (the runner's verdict).
  std::optional<double> refOracleErr, candOracleErr;
};

/// One region's part of the report.
struct RegionReport {
  std::string function, region, hash, kind;
  std::string decision = "default", reason;
  std::vector<CandidateReport> candidates;
  /// A language-model agent's conversation: prompt, replies, feedback.
  std::vector<ChatMessage> conversation;
};

llvm::json::Value toJSON(const CandidateReport &report);
llvm::json::Value toJSON(const RegionReport &report);

/// The conversation of an agent's last turn: the messages it sent for
/// `lastTurn`'s candidates, each reply that got feedback (`feedback`, the
/// attempts recorded after that turn was proposed) with that feedback, then
/// the other replies. Empty when the agent sent no conversation.
std::vector<ChatMessage>
buildConversation(llvm::ArrayRef<Candidate> lastTurn,
                  llvm::ArrayRef<Attempt> feedback);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_LIB_GENERATE_GENERATEREPORT_H
