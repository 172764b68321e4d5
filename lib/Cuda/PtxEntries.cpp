//===- PtxEntries.cpp - Kernel entries read from PTX text -------*- C++ -*-===//
//
// A small reader for the `.entry NAME(params)` headers that NVVM emits; it
// needs nothing else of PTX. NVVM marks no parameter as a pointer, so a
// pointer is recognized by its size only.
//
//===----------------------------------------------------------------------===//

#include "PtxEntries.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::cuda_agent;
using llvm::StringRef;

namespace {

bool isPtxIdentChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '%';
}

/// Drops the parameter's name: the last whitespace-separated word, together
/// with any array suffix attached to it (`name[12]` keeps `[12]`).
std::string stripParamName(StringRef param) {
  llvm::SmallVector<StringRef> words;
  param.split(words, ' ', -1, /*KeepEmpty=*/false);
  if (words.size() < 2)
    return param.str();
  StringRef last = words.back();
  words.pop_back();
  std::string result = llvm::join(words, " ");
  if (size_t bracket = last.find('['); bracket != StringRef::npos)
    result += " " + last.substr(bracket).str();
  return result;
}

} // namespace

std::vector<PtxEntry> mlir::cuda_agent::parsePtxEntries(StringRef ptx) {
  std::vector<PtxEntry> entries;
  for (size_t pos = ptx.find(".entry"); pos != StringRef::npos;
       pos = ptx.find(".entry", pos + 1)) {
    // Whole directive only, not `.entry_something` or `x.entry`.
    size_t after = pos + 6;
    if ((pos > 0 && isPtxIdentChar(ptx[pos - 1])) ||
        after >= ptx.size() || !llvm::isSpace(ptx[after]))
      continue;
    StringRef rest = ptx.substr(after).ltrim();
    size_t nameLen = 0;
    while (nameLen < rest.size() && isPtxIdentChar(rest[nameLen]))
      ++nameLen;
    if (nameLen == 0)
      continue;
    PtxEntry entry;
    entry.name = rest.take_front(nameLen).str();
    rest = rest.drop_front(nameLen).ltrim();
    if (rest.consume_front("(")) {
      StringRef list = rest.take_until([](char c) { return c == ')'; });
      llvm::SmallVector<StringRef> params;
      list.split(params, ',', -1, /*KeepEmpty=*/false);
      for (StringRef param : params) {
        // Normalize whitespace (tabs, newlines) to single spaces.
        llvm::SmallVector<StringRef> words;
        llvm::SplitString(param, words);
        std::string flat = llvm::join(words, " ");
        StringRef decl(flat);
        if (!decl.consume_front(".param"))
          continue;
        entry.params.push_back(stripParamName(decl.trim()));
      }
    }
    // The performance directives between the parameters and the body.
    StringRef directives = rest.drop_until([](char c) { return c == ')'; })
                               .take_until([](char c) { return c == '{' || c == ';'; });
    if (size_t at = directives.find(".reqnctapercluster");
        at != StringRef::npos) {
      llvm::SmallVector<StringRef> dims;
      directives.substr(at + 18)
          .take_until([](char c) { return c == '\n' || c == '.'; })
          .split(dims, ',');
      for (auto [d, text] : llvm::enumerate(dims))
        if (d < 3)
          text.trim().getAsInteger(10, entry.cluster[d]);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

bool mlir::cuda_agent::isPointerSizedParam(StringRef param) {
  return param == ".u64" || param == ".b64" || param == ".s64";
}
