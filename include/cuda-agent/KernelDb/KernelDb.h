//===- KernelDb.h - SQLite kernel database ----------------------*- C++ -*-===//
//
// The kernel database: every kernel a GPU machine verified, keyed by (region
// canonical hash, arch, CUDA major.minor, contract version), and every splice
// decision the compiler made. `verify=db` splices only kernels found here, so a
// machine without a GPU can reuse what a GPU machine proved. The file is SQLite
// in WAL mode; a file that is not ours (not SQLite, another application's
// database, a newer schema) is refused with a clear error and never written.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_KERNELDB_KERNELDB_H
#define CUDA_AGENT_KERNELDB_KERNELDB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace mlir::cuda_agent {
namespace sqlite {
struct Connection;
} // namespace sqlite

/// What a kernel is verified for: the design's database key.
struct KernelKey {
  /// The region's canonical hash (64 lowercase hex digits, see RegionHash.h).
  std::string regionHash;
  /// The GPU architecture, e.g. "sm_90".
  std::string arch;
  /// The CUDA toolkit's major.minor, e.g. "13.0".
  std::string cudaVersion;
  /// The version of the region/kernel contract the kernel was written for.
  int contractVersion = 0;

  bool operator==(const KernelKey &other) const {
    return regionHash == other.regionHash && arch == other.arch &&
           cudaVersion == other.cudaVersion &&
           contractVersion == other.contractVersion;
  }
};

/// One verified kernel.
struct KernelRecord {
  KernelKey key;
  /// CUDA C++ source, as compiled by NVRTC.
  std::string source;
  /// The launch plan, JSON text (see docs/design.md, Contracts); may be empty.
  std::string launchPlanJson;
  /// The agent backend and model that wrote the kernel.
  std::string agent;
  std::string model;
  /// The verification record, JSON text; may be empty.
  std::string verification;
  /// Reference and candidate times in microseconds, and refUs / candUs.
  double refUs = 0, candUs = 0, speedup = 0;
  /// ISO 8601 UTC ("2025-06-01T12:00:00Z"); empty on insert means now.
  std::string createdAt;
  /// The device the kernel was verified on, e.g. "NVIDIA H200".
  std::string verifiedOn;
  /// What the kernel computes, for few-shot prompts: the region's kind
  /// ("elementwise", "reduction", ...), its MLIR (a module holding @region)
  /// and size. Empty or 0 when unknown (kernels stored before schema 2).
  std::string kind, regionMlir;
  int64_t flops = 0, bytes = 0;
  /// The prompt a language model wrote the kernel from (kPromptVersion,
  /// e.g. "prompt-v2"); empty for agents without one (builtin, replay). Part
  /// of the kernel's key as the compiler shows it (db_key), not of lookups:
  /// a verified kernel stays correct when the prompt changes.
  std::string promptVersion;
  /// The row id; ignored on insert.
  int64_t id = -1;

  bool operator==(const KernelRecord &other) const;
};

/// One decision of the compiler about a region.
struct DecisionRecord {
  std::string regionHash, arch;
  /// "spliced" or "default".
  std::string decision;
  /// One sentence, e.g. "kept default lowering: best candidate was 1.3x slower".
  std::string reason;
  /// The JSON report of the decision, JSON text; may be empty.
  std::string reportJson;
  /// ISO 8601 UTC; empty on insert means now.
  std::string createdAt;
  /// The spliced kernel's id, -1 if none.
  int64_t kernelId = -1;
  /// The row id; ignored on insert.
  int64_t id = -1;

  bool operator==(const DecisionRecord &other) const;
};

/// Which kernels listKernels returns; empty fields match everything.
struct KernelFilter {
  /// A prefix of the region hash.
  std::string hashPrefix;
  /// An exact arch, e.g. "sm_90".
  std::string arch;
};

/// Which kernels bestKernelsOfKind returns.
struct KindQuery {
  /// The region kind, e.g. "reduction"; required.
  std::string kind;
  /// An exact arch; empty matches every arch.
  std::string arch;
  /// A region hash to leave out (the region being asked about).
  std::string excludeHash;
  /// The most kernels returned.
  unsigned limit = 32;
};

/// Which kernels prune removes: a kernel goes when it matches every criterion
/// given. At least one must be given. Decisions are never pruned; those that
/// named a removed kernel keep their row with kernelId -1.
struct PruneOptions {
  /// Remove kernels ranked below the best `keepBest` (by speedup) of their key.
  std::optional<unsigned> keepBest;
  /// Remove kernels created before this date, "YYYY-MM-DD" (or a longer
  /// ISO 8601 UTC time, compared as text).
  std::optional<std::string> olderThan;
};

/// What importJson did.
struct ImportStats {
  /// Rows added; kernels and decisions already present are skipped.
  int kernelsAdded = 0, kernelsSkipped = 0;
  int decisionsAdded = 0, decisionsSkipped = 0;
};

/// A handle on one kernel database file. Several handles (threads or
/// processes) may use one file at a time: writers wait up to 5 s for a lock.
class KernelDb {
public:
  /// The value of the `application` row of the `meta` table.
  static constexpr llvm::StringLiteral kApplication = "cuda-agent-kernel-db";
  /// The schema version this build writes; older files are migrated on open.
  static const int kSchemaVersion;
  /// The version of the JSON that exportJson writes.
  static constexpr int kExportVersion = 1;

  /// Opens the database at `path`. With `create`, a missing file (and its
  /// parent directories) or an empty file is created and initialized;
  /// without it, a missing or empty file is an error. Fails, without writing
  /// to the file, when it is not SQLite ("not a kernel database"), is another
  /// application's database ("foreign database"), fails SQLite's quick check
  /// ("corrupt kernel database") or has a schema newer than this build's.
  /// An older schema is migrated in one transaction. The handle uses WAL,
  /// a 5000 ms busy timeout and foreign keys.
  static llvm::Expected<std::unique_ptr<KernelDb>> open(llvm::StringRef path,
                                                        bool create);

  /// `$XDG_CACHE_HOME/cuda-agent/kernels.db`, else
  /// `$HOME/.cache/cuda-agent/kernels.db`; empty if neither is set. Computed
  /// once per process.
  static llvm::StringRef defaultPath();

  ~KernelDb();
  KernelDb(const KernelDb &) = delete;
  KernelDb &operator=(const KernelDb &) = delete;

  /// The file this handle has open.
  llvm::StringRef path() const { return filePath; }

  /// Stores `record` and returns its id. A kernel with the same key and the
  /// same source is stored once: inserting it again returns the first id and
  /// keeps the first record. Fails on an empty key field or a JSON field that
  /// is neither empty nor valid JSON.
  llvm::Expected<int64_t> insertKernel(const KernelRecord &record);

  /// Returns the kernel of `key` with the highest speedup (the oldest on a
  /// tie), or nullopt when the key has none.
  llvm::Expected<std::optional<KernelRecord>> bestKernel(const KernelKey &key);

  /// Returns, for each region of `query.kind` (other than
  /// `query.excludeHash`) whose MLIR is known, its best kernel (highest
  /// speedup, oldest on a tie), the fastest regions' first, at most
  /// `query.limit`. Few-shot examples for prompts come from here.
  llvm::Expected<std::vector<KernelRecord>>
  bestKernelsOfKind(const KindQuery &query);

  /// Returns the kernels that match `filter`, by id.
  llvm::Expected<std::vector<KernelRecord>>
  listKernels(const KernelFilter &filter = {});

  /// Returns the kernel with row id `id`, or nullopt.
  llvm::Expected<std::optional<KernelRecord>> getKernel(int64_t id);

  /// Stores `record` and returns its id. Every call adds a row. Fails when the
  /// decision is not "spliced" or "default" or kernelId names no kernel.
  llvm::Expected<int64_t> insertDecision(const DecisionRecord &record);

  /// Returns the decisions whose region hash starts with `hashPrefix` (all
  /// when empty), by id.
  llvm::Expected<std::vector<DecisionRecord>>
  listDecisions(llvm::StringRef hashPrefix = "");

  /// Returns the whole database as JSON:
  /// `{"application": ..., "version": 1, "kernels": [...], "decisions": [...]}`
  /// with JSON text fields embedded as JSON values (null when empty).
  llvm::Expected<llvm::json::Value> exportJson();

  /// Adds what `value` (as written by exportJson) holds, in one transaction:
  /// on error nothing is added. Kernels already present (same key and
  /// source) and decisions equal in every field are skipped, so importing
  /// one file twice adds nothing the second time. Decisions' kernel ids are
  /// mapped to this database's ids.
  llvm::Error importJson(const llvm::json::Value &value,
                         ImportStats *stats = nullptr);

  /// Removes the kernels that `options` select and returns how many.
  llvm::Expected<int> prune(const PruneOptions &options);

private:
  KernelDb(sqlite3 *db, std::string path) : db(db), filePath(std::move(path)) {}
  sqlite::Connection connection() const;

  sqlite3 *db;
  std::string filePath;
};

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_KERNELDB_KERNELDB_H
