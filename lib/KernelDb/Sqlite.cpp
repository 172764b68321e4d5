//===- Sqlite.cpp - Checked calls into the SQLite C API ---------*- C++ -*-===//
//
// Implements the thin SQLite wrappers of Sqlite.h. Every SQLite result code
// goes through Connection::check.
//
//===----------------------------------------------------------------------===//

#include "Sqlite.h"

using namespace mlir::cuda_agent::sqlite;

llvm::Error Connection::check(int rc, const llvm::Twine &what) const {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE)
    return llvm::Error::success();
  // The connection's message is more precise ("no such table: x") than the
  // code's, but only while it describes this code.
  const char *message = db && sqlite3_errcode(db) == rc ? sqlite3_errmsg(db)
                                                        : sqlite3_errstr(rc);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "kernel database " + path + ": " + what +
                                     ": " + message);
}

llvm::Error Connection::exec(const char *sql, const llvm::Twine &what) const {
  return check(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), what);
}

llvm::Expected<Statement> Connection::prepare(llvm::StringRef sql,
                                              llvm::StringRef what) const {
  sqlite3_stmt *stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()),
                              &stmt, nullptr);
  if (llvm::Error error = check(rc, what)) {
    sqlite3_finalize(stmt);
    return std::move(error);
  }
  return Statement(*this, stmt, what);
}

llvm::Expected<std::string> Connection::queryText(llvm::StringRef sql,
                                                  llvm::StringRef what) const {
  llvm::Expected<Statement> stmt = prepare(sql, what);
  if (!stmt)
    return stmt.takeError();
  llvm::Expected<bool> row = stmt->step();
  if (!row)
    return row.takeError();
  if (!*row || stmt->isNull(0))
    return std::string();
  return stmt->text(0).str();
}

Statement &Statement::noteBind(int rc) {
  if (bindRc == SQLITE_OK)
    bindRc = rc;
  return *this;
}

Statement &Statement::bind(int index, llvm::StringRef value) {
  // SQLITE_TRANSIENT: SQLite copies, so `value` need not outlive the step.
  return noteBind(sqlite3_bind_text64(stmt, index, value.data(), value.size(),
                                      SQLITE_TRANSIENT, SQLITE_UTF8));
}

Statement &Statement::bind(int index, int64_t value) {
  return noteBind(sqlite3_bind_int64(stmt, index, value));
}

Statement &Statement::bind(int index, double value) {
  return noteBind(sqlite3_bind_double(stmt, index, value));
}

Statement &Statement::bindNull(int index) {
  return noteBind(sqlite3_bind_null(stmt, index));
}

llvm::Expected<bool> Statement::step() {
  if (llvm::Error error = conn.check(bindRc, what))
    return std::move(error);
  int rc = sqlite3_step(stmt);
  if (llvm::Error error = conn.check(rc, what))
    return std::move(error);
  return rc == SQLITE_ROW;
}

void Statement::reset() {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  bindRc = SQLITE_OK;
}

bool Statement::isNull(int column) const {
  return type(column) == SQLITE_NULL;
}

llvm::StringRef Statement::text(int column) const {
  const unsigned char *data = sqlite3_column_text(stmt, column);
  if (!data)
    return {};
  return llvm::StringRef(reinterpret_cast<const char *>(data),
                         sqlite3_column_bytes(stmt, column));
}

int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt, column);
}

double Statement::real(int column) const {
  return sqlite3_column_double(stmt, column);
}

int Statement::type(int column) const {
  return sqlite3_column_type(stmt, column);
}

llvm::Expected<Transaction> Transaction::begin(Connection conn) {
  if (llvm::Error error =
          conn.exec("BEGIN IMMEDIATE", "starting a write transaction"))
    return std::move(error);
  return Transaction(conn);
}

Transaction::~Transaction() {
  if (open)
    sqlite3_exec(conn.db, "ROLLBACK", nullptr, nullptr, nullptr);
}

llvm::Error Transaction::commit() {
  if (llvm::Error error = conn.exec("COMMIT", "committing"))
    return error;
  open = false;
  return llvm::Error::success();
}
