//===- KernelDbInternal.h - Shared by the KernelDb sources ------*- C++ -*-===//
//
// Row-level helpers that both the queries (KernelDb.cpp) and import
// (KernelDbJson.cpp) use inside a transaction they already hold. Private to
// lib/KernelDb.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_KERNELDB_KERNELDBINTERNAL_H
#define CUDA_AGENT_LIB_KERNELDB_KERNELDBINTERNAL_H

#include "Sqlite.h"

#include "cuda-agent/KernelDb/KernelDb.h"

#include <utility>

namespace mlir::cuda_agent::detail {

/// The SHA-256 of a kernel's source, 64 lowercase hex digits; with the key,
/// it identifies a kernel.
std::string sourceHash(llvm::StringRef source);

/// Returns `text` re-printed as compact JSON with sorted keys ("" stays ""),
/// so that equal JSON is stored as equal text; `field` names it in the error.
llvm::Expected<std::string> normalizeJson(llvm::StringRef text,
                                          llvm::StringRef field);

/// Inserts a kernel unless the same key and source is stored; returns the
/// row id and whether a row was added. Needs a transaction.
llvm::Expected<std::pair<int64_t, bool>>
insertKernelRow(sqlite::Connection conn, const KernelRecord &record);

/// Inserts a decision and returns its id. With `skipDuplicate`, a decision
/// equal in every field to a stored one is not added and -1 is returned.
/// Needs a transaction.
llvm::Expected<int64_t> insertDecisionRow(sqlite::Connection conn,
                                          const DecisionRecord &record,
                                          bool skipDuplicate);

} // namespace mlir::cuda_agent::detail

#endif // CUDA_AGENT_LIB_KERNELDB_KERNELDBINTERNAL_H
