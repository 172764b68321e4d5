//===- KernelAlignment.cpp - The buffer alignment a kernel needs ----------===//
//
// Scans PTX instruction by instruction for accesses to global memory and
// returns the widest one: what the base of each buffer must be aligned to
// when the kernel's own offsets are multiples of their access size.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Export/KernelAlignment.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// The size in bytes of a PTX type suffix such as `f32`, `b64`, `u8`; 0 when
/// `token` is no type.
int64_t typeBytes(llvm::StringRef token) {
  if (token.size() < 2 || !llvm::is_contained("bfsu", token.front()))
    return 0;
  unsigned bits = 0;
  if (token.drop_front().getAsInteger(10, bits) || bits % 8 != 0)
    return 0;
  return bits / 8;
}

/// The bytes one instruction `mnemonic` (dot-separated, such as
/// `ld.global.nc.v4.f32`) with `operands` moves to or from global memory, 0
/// when it does not touch global memory.
int64_t accessBytes(llvm::StringRef mnemonic, llvm::StringRef operands) {
  llvm::SmallVector<llvm::StringRef> parts;
  mnemonic.split(parts, '.');
  llvm::StringRef op = parts.front();
  if (op == "cp" && parts.size() > 1 && parts[1] == "async") {
    if (llvm::is_contained(parts, "bulk"))
      return 16;
    // cp.async.ca.shared.global [dst], [src], cp-size{, src-size};
    llvm::SmallVector<llvm::StringRef> args;
    operands.split(args, ',');
    int64_t size = 0;
    if (args.size() >= 3 && !args[2].trim().getAsInteger(10, size))
      return size;
    return 16;
  }
  if (!llvm::is_contained({"ld", "st", "red", "atom"}, op) ||
      !llvm::is_contained(parts, "global"))
    return 0;
  int64_t lanes = 1, bytes = 0;
  for (llvm::StringRef part : parts) {
    if (part.size() >= 2 && part.front() == 'v' &&
        llvm::all_of(part.drop_front(), llvm::isDigit))
      part.drop_front().getAsInteger(10, lanes);
    else if (int64_t size = typeBytes(part))
      bytes = size; // The last type suffix is the access's.
  }
  return lanes * std::max<int64_t>(bytes, 1);
}

} // namespace

int64_t cuda_agent::ptxGlobalAccessAlignment(llvm::StringRef ptx) {
  int64_t widest = 1;
  // PTX statements end in ';' and may be predicated (`@%p1 ld...`); braces
  // open and close scopes (and vector operands, after the mnemonic).
  llvm::SmallVector<llvm::StringRef> statements;
  llvm::SplitString(ptx, statements, ";{}");
  for (llvm::StringRef statement : statements) {
    statement = statement.trim();
    // Drop comment lines and labels (`$L__BB0_2:`, not `shared::cta`)
    // before the instruction.
    for (;;) {
      if (statement.starts_with("//")) {
        statement = statement.drop_until([](char c) { return c == '\n'; })
                        .trim();
        continue;
      }
      size_t colon = statement.find(':');
      if (colon != llvm::StringRef::npos &&
          !statement.drop_front(colon + 1).starts_with(":") &&
          statement.take_front(colon).find_first_of(" \t.[{") ==
              llvm::StringRef::npos) {
        statement = statement.drop_front(colon + 1).trim();
        continue;
      }
      break;
    }
    if (statement.starts_with("@"))
      statement = statement.drop_until(llvm::isSpace).trim();
    size_t space = statement.find_first_of(" \t\n");
    llvm::StringRef mnemonic = statement.take_front(space);
    llvm::StringRef operands =
        space == llvm::StringRef::npos ? "" : statement.drop_front(space);
    widest = std::max(widest, accessBytes(mnemonic, operands));
  }
  return widest;
}
