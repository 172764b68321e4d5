//===- KernelDbTest.cpp - Unit tests for the kernel database ----*- C++ -*-===//
//
// What lit cannot see: the C++ API's results, what is on disk afterwards
// (journal mode, untouched bytes of refused files), schema versions and
// migrations, and two handles on one file at once.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/KernelDb/KernelDb.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

using namespace mlir::cuda_agent;

namespace {

// Debian ships no LLVMTestingSupport, so these stand in for its matchers.

/// Success, or a failure that shows the error.
template <typename T> testing::AssertionResult ok(llvm::Expected<T> &value) {
  if (value)
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << llvm::toString(value.takeError());
}
template <typename T> testing::AssertionResult ok(llvm::Expected<T> &&value) {
  return ok(value);
}
testing::AssertionResult ok(llvm::Error error) {
  if (!error)
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << llvm::toString(std::move(error));
}

/// The value, or nullopt on error.
template <typename T> std::optional<T> valueOf(llvm::Expected<T> value) {
  if (value)
    return std::move(*value);
  llvm::consumeError(value.takeError());
  return std::nullopt;
}

/// Success when `error` is an error whose message contains `part`.
testing::AssertionResult failsWith(llvm::Error error, llvm::StringRef part) {
  if (!error)
    return testing::AssertionFailure() << "succeeded";
  std::string message = llvm::toString(std::move(error));
  if (llvm::StringRef(message).contains(part))
    return testing::AssertionSuccess() << message;
  return testing::AssertionFailure()
         << "message '" << message << "' lacks '" << part.str() << "'";
}
template <typename T>
testing::AssertionResult failsWith(llvm::Expected<T> value,
                                   llvm::StringRef part) {
  if (value)
    return testing::AssertionFailure() << "succeeded";
  return failsWith(value.takeError(), part);
}

/// Each test gets a fresh directory, removed afterwards.
class KernelDbTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kerneldb-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string pathOf(llvm::StringRef name) const {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

  /// Opens (creating) `name` in the test directory; fails the test on error.
  std::unique_ptr<KernelDb> create(llvm::StringRef name = "kernels.db") {
    llvm::Expected<std::unique_ptr<KernelDb>> db =
        KernelDb::open(pathOf(name), /*create=*/true);
    EXPECT_TRUE(ok(db));
    return db ? std::move(*db) : nullptr;
  }

  llvm::SmallString<128> dir;
};

KernelKey key(llvm::StringRef hash = "ab12cd34ef56ab12cd34ef56",
              llvm::StringRef arch = "sm_90") {
  return KernelKey{hash.str(), arch.str(), "13.0", 1};
}

KernelRecord kernel(const KernelKey &k, double speedup,
                    llvm::StringRef source = "extern \"C\" __global__ void "
                                             "k0(float *x) {}\n",
                    llvm::StringRef createdAt = "2025-06-01T12:00:00Z") {
  KernelRecord r;
  r.key = k;
  r.source = source.str();
  r.launchPlanJson = R"({"launches":[{"block":[256,1,1],"grid":[4,1,1],)"
                     R"("kernel":"k0","shared_bytes":0}],"workspace_bytes":0})";
  r.agent = "replay";
  r.model = "recorded";
  r.verification = R"({"max_abs_err":0,"runs":3})";
  r.refUs = 10.0;
  r.candUs = 10.0 / speedup;
  r.speedup = speedup;
  r.createdAt = createdAt.str();
  r.verifiedOn = "NVIDIA H200";
  return r;
}

std::string readBytes(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  EXPECT_TRUE(bool(buffer)) << path.str();
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

void writeBytes(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << bytes;
}

/// Runs `sql` on `path` with plain SQLite and returns the first column of the
/// last row ("" if none).
std::string rawQuery(llvm::StringRef path, const char *sql) {
  sqlite3 *db = nullptr;
  EXPECT_EQ(sqlite3_open(path.str().c_str(), &db), SQLITE_OK);
  std::string result;
  auto callback = [](void *out, int, char **values, char **) {
    *static_cast<std::string *>(out) = values[0] ? values[0] : "";
    return 0;
  };
  char *error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, callback, &result, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return result;
}

std::string errorOf(llvm::Expected<std::unique_ptr<KernelDb>> db) {
  EXPECT_FALSE(bool(db)) << "open should have failed";
  return db ? std::string() : llvm::toString(db.takeError());
}

//===----------------------------------------------------------------------===//
// Opening and safety
//===----------------------------------------------------------------------===//

TEST_F(KernelDbTest, CreatesParentDirectoriesAndUsesWal) {
  std::string path = pathOf("a/b/kernels.db");
  {
    llvm::Expected<std::unique_ptr<KernelDb>> db = KernelDb::open(path, true);
    ASSERT_TRUE(ok(db));
    EXPECT_EQ((*db)->path(), path);
  }
  EXPECT_TRUE(llvm::sys::fs::exists(path));
  // WAL is a property of the file: a plain connection sees it.
  EXPECT_EQ(rawQuery(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(rawQuery(path, "SELECT value FROM meta WHERE key='application'"),
            "cuda-agent-kernel-db");
  EXPECT_EQ(rawQuery(path, "SELECT value FROM meta WHERE key='schema_version'"),
            std::to_string(KernelDb::kSchemaVersion));
}

TEST_F(KernelDbTest, MissingFileWithoutCreateIsAnError) {
  std::string path = pathOf("missing.db");
  EXPECT_NE(errorOf(KernelDb::open(path, false)).find("no kernel database at"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

TEST_F(KernelDbTest, EmptyFileIsInitialized) {
  std::string path = pathOf("empty.db");
  writeBytes(path, "");
  EXPECT_NE(errorOf(KernelDb::open(path, false)).find("is empty"),
            std::string::npos);
  ASSERT_TRUE(ok(KernelDb::open(path, true)));
  EXPECT_EQ(rawQuery(path, "SELECT count(*) FROM kernels"), "0");
}

TEST_F(KernelDbTest, TextFileIsRefusedAndUnchanged) {
  std::string path = pathOf("notes.txt");
  std::string text = "these are my notes, not a database\n";
  writeBytes(path, text);
  for (bool create : {false, true}) {
    std::string error = errorOf(KernelDb::open(path, create));
    EXPECT_EQ(error, "not a kernel database: " + path +
                         ": file is not a database");
    EXPECT_EQ(readBytes(path), text);
  }
  // No journal or WAL file was left next to it.
  EXPECT_FALSE(llvm::sys::fs::exists(path + "-wal"));
  EXPECT_FALSE(llvm::sys::fs::exists(path + "-journal"));
}

TEST_F(KernelDbTest, LongBinaryFileIsRefusedAndUnchanged) {
  // Longer than a SQLite page, so SQLite itself would read it.
  std::string path = pathOf("blob.bin");
  std::string bytes(8192, '\x5a');
  writeBytes(path, bytes);
  EXPECT_NE(errorOf(KernelDb::open(path, true)).find("not a kernel database"),
            std::string::npos);
  EXPECT_EQ(readBytes(path), bytes);
}

TEST_F(KernelDbTest, ForeignSqliteDatabaseIsRefusedAndUnchanged) {
  std::string path = pathOf("other.db");
  rawQuery(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);"
                 "INSERT INTO photos (name) VALUES ('cat.jpg')");
  std::string before = readBytes(path);
  std::string error = errorOf(KernelDb::open(path, true));
  EXPECT_NE(error.find("foreign database: " + path), std::string::npos)
      << error;
  EXPECT_NE(error.find("no 'meta' table"), std::string::npos) << error;
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(rawQuery(path, "PRAGMA journal_mode"), "delete");
}

TEST_F(KernelDbTest, OtherApplicationsMetaTableIsRefusedAndUnchanged) {
  std::string path = pathOf("other-meta.db");
  rawQuery(path, "CREATE TABLE meta (key TEXT PRIMARY KEY, value);"
                 "INSERT INTO meta VALUES ('application', 'photo-manager'),"
                 "('schema_version', 1)");
  std::string before = readBytes(path);
  std::string error = errorOf(KernelDb::open(path, true));
  EXPECT_NE(error.find("foreign database"), std::string::npos) << error;
  EXPECT_NE(error.find("'photo-manager'"), std::string::npos) << error;
  EXPECT_EQ(readBytes(path), before);
}

TEST_F(KernelDbTest, NewerSchemaIsRefusedAndUnchanged) {
  std::string path = pathOf("future.db");
  create("future.db").reset();
  rawQuery(path, "PRAGMA journal_mode = DELETE;"
                 "UPDATE meta SET value = 99 WHERE key = 'schema_version'");
  std::string before = readBytes(path);
  std::string error = errorOf(KernelDb::open(path, true));
  EXPECT_NE(error.find("has schema version 99, newer than this build"),
            std::string::npos)
      << error;
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(rawQuery(path, "PRAGMA journal_mode"), "delete");
}

TEST_F(KernelDbTest, OlderSchemaIsMigrated) {
  // A version-0 file: the meta table and nothing else.
  std::string path = pathOf("old.db");
  rawQuery(path, "CREATE TABLE meta (key TEXT PRIMARY KEY, value);"
                 "INSERT INTO meta VALUES ('application', "
                 "'cuda-agent-kernel-db'), ('schema_version', 0)");
  std::unique_ptr<KernelDb> db = create("old.db");
  ASSERT_TRUE(db);
  EXPECT_EQ(rawQuery(path, "SELECT value FROM meta WHERE key='schema_version'"),
            std::to_string(KernelDb::kSchemaVersion));
  EXPECT_EQ(valueOf(db->insertKernel(kernel(key(), 2.0))), 1);
}

TEST_F(KernelDbTest, PromptVersionIsStoredAndDoesNotSplitLookups) {
  std::unique_ptr<KernelDb> db = create("prompt.db");
  ASSERT_TRUE(db);
  KernelRecord fromModel = kernel(key(), 3.0, "model");
  fromModel.promptVersion = "prompt-v2";
  ASSERT_TRUE(ok(db->insertKernel(fromModel)));
  ASSERT_TRUE(ok(db->insertKernel(kernel(key(), 2.0, "builtin"))));
  llvm::Expected<std::optional<KernelRecord>> best = db->bestKernel(key());
  ASSERT_TRUE(ok(best));
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->promptVersion, "prompt-v2");
  EXPECT_EQ(rawQuery(pathOf("prompt.db"),
                     "SELECT count(*) FROM kernels WHERE prompt_version = ''"),
            "1");
}

TEST_F(KernelDbTest, CorruptDatabaseIsRefused) {
  std::string path = pathOf("corrupt.db");
  {
    std::unique_ptr<KernelDb> db = create("corrupt.db");
    for (int i = 0; i < 200; ++i)
      ASSERT_TRUE(ok(db->insertKernel(kernel(key(), 1.0 + i, std::string(200, 'a' + i % 26) +
                                                      std::to_string(i)))));
  }
  rawQuery(path, "PRAGMA journal_mode = DELETE");
  // Keep the header, scribble over the pages after the first.
  std::string bytes = readBytes(path);
  ASSERT_GT(bytes.size(), 3 * 4096u);
  for (size_t i = 4096; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i * 7);
  writeBytes(path, bytes);
  std::string error = errorOf(KernelDb::open(path, true));
  EXPECT_NE(error.find("corrupt kernel database: " + path), std::string::npos)
      << error;
  EXPECT_EQ(readBytes(path), bytes);
}

//===----------------------------------------------------------------------===//
// Kernels and decisions
//===----------------------------------------------------------------------===//

TEST_F(KernelDbTest, InsertsAndReadsKernels) {
  std::unique_ptr<KernelDb> db = create();
  KernelRecord record = kernel(key(), 2.5);
  llvm::Expected<int64_t> id = db->insertKernel(record);
  ASSERT_TRUE(ok(id));
  llvm::Expected<std::optional<KernelRecord>> read = db->getKernel(*id);
  ASSERT_TRUE(ok(read));
  ASSERT_TRUE(read->has_value());
  record.id = *id;
  EXPECT_EQ(**read, record);

  llvm::Expected<std::optional<KernelRecord>> missing = db->getKernel(*id + 7);
  ASSERT_TRUE(ok(missing));
  EXPECT_FALSE(missing->has_value());
}

TEST_F(KernelDbTest, SameKernelIsStoredOnce) {
  std::unique_ptr<KernelDb> db = create();
  llvm::Expected<int64_t> first = db->insertKernel(kernel(key(), 2.0));
  ASSERT_TRUE(ok(first));
  EXPECT_EQ(valueOf(db->insertKernel(kernel(key(), 3.0))), *first);
  // Another arch is another key.
  EXPECT_EQ(valueOf(db->insertKernel(kernel(key("ab12", "sm_80"), 2.0))), *first + 1);
  llvm::Expected<std::vector<KernelRecord>> all = db->listKernels();
  ASSERT_TRUE(ok(all));
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].speedup, 2.0);
}

TEST_F(KernelDbTest, CreatedAtDefaultsToNow) {
  std::unique_ptr<KernelDb> db = create();
  llvm::Expected<int64_t> id = db->insertKernel(kernel(key(), 2.0, "src", ""));
  ASSERT_TRUE(ok(id));
  llvm::Expected<std::optional<KernelRecord>> read = db->getKernel(*id);
  ASSERT_TRUE(ok(read));
  ASSERT_TRUE(read->has_value());
  llvm::StringRef createdAt = (*read)->createdAt;
  EXPECT_EQ(createdAt.size(), 20u) << createdAt.str();
  EXPECT_TRUE(createdAt.starts_with("20") && createdAt.ends_with("Z"))
      << createdAt.str();
}

TEST_F(KernelDbTest, RejectsInvalidKernels) {
  std::unique_ptr<KernelDb> db = create();
  KernelRecord noArch = kernel(key("ab", ""), 2.0);
  EXPECT_TRUE(failsWith(db->insertKernel(noArch), ""));
  KernelRecord badPlan = kernel(key(), 2.0);
  badPlan.launchPlanJson = "{launches:";
  EXPECT_TRUE(failsWith(db->insertKernel(badPlan), "launch plan is not valid"));
  KernelRecord nan = kernel(key(), 2.0);
  nan.speedup = std::nan("");
  EXPECT_TRUE(failsWith(db->insertKernel(nan), ""));
  llvm::Expected<std::vector<KernelRecord>> all = db->listKernels();
  ASSERT_TRUE(ok(all));
  EXPECT_TRUE(all->empty());
}

TEST_F(KernelDbTest, BestKernelHasHighestSpeedup) {
  std::unique_ptr<KernelDb> db = create();
  for (auto [speedup, source] :
       {std::pair{1.5, "a"}, std::pair{3.25, "b"}, std::pair{2.0, "c"}})
    ASSERT_TRUE(ok(db->insertKernel(kernel(key(), speedup, source))));
  // Faster, but for another arch.
  ASSERT_TRUE(ok(db->insertKernel(kernel(key("ab12cd34ef56ab12cd34ef56",
                                                   "sm_80"),
                                               9.0))));
  llvm::Expected<std::optional<KernelRecord>> best = db->bestKernel(key());
  ASSERT_TRUE(ok(best));
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->speedup, 3.25);
  EXPECT_EQ((*best)->source, "b");

  KernelKey otherContract = key();
  otherContract.contractVersion = 2;
  llvm::Expected<std::optional<KernelRecord>> none =
      db->bestKernel(otherContract);
  ASSERT_TRUE(ok(none));
  EXPECT_FALSE(none->has_value());
}

TEST_F(KernelDbTest, ListFiltersByHashPrefixAndArch) {
  std::unique_ptr<KernelDb> db = create();
  ASSERT_TRUE(ok(db->insertKernel(kernel(key("aaaa11", "sm_90"), 2))));
  ASSERT_TRUE(ok(db->insertKernel(kernel(key("aaaa22", "sm_80"), 2))));
  ASSERT_TRUE(ok(db->insertKernel(kernel(key("bbbb11", "sm_90"), 2))));
  auto hashes = [&](KernelFilter filter) {
    std::vector<std::string> out;
    llvm::Expected<std::vector<KernelRecord>> list = db->listKernels(filter);
    EXPECT_TRUE(ok(list));
    if (list)
      for (const KernelRecord &r : *list)
        out.push_back(r.key.regionHash);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(hashes({}), (V{"aaaa11", "aaaa22", "bbbb11"}));
  EXPECT_EQ(hashes({"aaaa", ""}), (V{"aaaa11", "aaaa22"}));
  EXPECT_EQ(hashes({"", "sm_90"}), (V{"aaaa11", "bbbb11"}));
  EXPECT_EQ(hashes({"aa", "sm_80"}), (V{"aaaa22"}));
  EXPECT_EQ(hashes({"c", ""}), V{});
}

TEST_F(KernelDbTest, StoresDecisions) {
  std::unique_ptr<KernelDb> db = create();
  llvm::Expected<int64_t> kernelId = db->insertKernel(kernel(key(), 2.0));
  ASSERT_TRUE(ok(kernelId));
  DecisionRecord spliced{key().regionHash, "sm_90", "spliced",
                         "spliced kernel: 2.00x faster", R"({"speedup":2})",
                         "2025-06-01T12:00:01Z", *kernelId};
  DecisionRecord kept{"ffff0000", "sm_90", "default",
                      "kept default lowering: best candidate was 1.3x slower",
                      "", "2025-06-01T12:00:02Z", -1};
  llvm::Expected<int64_t> first = db->insertDecision(spliced);
  ASSERT_TRUE(ok(first));
  // Every decision is a row, even a repeated one.
  EXPECT_EQ(valueOf(db->insertDecision(spliced)), *first + 1);
  EXPECT_EQ(valueOf(db->insertDecision(kept)), *first + 2);

  llvm::Expected<std::vector<DecisionRecord>> forRegion =
      db->listDecisions(key().regionHash.substr(0, 6));
  ASSERT_TRUE(ok(forRegion));
  ASSERT_EQ(forRegion->size(), 2u);
  spliced.id = *first;
  EXPECT_EQ((*forRegion)[0], spliced);
  llvm::Expected<std::vector<DecisionRecord>> all = db->listDecisions();
  ASSERT_TRUE(ok(all));
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].kernelId, -1);

  DecisionRecord bad = kept;
  bad.decision = "maybe";
  EXPECT_TRUE(failsWith(db->insertDecision(bad), "neither 'spliced' nor 'default'"));
  DecisionRecord dangling = spliced;
  dangling.kernelId = 999;
  EXPECT_TRUE(failsWith(db->insertDecision(dangling), "kernel 999, which is not in the database"));
}

//===----------------------------------------------------------------------===//
// Export, import, prune
//===----------------------------------------------------------------------===//

/// Fills `db` with three kernels over two keys and two decisions.
void populate(KernelDb &db) {
  llvm::Expected<int64_t> a = db.insertKernel(kernel(key(), 2.0, "a"));
  ASSERT_TRUE(ok(a));
  KernelRecord b = kernel(key(), 3.0, "b");
  b.agent = "openai";
  b.promptVersion = "prompt-v2";
  ASSERT_TRUE(ok(db.insertKernel(b)));
  ASSERT_TRUE(ok(db.insertKernel(kernel(key("cc", "sm_80"), 1.2, "c"))));
  ASSERT_TRUE(ok(db.insertDecision({key().regionHash, "sm_90", "spliced", "fastest",
                         R"({"b":1,"a":[1,2]})", "2025-06-02T00:00:00Z", *a})));
  ASSERT_TRUE(ok(db.insertDecision({"cc", "sm_80", "default", "slower",
                                          "", "2025-06-02T00:00:01Z", -1})));
}

TEST_F(KernelDbTest, ExportImportRoundTrip) {
  std::unique_ptr<KernelDb> source = create("source.db");
  populate(*source);
  llvm::Expected<llvm::json::Value> exported = source->exportJson();
  ASSERT_TRUE(ok(exported));

  std::unique_ptr<KernelDb> target = create("target.db");
  ImportStats stats;
  ASSERT_TRUE(ok(target->importJson(*exported, &stats)));
  EXPECT_EQ(stats.kernelsAdded, 3);
  EXPECT_EQ(stats.decisionsAdded, 2);

  llvm::Expected<llvm::json::Value> again = target->exportJson();
  ASSERT_TRUE(ok(again));
  EXPECT_EQ(*again, *exported);
  llvm::Expected<std::vector<KernelRecord>> before = source->listKernels();
  llvm::Expected<std::vector<KernelRecord>> after = target->listKernels();
  ASSERT_TRUE(ok(before));
  ASSERT_TRUE(ok(after));
  EXPECT_EQ(*before, *after);
}

TEST_F(KernelDbTest, ImportIsIdempotentAndMapsKernelIds) {
  std::unique_ptr<KernelDb> source = create("source.db");
  populate(*source);
  llvm::Expected<llvm::json::Value> exported = source->exportJson();
  ASSERT_TRUE(ok(exported));

  // The target already has a kernel, so imported ids shift by one.
  std::unique_ptr<KernelDb> target = create("target.db");
  ASSERT_EQ(valueOf(target->insertKernel(kernel(key("dd"), 1.1, "d"))), 1);
  for (int round = 0; round < 2; ++round) {
    ImportStats stats;
    ASSERT_TRUE(ok(target->importJson(*exported, &stats)));
    EXPECT_EQ(stats.kernelsAdded, round ? 0 : 3);
    EXPECT_EQ(stats.kernelsSkipped, round ? 3 : 0);
    EXPECT_EQ(stats.decisionsAdded, round ? 0 : 2);
  }
  llvm::Expected<std::vector<KernelRecord>> kernels = target->listKernels();
  ASSERT_TRUE(ok(kernels));
  EXPECT_EQ(kernels->size(), 4u);
  llvm::Expected<std::vector<DecisionRecord>> decisions =
      target->listDecisions();
  ASSERT_TRUE(ok(decisions));
  ASSERT_EQ(decisions->size(), 2u);
  // Kernel "a" was id 1 in the source and is id 2 here.
  EXPECT_EQ((*decisions)[0].kernelId, 2);
  llvm::Expected<std::optional<KernelRecord>> a = target->getKernel(2);
  ASSERT_TRUE(ok(a));
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->source, "a");
}

TEST_F(KernelDbTest, ImportRejectsWrongFilesWithoutAddingAnything) {
  std::unique_ptr<KernelDb> db = create();
  EXPECT_TRUE(failsWith(db->importJson(llvm::json::Object{{"kernels", 1}}), "not a cuda-agent kernel database export"));

  std::unique_ptr<KernelDb> source = create("source.db");
  populate(*source);
  llvm::Expected<llvm::json::Value> exported = source->exportJson();
  ASSERT_TRUE(ok(exported));
  // Break the last kernel: the two before it must not be added either.
  llvm::json::Array *kernels =
      exported->getAsObject()->getArray("kernels");
  ASSERT_TRUE(kernels);
  kernels->back().getAsObject()->erase("arch");
  EXPECT_TRUE(failsWith(db->importJson(*exported), "arch"));
  llvm::Expected<std::vector<KernelRecord>> all = db->listKernels();
  ASSERT_TRUE(ok(all));
  EXPECT_TRUE(all->empty());
}

TEST_F(KernelDbTest, PruneKeepsBestPerKey) {
  std::unique_ptr<KernelDb> db = create();
  populate(*db);
  // Key 1 has 2.0 ("a", id 1) and 3.0 ("b", id 2); key 2 has 1.2 ("c").
  EXPECT_EQ(valueOf(db->prune({1, std::nullopt})), 1);
  llvm::Expected<std::vector<KernelRecord>> left = db->listKernels();
  ASSERT_TRUE(ok(left));
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].source, "b");
  EXPECT_EQ((*left)[1].source, "c");
  // The decision that named the pruned kernel stays, without its kernel.
  llvm::Expected<std::vector<DecisionRecord>> decisions = db->listDecisions();
  ASSERT_TRUE(ok(decisions));
  ASSERT_EQ(decisions->size(), 2u);
  EXPECT_EQ((*decisions)[0].kernelId, -1);
}

TEST_F(KernelDbTest, PruneByDateAndBoth) {
  std::unique_ptr<KernelDb> db = create();
  for (auto [speedup, source, date] :
       {std::tuple{3.0, "best-old", "2024-01-01T00:00:00Z"},
        std::tuple{2.0, "mid-old", "2024-02-01T00:00:00Z"},
        std::tuple{1.0, "worst-new", "2025-03-01T00:00:00Z"}})
    ASSERT_TRUE(ok(db->insertKernel(kernel(key(), speedup, source, date))));
  // Both: below the best 1 and older than 2025 -> only "mid-old".
  EXPECT_EQ(valueOf(db->prune({1, std::string("2025-01-01")})), 1);
  // Date alone: everything before 2024-06-01 -> "best-old".
  EXPECT_EQ(valueOf(db->prune({std::nullopt, std::string("2024-06-01")})), 1);
  llvm::Expected<std::vector<KernelRecord>> left = db->listKernels();
  ASSERT_TRUE(ok(left));
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].source, "worst-new");

  EXPECT_TRUE(failsWith(db->prune({}), ""));
  EXPECT_TRUE(failsWith(db->prune({std::nullopt, std::string("yesterday")}), "is not a date"));
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST_F(KernelDbTest, TwoHandlesShareOneFile) {
  std::unique_ptr<KernelDb> a = create();
  std::unique_ptr<KernelDb> b = create();
  ASSERT_TRUE(a && b);
  ASSERT_EQ(valueOf(a->insertKernel(kernel(key(), 2.0, "from a"))), 1);
  ASSERT_EQ(valueOf(b->insertKernel(kernel(key(), 3.0, "from b"))), 2);
  llvm::Expected<std::optional<KernelRecord>> best = a->bestKernel(key());
  ASSERT_TRUE(ok(best));
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->source, "from b");
}

TEST_F(KernelDbTest, WriterWaitsForALockInsteadOfFailing) {
  std::unique_ptr<KernelDb> db = create();
  ASSERT_TRUE(db);
  // Another connection holds the write lock for a while.
  sqlite3 *other = nullptr;
  ASSERT_EQ(sqlite3_open(pathOf("kernels.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::thread release([other] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  });
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<int64_t> id = db->insertKernel(kernel(key(), 2.0));
  auto waited = std::chrono::steady_clock::now() - start;
  release.join();
  sqlite3_close(other);
  EXPECT_TRUE(ok(id));
  EXPECT_GE(waited, std::chrono::milliseconds(200));
}

TEST(KernelDbPathTest, DefaultPathFollowsXdgCacheHome) {
  // defaultPath() is computed once per process; no other test calls it.
  setenv("XDG_CACHE_HOME", "/xdg-cache-for-test", /*overwrite=*/1);
  EXPECT_EQ(KernelDb::defaultPath(), "/xdg-cache-for-test/cuda-agent/kernels.db");
}

} // namespace

namespace {

TEST_F(KernelDbTest, BestKernelsOfAKindOnePerRegionFastestFirst) {
  std::unique_ptr<KernelDb> db = create("kinds.db");
  ASSERT_TRUE(db);
  auto of = [](llvm::StringRef hash, llvm::StringRef kind, double speedup,
               llvm::StringRef source, llvm::StringRef arch = "sm_90") {
    KernelRecord r = kernel(key(hash, arch), speedup, source);
    r.kind = kind.str();
    r.regionMlir = ("func.func @region() // " + hash + "\n").str();
    r.flops = 10;
    r.bytes = 100;
    return r;
  };
  // Region a: two kernels, the faster one represents it.
  valueOf(db->insertKernel(of("aaaa", "reduction", 1.5, "a slow")));
  valueOf(db->insertKernel(of("aaaa", "reduction", 3.0, "a fast")));
  valueOf(db->insertKernel(of("bbbb", "reduction", 2.0, "b")));
  valueOf(db->insertKernel(of("cccc", "elementwise", 9.0, "c")));
  valueOf(db->insertKernel(of("dddd", "reduction", 8.0, "d", "sm_80")));
  // A kernel stored without its region (schema 1) is no example.
  KernelRecord bare = kernel(key("eeee"), 7.0, "e");
  bare.kind = "reduction";
  valueOf(db->insertKernel(bare));

  auto sources = [&](const KindQuery &query) {
    std::vector<std::string> out;
    // Held here: ranging over `*valueOf(...)` would outlive the optional.
    std::optional<std::vector<KernelRecord>> rows =
        valueOf(db->bestKernelsOfKind(query));
    EXPECT_TRUE(rows.has_value());
    for (const KernelRecord &r : rows.value_or(std::vector<KernelRecord>()))
      out.push_back(r.source);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(sources({"reduction", "sm_90", "", 32}), (V{"a fast", "b"}));
  EXPECT_EQ(sources({"reduction", "", "", 32}), (V{"d", "a fast", "b"}));
  EXPECT_EQ(sources({"reduction", "sm_90", "aaaa", 32}), (V{"b"}));
  EXPECT_EQ(sources({"reduction", "", "", 1}), (V{"d"}));
  EXPECT_EQ(sources({"contraction", "", "", 32}), V{});
  // The new fields survive the round trip.
  KernelRecord best = valueOf(db->bestKernelsOfKind({"elementwise"}))->at(0);
  EXPECT_EQ(best.kind, "elementwise");
  EXPECT_EQ(best.regionMlir, "func.func @region() // cccc\n");
  EXPECT_EQ(best.flops, 10);
  EXPECT_EQ(best.bytes, 100);
}

} // namespace
