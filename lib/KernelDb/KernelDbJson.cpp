//===- KernelDbJson.cpp - Kernel database export and import ----*- C++ -*-===//
//
// The JSON form of a kernel database: what `cuda-agent-db export` writes and
// `import` reads, to move verified kernels between machines. JSON text
// columns (launch plan, verification record, decision report) are embedded
// as JSON values, null when empty. Row ids are carried so that decisions can
// name their kernel; import maps them to the target database's ids.
//
//===----------------------------------------------------------------------===//

#include "KernelDbInternal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::detail;
using sqlite::Connection;
using sqlite::Transaction;

/// JSON text stored in a column, as a JSON value: null when empty. The text
/// was validated on insert; should a hand-edited row not parse, it is kept
/// as a string rather than lost.
static llvm::json::Value embed(llvm::StringRef text) {
  if (text.empty())
    return nullptr;
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return text;
  }
  return std::move(*value);
}

static llvm::json::Value toJson(const KernelRecord &record) {
  return llvm::json::Object{
      {"id", record.id},
      {"region_hash", record.key.regionHash},
      {"arch", record.key.arch},
      {"cuda_version", record.key.cudaVersion},
      {"contract_version", record.key.contractVersion},
      {"agent", record.agent},
      {"model", record.model},
      {"ref_us", record.refUs},
      {"cand_us", record.candUs},
      {"speedup", record.speedup},
      {"created_at", record.createdAt},
      {"verified_on", record.verifiedOn},
      {"kind", record.kind},
      {"flops", record.flops},
      {"bytes", record.bytes},
      {"region_mlir", record.regionMlir},
      {"prompt_version", record.promptVersion},
      {"launch_plan", embed(record.launchPlanJson)},
      {"verification", embed(record.verification)},
      {"source", record.source},
  };
}

static llvm::json::Value toJson(const DecisionRecord &record) {
  return llvm::json::Object{
      {"id", record.id},
      {"region_hash", record.regionHash},
      {"arch", record.arch},
      {"decision", record.decision},
      {"reason", record.reason},
      {"report", embed(record.reportJson)},
      {"created_at", record.createdAt},
      {"kernel_id", record.kernelId >= 0 ? llvm::json::Value(record.kernelId)
                                         : llvm::json::Value(nullptr)},
  };
}

llvm::Expected<llvm::json::Value> KernelDb::exportJson() {
  // One read transaction, so kernels and decisions agree.
  Connection conn = connection();
  if (llvm::Error error = conn.exec("BEGIN", "exporting"))
    return std::move(error);
  llvm::Expected<std::vector<KernelRecord>> kernels = listKernels();
  llvm::Expected<std::vector<DecisionRecord>> decisions = listDecisions();
  sqlite3_exec(conn.db, "COMMIT", nullptr, nullptr, nullptr);
  if (!kernels) {
    llvm::consumeError(decisions.takeError());
    return kernels.takeError();
  }
  if (!decisions)
    return decisions.takeError();

  llvm::json::Array kernelArray, decisionArray;
  for (const KernelRecord &record : *kernels)
    kernelArray.push_back(toJson(record));
  for (const DecisionRecord &record : *decisions)
    decisionArray.push_back(toJson(record));
  return llvm::json::Object{
      {"application", kApplication},
      {"version", kExportVersion},
      {"kernels", std::move(kernelArray)},
      {"decisions", std::move(decisionArray)},
  };
}

namespace {
/// A JSON value that is stored as JSON text ("" for null).
struct JsonText {
  std::string text;
};

/// An export file as read back.
struct ExportFile {
  std::string application;
  int version = 0;
  std::vector<KernelRecord> kernels;
  std::vector<DecisionRecord> decisions;
};

bool fromJSON(const llvm::json::Value &value, JsonText &out,
              llvm::json::Path) {
  out.text = value.getAsNull() ? "" : llvm::formatv("{0}", value).str();
  return true;
}
} // namespace

namespace mlir::cuda_agent {
// Found by argument-dependent lookup from llvm::json::ObjectMapper.
static bool fromJSON(const llvm::json::Value &value, KernelRecord &out,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  JsonText plan, verification;
  bool ok = o && o.mapOptional("id", out.id) &&
            o.map("region_hash", out.key.regionHash) &&
            o.map("arch", out.key.arch) &&
            o.map("cuda_version", out.key.cudaVersion) &&
            o.map("contract_version", out.key.contractVersion) &&
            o.map("agent", out.agent) && o.map("model", out.model) &&
            o.map("ref_us", out.refUs) && o.map("cand_us", out.candUs) &&
            o.map("speedup", out.speedup) &&
            o.map("created_at", out.createdAt) &&
            o.map("verified_on", out.verifiedOn) &&
            o.mapOptional("kind", out.kind) &&
            o.mapOptional("flops", out.flops) &&
            o.mapOptional("bytes", out.bytes) &&
            o.mapOptional("region_mlir", out.regionMlir) &&
            o.mapOptional("prompt_version", out.promptVersion) &&
            o.mapOptional("launch_plan", plan) &&
            o.mapOptional("verification", verification) &&
            o.map("source", out.source);
  out.launchPlanJson = std::move(plan.text);
  out.verification = std::move(verification.text);
  return ok;
}

static bool fromJSON(const llvm::json::Value &value, DecisionRecord &out,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  JsonText report;
  std::optional<int64_t> kernelId;
  bool ok = o && o.mapOptional("id", out.id) &&
            o.map("region_hash", out.regionHash) && o.map("arch", out.arch) &&
            o.map("decision", out.decision) && o.map("reason", out.reason) &&
            o.mapOptional("report", report) &&
            o.map("created_at", out.createdAt) &&
            o.mapOptional("kernel_id", kernelId);
  out.reportJson = std::move(report.text);
  out.kernelId = kernelId.value_or(-1);
  return ok;
}
} // namespace mlir::cuda_agent

namespace {
bool fromJSON(const llvm::json::Value &value, ExportFile &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("application", out.application) &&
         o.map("version", out.version) && o.map("kernels", out.kernels) &&
         o.map("decisions", out.decisions);
}
} // namespace

llvm::Error KernelDb::importJson(const llvm::json::Value &value,
                                 ImportStats *stats) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot import into " + filePath + ": " +
                                       why);
  };
  // Check what the file is before its shape: a wrong file should not be
  // reported as a missing field.
  const llvm::json::Object *object = value.getAsObject();
  std::optional<llvm::StringRef> application =
      object ? object->getString("application") : std::nullopt;
  if (!application || *application != kApplication)
    return fail("not a cuda-agent kernel database export (no \"application\": "
                "\"" +
                kApplication + "\")");
  ExportFile file;
  llvm::json::Path::Root root("export");
  if (!fromJSON(value, file, root))
    return fail(llvm::toString(root.getError()));
  if (file.version < 1 || file.version > kExportVersion)
    return fail("export version " + llvm::Twine(file.version) +
                " is not supported (this build reads up to " +
                llvm::Twine(kExportVersion) + ")");

  Connection conn = connection();
  llvm::Expected<Transaction> tx = Transaction::begin(conn);
  if (!tx)
    return tx.takeError();
  ImportStats counts;
  llvm::DenseMap<int64_t, int64_t> idMap;
  for (const KernelRecord &record : file.kernels) {
    llvm::Expected<std::pair<int64_t, bool>> row =
        insertKernelRow(conn, record);
    if (!row)
      return fail(llvm::toString(row.takeError()));
    if (record.id >= 0)
      idMap[record.id] = row->first;
    ++(row->second ? counts.kernelsAdded : counts.kernelsSkipped);
  }
  for (const DecisionRecord &original : file.decisions) {
    DecisionRecord record = original;
    if (record.kernelId >= 0) {
      auto it = idMap.find(record.kernelId);
      if (it == idMap.end())
        return fail("a decision names kernel " + llvm::Twine(record.kernelId) +
                    ", which the file does not hold");
      record.kernelId = it->second;
    }
    llvm::Expected<int64_t> id =
        insertDecisionRow(conn, record, /*skipDuplicate=*/true);
    if (!id)
      return fail(llvm::toString(id.takeError()));
    ++(*id >= 0 ? counts.decisionsAdded : counts.decisionsSkipped);
  }
  if (llvm::Error error = tx->commit())
    return error;
  if (stats)
    *stats = counts;
  return llvm::Error::success();
}
