//===- KernelDb.cpp - SQLite kernel database --------------------*- C++ -*-===//
//
// Opening (with the checks that keep foreign and corrupt files untouched),
// the schema and its migrations, and the queries of the kernel database.
// Export and import live in KernelDbJson.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelDbInternal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cmath>
#include <iterator>

using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::detail;
using sqlite::Connection;
using sqlite::Statement;
using sqlite::Transaction;

//===----------------------------------------------------------------------===//
// Schema
//===----------------------------------------------------------------------===//

/// Makes a database version 0: the meta table and nothing else. The header's
/// application_id (0x43414442, "CADB") lets file(1) and other tools tell the
/// file apart; open() trusts the meta table only.
static constexpr const char *kBootstrap = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value);
INSERT INTO meta (key, value) VALUES
  ('application', 'cuda-agent-kernel-db'),
  ('schema_version', 0);
PRAGMA application_id = 1128350786;
)sql";

/// kMigrations[v] takes a database from schema version v to v + 1, inside the
/// transaction that then records v + 1 in meta. A shipped step is never
/// edited: a change is a new step appended here (for example
/// "ALTER TABLE kernels ADD COLUMN registers INTEGER;"), which makes it the
/// new kSchemaVersion.
static constexpr const char *kMigrations[] = {
    // 0 -> 1: kernels keyed as in the design, and decisions.
    R"sql(
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  region_hash TEXT NOT NULL,
  arch TEXT NOT NULL,
  cuda_version TEXT NOT NULL,
  contract_version INTEGER NOT NULL,
  source TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  launch_plan TEXT NOT NULL,
  agent TEXT NOT NULL,
  model TEXT NOT NULL,
  verification TEXT NOT NULL,
  ref_us REAL NOT NULL,
  cand_us REAL NOT NULL,
  speedup REAL NOT NULL,
  created_at TEXT NOT NULL,
  verified_on TEXT NOT NULL,
  UNIQUE (region_hash, arch, cuda_version, contract_version, source_sha256)
);
CREATE INDEX kernels_by_key_speedup
  ON kernels (region_hash, arch, cuda_version, contract_version, speedup DESC);
CREATE TABLE decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  region_hash TEXT NOT NULL,
  arch TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('spliced', 'default')),
  reason TEXT NOT NULL,
  report TEXT NOT NULL,
  created_at TEXT NOT NULL,
  kernel_id INTEGER REFERENCES kernels (id) ON DELETE SET NULL
);
CREATE INDEX decisions_by_key ON decisions (region_hash, arch);
CREATE INDEX decisions_by_kernel ON decisions (kernel_id);
)sql",
    // 1 -> 2: what each kernel computes (kind, region MLIR, size), for
    // few-shot examples in prompts.
    R"sql(
ALTER TABLE kernels ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN region_mlir TEXT NOT NULL DEFAULT '';
ALTER TABLE kernels ADD COLUMN flops INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
CREATE INDEX kernels_by_kind ON kernels (kind, arch, speedup DESC);
)sql",
    // 2 -> 3: the prompt a language model wrote the kernel from.
    R"sql(
ALTER TABLE kernels ADD COLUMN prompt_version TEXT NOT NULL DEFAULT '';
)sql",
};

const int KernelDb::kSchemaVersion = static_cast<int>(std::size(kMigrations));

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The first 16 bytes of every SQLite 3 file (with the terminating NUL).
static constexpr char kSqliteMagic[] = "SQLite format 3";
static_assert(sizeof(kSqliteMagic) == 16);

/// Whether the non-empty file `path` starts with the SQLite magic. Reads
/// only; a file SQLite would reject is recognized before SQLite sees it.
static llvm::Expected<bool> hasSqliteHeader(llvm::StringRef path) {
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return file.takeError();
  char header[sizeof(kSqliteMagic)];
  size_t size = 0;
  while (size < sizeof(header)) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(
        *file, llvm::MutableArrayRef<char>(header + size, sizeof(header) - size));
    if (!read) {
      llvm::sys::fs::closeFile(*file);
      return read.takeError();
    }
    if (*read == 0)
      break;
    size += *read;
  }
  llvm::sys::fs::closeFile(*file);
  return size == sizeof(header) &&
         llvm::StringRef(header, size) ==
             llvm::StringRef(kSqliteMagic, sizeof(kSqliteMagic));
}

static std::string notADatabase(llvm::StringRef path) {
  return ("not a kernel database: " + path + ": file is not a database").str();
}

/// Current UTC time as the database writes it, in SQL.
static constexpr const char *kNowSql = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

/// Binds the database key as ?1..?4 (region hash, arch, CUDA version,
/// contract version), the order every kernels query uses.
static Statement &bindKey(Statement &statement, const KernelKey &key) {
  return statement.bind(1, llvm::StringRef(key.regionHash))
      .bind(2, llvm::StringRef(key.arch))
      .bind(3, llvm::StringRef(key.cudaVersion))
      .bind(4, static_cast<int64_t>(key.contractVersion));
}

std::string detail::sourceHash(llvm::StringRef source) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(source)),
                     /*LowerCase=*/true);
}

llvm::Expected<std::string> detail::normalizeJson(llvm::StringRef text,
                                                  llvm::StringRef field) {
  if (text.empty())
    return std::string();
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return makeError(field + " is not valid JSON: " +
                     llvm::toString(value.takeError()));
  return llvm::formatv("{0}", *value).str();
}

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

namespace {
/// What an existing SQLite file holds, as far as open() cares.
struct FileState {
  /// No schema at all: a new (or 0-byte) file.
  bool empty = false;
  /// The recorded schema version when not empty.
  int64_t version = 0;
};
} // namespace

/// Reads the schema state of an open file, reading only. A file with tables
/// but no meta table naming this application is foreign.
static llvm::Expected<FileState> inspect(Connection conn) {
  auto foreign = [&](const llvm::Twine &why) {
    return makeError("foreign database: " + conn.path + ": " + why +
                     "; it was not created by cuda-agent and is left as is");
  };
  llvm::Expected<std::string> objects =
      conn.queryText("SELECT count(*) FROM sqlite_schema", "reading schema");
  if (!objects)
    return objects.takeError();
  FileState state;
  if (*objects == "0") {
    state.empty = true;
    return state;
  }
  llvm::Expected<std::string> hasMeta = conn.queryText(
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
      "name = 'meta'",
      "reading schema");
  if (!hasMeta)
    return hasMeta.takeError();
  if (*hasMeta == "0")
    return foreign("it has tables but no 'meta' table");

  llvm::Expected<Statement> stmt = conn.prepare(
      "SELECT key, value FROM meta WHERE key IN "
      "('application', 'schema_version')",
      "reading meta");
  if (!stmt) {
    // A 'meta' table of another shape.
    llvm::consumeError(stmt.takeError());
    return foreign("its 'meta' table has no key/value columns");
  }
  std::optional<std::string> application;
  std::optional<int64_t> version;
  while (true) {
    llvm::Expected<bool> row = stmt->step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    if (stmt->text(0) == "application")
      application = stmt->text(1).str();
    else if (stmt->type(1) == SQLITE_INTEGER)
      version = stmt->integer(1);
  }
  if (!application)
    return foreign("its 'meta' table names no application");
  if (*application != KernelDb::kApplication)
    return foreign("it belongs to application '" + *application + "'");
  if (!version || *version < 0)
    return foreign("its 'meta' table has no valid schema_version");
  state.version = *version;
  return state;
}

/// Brings an empty or older file to kSchemaVersion in one transaction. Another
/// process may have done it since `inspect`, so the state is read again under
/// the write lock.
static llvm::Error migrate(Connection conn) {
  llvm::Expected<Transaction> tx = Transaction::begin(conn);
  if (!tx)
    return tx.takeError();
  llvm::Expected<FileState> state = inspect(conn);
  if (!state)
    return state.takeError();
  if (state->empty)
    if (llvm::Error error = conn.exec(kBootstrap, "creating the meta table"))
      return error;
  llvm::Expected<Statement> setVersion = conn.prepare(
      "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
      "recording the schema version");
  if (!setVersion)
    return setVersion.takeError();
  for (int64_t v = state->version; v < KernelDb::kSchemaVersion; ++v) {
    if (llvm::Error error =
            conn.exec(kMigrations[v], "migrating schema version " +
                                          llvm::Twine(v) + " to " +
                                          llvm::Twine(v + 1)))
      return error;
    setVersion->reset();
    if (llvm::Expected<bool> done = setVersion->bind(1, v + 1).step(); !done)
      return done.takeError();
  }
  return tx->commit();
}

llvm::Expected<std::unique_ptr<KernelDb>> KernelDb::open(llvm::StringRef path,
                                                         bool create) {
  namespace fs = llvm::sys::fs;
  // Classify the file before SQLite opens it.
  fs::file_status status;
  std::error_code ec = fs::status(path, status);
  bool exists = !ec;
  if (ec && ec != std::errc::no_such_file_or_directory)
    return makeError("cannot open kernel database " + path + ": " +
                     ec.message());
  if (exists && status.type() != fs::file_type::regular_file)
    return makeError("not a kernel database: " + path +
                     ": not a regular file");
  bool empty = !exists || status.getSize() == 0;
  if (empty && !create)
    return makeError("no kernel database at " + path +
                     (exists ? " (the file is empty)" : "") +
                     "; `cuda-agent-db import FILE` creates one");
  if (!empty) {
    llvm::Expected<bool> sqlite = hasSqliteHeader(path);
    if (!sqlite)
      return makeError("cannot read kernel database " + path + ": " +
                       llvm::toString(sqlite.takeError()));
    if (!*sqlite)
      return makeError(notADatabase(path));
  }
  if (!exists) {
    llvm::StringRef parent = llvm::sys::path::parent_path(path);
    if (!parent.empty())
      if (std::error_code dirEc = fs::create_directories(parent))
        return makeError("cannot create directory " + parent +
                         " for kernel database: " + dirEc.message());
  }

  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  sqlite3 *raw = nullptr;
  int rc = sqlite3_open_v2(path.str().c_str(), &raw, flags, nullptr);
  // From here the handle owns `raw` (sqlite3_open_v2 may return a handle
  // even on failure, to carry the message).
  std::unique_ptr<KernelDb> db(new KernelDb(raw, path.str()));
  Connection conn = db->connection();
  if (llvm::Error error = conn.check(rc, "opening"))
    return std::move(error);
  sqlite3_extended_result_codes(raw, 0);
  if (llvm::Error error = conn.check(sqlite3_busy_timeout(raw, 5000),
                                     "setting the busy timeout"))
    return std::move(error);

  // Until the file is known to be ours, nothing may write to it: not our
  // statements (query_only) and not a checkpoint when the handle closes.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  if (llvm::Error error = conn.exec("PRAGMA query_only = ON", "opening"))
    return std::move(error);

  // Reading the schema cookie makes SQLite parse page 1.
  if (llvm::Error error = conn.exec("PRAGMA schema_version", "opening")) {
    if (sqlite3_errcode(raw) != SQLITE_NOTADB)
      return std::move(error);
    llvm::consumeError(std::move(error));
    return makeError(notADatabase(path));
  }
  llvm::Expected<std::string> check =
      conn.queryText("PRAGMA quick_check(1)", "checking integrity");
  if (!check)
    return makeError("corrupt kernel database: " + path + ": " +
                     llvm::toString(check.takeError()));
  if (*check != "ok") {
    // SQLite's report spans lines ("*** in database main ***\nPage 8: ...").
    std::replace(check->begin(), check->end(), '\n', ' ');
    return makeError("corrupt kernel database: " + path + ": " + *check);
  }

  llvm::Expected<FileState> state = inspect(conn);
  if (!state)
    return state.takeError();
  if (state->version > kSchemaVersion)
    return makeError("kernel database " + path + " has schema version " +
                     llvm::Twine(state->version) +
                     ", newer than this build of cuda-agent reads (" +
                     llvm::Twine(kSchemaVersion) +
                     "); use a newer cuda-agent or another database");

  // The file is ours (or new): writes may start.
  if (llvm::Error error = conn.exec("PRAGMA query_only = OFF", "opening"))
    return std::move(error);
  if (state->empty || state->version < kSchemaVersion)
    if (llvm::Error error = migrate(conn))
      return std::move(error);
  llvm::Expected<std::string> mode =
      conn.queryText("PRAGMA journal_mode = WAL", "enabling WAL");
  if (!mode)
    return mode.takeError();
  if (*mode != "wal")
    return makeError("kernel database " + path +
                     ": cannot use WAL (journal mode stays '" + *mode + "')");
  if (llvm::Error error =
          conn.exec("PRAGMA foreign_keys = ON", "enabling foreign keys"))
    return std::move(error);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  return std::move(db);
}

KernelDb::~KernelDb() { sqlite3_close_v2(db); }

Connection KernelDb::connection() const { return {db, filePath}; }

llvm::StringRef KernelDb::defaultPath() {
  static const std::string path = [] {
    // cache_directory() is $XDG_CACHE_HOME, else $HOME/.cache.
    llvm::SmallString<256> dir;
    if (!llvm::sys::path::cache_directory(dir))
      return std::string();
    llvm::sys::path::append(dir, "cuda-agent", "kernels.db");
    return std::string(dir);
  }();
  return path;
}

//===----------------------------------------------------------------------===//
// Records
//===----------------------------------------------------------------------===//

bool KernelRecord::operator==(const KernelRecord &other) const {
  return key == other.key && source == other.source &&
         launchPlanJson == other.launchPlanJson && agent == other.agent &&
         model == other.model && verification == other.verification &&
         refUs == other.refUs && candUs == other.candUs &&
         speedup == other.speedup && createdAt == other.createdAt &&
         verifiedOn == other.verifiedOn && kind == other.kind &&
         regionMlir == other.regionMlir && flops == other.flops &&
         bytes == other.bytes && promptVersion == other.promptVersion &&
         id == other.id;
}

bool DecisionRecord::operator==(const DecisionRecord &other) const {
  return regionHash == other.regionHash && arch == other.arch &&
         decision == other.decision && reason == other.reason &&
         reportJson == other.reportJson && createdAt == other.createdAt &&
         kernelId == other.kernelId && id == other.id;
}

/// The columns every kernel query selects, in readKernel's order.
static constexpr const char *kKernelColumns =
    "id, region_hash, arch, cuda_version, contract_version, source, "
    "launch_plan, agent, model, verification, ref_us, cand_us, speedup, "
    "created_at, verified_on, kind, region_mlir, flops, bytes, "
    "prompt_version";

static KernelRecord readKernel(const Statement &stmt) {
  KernelRecord record;
  record.id = stmt.integer(0);
  record.key.regionHash = stmt.text(1).str();
  record.key.arch = stmt.text(2).str();
  record.key.cudaVersion = stmt.text(3).str();
  record.key.contractVersion = static_cast<int>(stmt.integer(4));
  record.source = stmt.text(5).str();
  record.launchPlanJson = stmt.text(6).str();
  record.agent = stmt.text(7).str();
  record.model = stmt.text(8).str();
  record.verification = stmt.text(9).str();
  record.refUs = stmt.real(10);
  record.candUs = stmt.real(11);
  record.speedup = stmt.real(12);
  record.createdAt = stmt.text(13).str();
  record.verifiedOn = stmt.text(14).str();
  record.kind = stmt.text(15).str();
  record.regionMlir = stmt.text(16).str();
  record.flops = stmt.integer(17);
  record.bytes = stmt.integer(18);
  record.promptVersion = stmt.text(19).str();
  return record;
}

/// The columns every decision query selects, in readDecision's order.
static constexpr const char *kDecisionColumns =
    "id, region_hash, arch, decision, reason, report, created_at, kernel_id";

static DecisionRecord readDecision(const Statement &stmt) {
  DecisionRecord record;
  record.id = stmt.integer(0);
  record.regionHash = stmt.text(1).str();
  record.arch = stmt.text(2).str();
  record.decision = stmt.text(3).str();
  record.reason = stmt.text(4).str();
  record.reportJson = stmt.text(5).str();
  record.createdAt = stmt.text(6).str();
  record.kernelId = stmt.isNull(7) ? -1 : stmt.integer(7);
  return record;
}

/// Runs `stmt` to the end and collects its rows.
template <typename Record>
static llvm::Expected<std::vector<Record>>
collect(Statement &stmt, Record (*read)(const Statement &)) {
  std::vector<Record> records;
  while (true) {
    llvm::Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return records;
    records.push_back(read(stmt));
  }
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

llvm::Expected<std::pair<int64_t, bool>>
detail::insertKernelRow(Connection conn, const KernelRecord &record) {
  const KernelKey &key = record.key;
  if (key.regionHash.empty() || key.arch.empty() || key.cudaVersion.empty())
    return makeError("kernel database " + conn.path +
                     ": a kernel needs a region hash, an arch and a CUDA "
                     "version");
  if (record.source.empty())
    return makeError("kernel database " + conn.path +
                     ": a kernel needs its source");
  for (double value : {record.refUs, record.candUs, record.speedup})
    if (!std::isfinite(value))
      return makeError("kernel database " + conn.path +
                       ": a kernel's times and speedup must be finite");
  llvm::Expected<std::string> plan =
      normalizeJson(record.launchPlanJson, "the launch plan");
  if (!plan)
    return plan.takeError();
  llvm::Expected<std::string> verification =
      normalizeJson(record.verification, "the verification record");
  if (!verification)
    return verification.takeError();
  std::string sha = sourceHash(record.source);

  // Look first rather than INSERT OR IGNORE: an ignored insert still uses up
  // an AUTOINCREMENT id.
  llvm::Expected<Statement> find =
      conn.prepare("SELECT id FROM kernels WHERE region_hash = ?1 AND "
                   "arch = ?2 AND cuda_version = ?3 AND contract_version = ?4 "
                   "AND source_sha256 = ?5",
                   "looking up a kernel");
  if (!find)
    return find.takeError();
  bindKey(*find, key).bind(5, llvm::StringRef(sha));
  llvm::Expected<bool> found = find->step();
  if (!found)
    return found.takeError();
  if (*found)
    return std::make_pair(find->integer(0), false);

  llvm::Expected<Statement> insert = conn.prepare(
      (llvm::Twine("INSERT INTO kernels (region_hash, arch, cuda_version, "
                   "contract_version, source, source_sha256, launch_plan, "
                   "agent, model, verification, ref_us, cand_us, speedup, "
                   "created_at, verified_on, kind, region_mlir, flops, bytes, "
                   "prompt_version) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                   "?13, COALESCE(NULLIF(?14, ''), ") +
       kNowSql + "), ?15, ?16, ?17, ?18, ?19, ?20) RETURNING id")
          .str(),
      "inserting a kernel");
  if (!insert)
    return insert.takeError();
  bindKey(*insert, key)
      .bind(5, llvm::StringRef(record.source))
      .bind(6, llvm::StringRef(sha))
      .bind(7, llvm::StringRef(*plan))
      .bind(8, llvm::StringRef(record.agent))
      .bind(9, llvm::StringRef(record.model))
      .bind(10, llvm::StringRef(*verification))
      .bind(11, record.refUs)
      .bind(12, record.candUs)
      .bind(13, record.speedup)
      .bind(14, llvm::StringRef(record.createdAt))
      .bind(15, llvm::StringRef(record.verifiedOn))
      .bind(16, llvm::StringRef(record.kind))
      .bind(17, llvm::StringRef(record.regionMlir))
      .bind(18, record.flops)
      .bind(19, record.bytes)
      .bind(20, llvm::StringRef(record.promptVersion));
  llvm::Expected<bool> inserted = insert->step();
  if (!inserted)
    return inserted.takeError();
  return std::make_pair(insert->integer(0), true);
}

llvm::Expected<int64_t> KernelDb::insertKernel(const KernelRecord &record) {
  Connection conn = connection();
  llvm::Expected<Transaction> tx = Transaction::begin(conn);
  if (!tx)
    return tx.takeError();
  llvm::Expected<std::pair<int64_t, bool>> row = insertKernelRow(conn, record);
  if (!row)
    return row.takeError();
  if (llvm::Error error = tx->commit())
    return std::move(error);
  return row->first;
}

llvm::Expected<std::optional<KernelRecord>>
KernelDb::bestKernel(const KernelKey &key) {
  llvm::Expected<Statement> stmt = connection().prepare(
      (llvm::Twine("SELECT ") + kKernelColumns +
       " FROM kernels WHERE region_hash = ?1 AND arch = ?2 AND "
       "cuda_version = ?3 AND contract_version = ?4 "
       "ORDER BY speedup DESC, id ASC LIMIT 1")
          .str(),
      "looking up the best kernel");
  if (!stmt)
    return stmt.takeError();
  bindKey(*stmt, key);
  llvm::Expected<std::vector<KernelRecord>> rows = collect(*stmt, readKernel);
  if (!rows)
    return rows.takeError();
  if (rows->empty())
    return std::nullopt;
  return std::move(rows->front());
}

llvm::Expected<std::vector<KernelRecord>>
KernelDb::bestKernelsOfKind(const KindQuery &query) {
  llvm::Expected<Statement> stmt = connection().prepare(
      (llvm::Twine("SELECT ") + kKernelColumns +
       " FROM (SELECT *, row_number() OVER (PARTITION BY region_hash "
       "ORDER BY speedup DESC, id ASC) AS rank FROM kernels WHERE kind = ?1 "
       "AND (?2 = '' OR arch = ?2) AND region_hash != ?3 AND "
       "region_mlir != '') WHERE rank = 1 ORDER BY speedup DESC, id ASC "
       "LIMIT ?4")
          .str(),
      "looking up kernels of a kind");
  if (!stmt)
    return stmt.takeError();
  stmt->bind(1, llvm::StringRef(query.kind))
      .bind(2, llvm::StringRef(query.arch))
      .bind(3, llvm::StringRef(query.excludeHash))
      .bind(4, static_cast<int64_t>(query.limit));
  return collect(*stmt, readKernel);
}

llvm::Expected<std::vector<KernelRecord>>
KernelDb::listKernels(const KernelFilter &filter) {
  llvm::Expected<Statement> stmt = connection().prepare(
      (llvm::Twine("SELECT ") + kKernelColumns +
       " FROM kernels WHERE (?1 = '' OR substr(region_hash, 1, length(?1)) = "
       "?1) AND (?2 = '' OR arch = ?2) ORDER BY id")
          .str(),
      "listing kernels");
  if (!stmt)
    return stmt.takeError();
  stmt->bind(1, llvm::StringRef(filter.hashPrefix))
      .bind(2, llvm::StringRef(filter.arch));
  return collect(*stmt, readKernel);
}

llvm::Expected<std::optional<KernelRecord>> KernelDb::getKernel(int64_t id) {
  llvm::Expected<Statement> stmt = connection().prepare(
      (llvm::Twine("SELECT ") + kKernelColumns + " FROM kernels WHERE id = ?1")
          .str(),
      "reading a kernel");
  if (!stmt)
    return stmt.takeError();
  stmt->bind(1, id);
  llvm::Expected<std::vector<KernelRecord>> rows = collect(*stmt, readKernel);
  if (!rows)
    return rows.takeError();
  if (rows->empty())
    return std::nullopt;
  return std::move(rows->front());
}

llvm::Expected<int> KernelDb::prune(const PruneOptions &options) {
  if (!options.keepBest && !options.olderThan)
    return makeError("prune needs --keep N, --older-than DATE or both");
  if (options.olderThan &&
      !llvm::Regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+Z?)?$")
           .match(*options.olderThan))
    return makeError("'" + *options.olderThan +
                     "' is not a date: expected YYYY-MM-DD");
  Connection conn = connection();
  llvm::Expected<Transaction> tx = Transaction::begin(conn);
  if (!tx)
    return tx.takeError();
  // A kernel goes when it matches every criterion given (NULL = not given).
  llvm::Expected<Statement> stmt = conn.prepare(
      "DELETE FROM kernels WHERE id IN (SELECT id FROM (SELECT id, "
      "created_at, row_number() OVER (PARTITION BY region_hash, arch, "
      "cuda_version, contract_version ORDER BY speedup DESC, id ASC) AS rank "
      "FROM kernels) WHERE (?1 IS NULL OR rank > ?1) AND "
      "(?2 IS NULL OR created_at < ?2))",
      "pruning kernels");
  if (!stmt)
    return stmt.takeError();
  if (options.keepBest)
    stmt->bind(1, static_cast<int64_t>(*options.keepBest));
  if (options.olderThan)
    stmt->bind(2, llvm::StringRef(*options.olderThan));
  if (llvm::Expected<bool> done = stmt->step(); !done)
    return done.takeError();
  int removed = sqlite3_changes(db);
  if (llvm::Error error = tx->commit())
    return std::move(error);
  return removed;
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

/// Checks a decision and returns its normalized report.
static llvm::Expected<std::string> checkDecision(Connection conn,
                                                 const DecisionRecord &record) {
  if (record.regionHash.empty() || record.arch.empty())
    return makeError("kernel database " + conn.path +
                     ": a decision needs a region hash and an arch");
  if (record.decision != "spliced" && record.decision != "default")
    return makeError("kernel database " + conn.path + ": decision '" +
                     record.decision + "' is neither 'spliced' nor 'default'");
  if (record.kernelId >= 0) {
    llvm::Expected<std::string> count = conn.queryText(
        ("SELECT count(*) FROM kernels WHERE id = " +
         llvm::Twine(record.kernelId))
            .str(),
        "looking up a decision's kernel");
    if (!count)
      return count.takeError();
    if (*count == "0")
      return makeError("kernel database " + conn.path + ": decision names " +
                       "kernel " + llvm::Twine(record.kernelId) +
                       ", which is not in the database");
  }
  return normalizeJson(record.reportJson, "the decision report");
}

llvm::Expected<int64_t> detail::insertDecisionRow(Connection conn,
                                                  const DecisionRecord &record,
                                                  bool skipDuplicate) {
  llvm::Expected<std::string> report = checkDecision(conn, record);
  if (!report)
    return report.takeError();
  std::optional<int64_t> kernelId;
  if (record.kernelId >= 0)
    kernelId = record.kernelId;
  // Both statements take the decision's fields as ?1..?7 in this order.
  auto bindFields = [&](Statement &statement) {
    statement.bind(1, llvm::StringRef(record.regionHash))
        .bind(2, llvm::StringRef(record.arch))
        .bind(3, llvm::StringRef(record.decision))
        .bind(4, llvm::StringRef(record.reason))
        .bind(5, llvm::StringRef(*report))
        .bind(6, llvm::StringRef(record.createdAt))
        .bind(7, kernelId);
  };
  if (skipDuplicate) {
    llvm::Expected<Statement> find = conn.prepare(
        "SELECT id FROM decisions WHERE region_hash = ?1 AND arch = ?2 AND "
        "decision = ?3 AND reason = ?4 AND report = ?5 AND created_at = ?6 "
        "AND kernel_id IS ?7",
        "looking up a decision");
    if (!find)
      return find.takeError();
    bindFields(*find);
    llvm::Expected<bool> found = find->step();
    if (!found)
      return found.takeError();
    if (*found)
      return -1;
  }
  llvm::Expected<Statement> insert = conn.prepare(
      (llvm::Twine("INSERT INTO decisions (region_hash, arch, decision, "
                   "reason, report, created_at, kernel_id) VALUES (?1, ?2, ?3, "
                   "?4, ?5, COALESCE(NULLIF(?6, ''), ") +
       kNowSql + "), ?7) RETURNING id")
          .str(),
      "inserting a decision");
  if (!insert)
    return insert.takeError();
  bindFields(*insert);
  llvm::Expected<bool> row = insert->step();
  if (!row)
    return row.takeError();
  return insert->integer(0);
}

llvm::Expected<int64_t> KernelDb::insertDecision(const DecisionRecord &record) {
  Connection conn = connection();
  llvm::Expected<Transaction> tx = Transaction::begin(conn);
  if (!tx)
    return tx.takeError();
  llvm::Expected<int64_t> id =
      insertDecisionRow(conn, record, /*skipDuplicate=*/false);
  if (!id)
    return id.takeError();
  if (llvm::Error error = tx->commit())
    return std::move(error);
  return *id;
}

llvm::Expected<std::vector<DecisionRecord>>
KernelDb::listDecisions(llvm::StringRef hashPrefix) {
  llvm::Expected<Statement> stmt = connection().prepare(
      (llvm::Twine("SELECT ") + kDecisionColumns +
       " FROM decisions WHERE ?1 = '' OR substr(region_hash, 1, length(?1)) "
       "= ?1 ORDER BY id")
          .str(),
      "listing decisions");
  if (!stmt)
    return stmt.takeError();
  stmt->bind(1, hashPrefix);
  return collect(*stmt, readDecision);
}
