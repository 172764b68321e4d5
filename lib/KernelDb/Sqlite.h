//===- Sqlite.h - Checked calls into the SQLite C API -----------*- C++ -*-===//
//
// The few pieces of the SQLite C API the kernel database uses, wrapped so that
// every result code is checked in one place (Connection::check) and turned
// into an llvm::Error that names the file and what was being done. Private to
// lib/KernelDb.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_KERNELDB_SQLITE_H
#define CUDA_AGENT_LIB_KERNELDB_SQLITE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <sqlite3.h>

#include <cstdint>
#include <optional>

namespace mlir::cuda_agent::sqlite {

class Statement;

/// A connection and the file name that its error messages carry. Does not own
/// the connection.
struct Connection {
  sqlite3 *db;
  llvm::StringRef path;

  /// The one checked call: success for SQLITE_OK, SQLITE_ROW and SQLITE_DONE,
  /// otherwise "kernel database <path>: <what>: <SQLite's message>".
  llvm::Error check(int rc, const llvm::Twine &what) const;

  /// Runs `sql` (any number of statements, no results).
  llvm::Error exec(const char *sql, const llvm::Twine &what) const;

  /// Prepares one statement; `what` names it in later errors.
  llvm::Expected<Statement> prepare(llvm::StringRef sql,
                                    llvm::StringRef what) const;

  /// Runs a statement that returns one text value (a PRAGMA, a count).
  llvm::Expected<std::string> queryText(llvm::StringRef sql,
                                        llvm::StringRef what) const;
};

/// A prepared statement. Bind errors are kept and reported by the next step().
class Statement {
public:
  Statement(Connection conn, sqlite3_stmt *stmt, llvm::StringRef what)
      : conn(conn), stmt(stmt), what(what) {}
  Statement(Statement &&other)
      : conn(other.conn), stmt(other.stmt), what(other.what),
        bindRc(other.bindRc) {
    other.stmt = nullptr;
  }
  Statement &operator=(Statement &&) = delete;
  ~Statement() { sqlite3_finalize(stmt); }

  /// Binds parameter `index` (1-based).
  Statement &bind(int index, llvm::StringRef value);
  Statement &bind(int index, int64_t value);
  Statement &bind(int index, double value);
  Statement &bindNull(int index);
  /// Binds `value`, or NULL when it is nullopt.
  Statement &bind(int index, std::optional<int64_t> value) {
    return value ? bind(index, *value) : bindNull(index);
  }

  /// Advances; true when a row is ready, false when done.
  llvm::Expected<bool> step();
  /// Clears bindings and rewinds, for running the statement again.
  void reset();

  bool isNull(int column) const;
  llvm::StringRef text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  /// The column's storage class: SQLITE_INTEGER, SQLITE_TEXT, ...
  int type(int column) const;

private:
  Statement &noteBind(int rc);

  Connection conn;
  sqlite3_stmt *stmt;
  llvm::StringRef what;
  int bindRc = SQLITE_OK;
};

/// A write transaction (BEGIN IMMEDIATE, so the busy timeout applies to taking
/// the write lock) that is rolled back unless committed.
class Transaction {
public:
  static llvm::Expected<Transaction> begin(Connection conn);
  Transaction(Transaction &&other) : conn(other.conn), open(other.open) {
    other.open = false;
  }
  Transaction &operator=(Transaction &&) = delete;
  ~Transaction();

  llvm::Error commit();

private:
  explicit Transaction(Connection conn) : conn(conn), open(true) {}

  Connection conn;
  bool open;
};

} // namespace mlir::cuda_agent::sqlite

#endif // CUDA_AGENT_LIB_KERNELDB_SQLITE_H
