//===- IncludeScanner.cpp - Header checks for candidate sources -*- C++ -*-===//
//
// Finds every place where the preprocessor could open a file and checks the
// header name against the toolkit's include directories. Rather than
// tokenizing C++ (raw strings, digit separators and literal prefixes make a
// small lexer easy to fool), the scan ignores string and comment state and
// treats every point where a directive could begin as one: each line start
// and each end of a block comment, after blanks and further comments. That
// finds a superset of the real directives; the price is that an
// include-looking line inside a comment or a string is rejected too.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/IncludeScanner.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <vector>

using namespace mlir::cuda_agent;
using llvm::Error;
using llvm::StringRef;

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// The source after translation phases 1-2 as far as they matter here: CRLF
/// becomes LF and backslash-newline splices are removed. `lines[i]` is the
/// 1-based source line of `text[i]`.
struct SplicedSource {
  std::string text;
  std::vector<unsigned> lines;
};

class IncludeScanner {
public:
  IncludeScanner(llvm::ArrayRef<std::string> includeDirs) {
    for (const std::string &dir : includeDirs) {
      llvm::SmallString<256> real;
      // A directory that does not exist allows nothing.
      if (!llvm::sys::fs::real_path(dir, real) &&
          llvm::sys::fs::is_directory(real))
        realDirs.push_back(std::string(real));
    }
    shownDir = includeDirs.empty() ? "(none)" : includeDirs.front();
  }

  Error scan(StringRef source);

private:
  Error splice(StringRef source);
  void computeSkips();
  Error checkDirectiveAt(size_t pos);
  Error checkHasInclude(size_t pos);
  Error checkOperand(size_t pos, StringRef what);
  Error checkHeaderName(StringRef name, bool angled, StringRef what,
                        unsigned line);
  Error reject(unsigned line, const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "line " + llvm::Twine(line) + ": " +
                                       message);
  }
  unsigned lineAt(size_t pos) const {
    return src.lines.empty() ? 1
                             : src.lines[std::min(pos, src.lines.size() - 1)];
  }

  std::vector<std::string> realDirs;
  std::string shownDir;
  SplicedSource src;
  /// skip[i]: first position at or after i that is neither a blank nor inside
  /// a block comment starting at or after i.
  std::vector<size_t> skip;
  /// Directive positions already checked (several starts can reach one).
  llvm::BitVector checked;
};

Error IncludeScanner::splice(StringRef source) {
  if (size_t nul = source.find('\0'); nul != StringRef::npos)
    return reject(1 + source.take_front(nul).count('\n'),
                  "the source contains a NUL byte");
  src.text.reserve(source.size());
  src.lines.reserve(source.size());
  unsigned line = 1;
  for (size_t i = 0, e = source.size(); i < e; ++i) {
    char c = source[i];
    if (c == '\r') {
      // A bare CR may or may not end a line for NVRTC; refuse to guess.
      if (i + 1 < e && source[i + 1] == '\n')
        continue;
      return reject(line, "carriage return not followed by a newline");
    }
    if (c == '\\') {
      size_t next = i + 1;
      if (next < e && source[next] == '\r' && next + 1 < e &&
          source[next + 1] == '\n')
        ++next;
      if (next < e && source[next] == '\n') {
        i = next;
        ++line;
        continue;
      }
    }
    src.text.push_back(c);
    src.lines.push_back(line);
    if (c == '\n')
      ++line;
  }
  return Error::success();
}

void IncludeScanner::computeSkips() {
  const std::string &t = src.text;
  size_t n = t.size();
  // closeAfter[i]: position just past the first "*/" starting at or after i.
  std::vector<size_t> closeAfter(n + 2, n);
  for (size_t i = n; i-- > 0;)
    closeAfter[i] = (i + 1 < n && t[i] == '*' && t[i + 1] == '/')
                        ? i + 2
                        : closeAfter[i + 1];
  skip.assign(n + 1, n);
  for (size_t i = n; i-- > 0;) {
    if (isBlank(t[i]))
      skip[i] = skip[i + 1];
    else if (t[i] == '/' && i + 1 < n && t[i + 1] == '*')
      skip[i] = i + 2 <= n ? skip[closeAfter[i + 2]] : n;
    else
      skip[i] = i;
  }
}

Error IncludeScanner::scan(StringRef source) {
  if (Error err = splice(source))
    return err;
  computeSkips();
  const std::string &t = src.text;
  checked.resize(t.size() + 1);

  // Every place a directive could begin: the start of the text, after each
  // newline, and after each "*/" (a comment that began on an earlier line).
  if (Error err = checkDirectiveAt(0))
    return err;
  for (size_t i = 0, e = t.size(); i < e; ++i) {
    size_t start = StringRef::npos;
    if (t[i] == '\n')
      start = i + 1;
    else if (t[i] == '*' && i + 1 < e && t[i + 1] == '/')
      start = i + 2;
    if (start != StringRef::npos)
      if (Error err = checkDirectiveAt(start))
        return err;
  }

  // __has_include probes the file system as well; check its operand
  // wherever the name appears.
  StringRef text(t);
  for (size_t pos = text.find("__has_include"); pos != StringRef::npos;
       pos = text.find("__has_include", pos + 1))
    if (Error err = checkHasInclude(pos))
      return err;
  return Error::success();
}

Error IncludeScanner::checkDirectiveAt(size_t pos) {
  const std::string &t = src.text;
  if (pos > t.size())
    return Error::success();
  pos = skip[pos];
  size_t afterHash;
  if (pos < t.size() && t[pos] == '#')
    afterHash = pos + 1;
  else if (pos + 1 < t.size() && t[pos] == '%' && t[pos + 1] == ':')
    afterHash = pos + 2; // The digraph for '#'.
  else
    return Error::success();
  if (checked.test(pos))
    return Error::success();
  checked.set(pos);

  size_t nameBegin = skip[afterHash];
  size_t nameEnd = nameBegin;
  while (nameEnd < t.size() && isIdentChar(t[nameEnd]))
    ++nameEnd;
  StringRef name = StringRef(t).slice(nameBegin, nameEnd);
  bool opensFile = llvm::StringSwitch<bool>(name)
                       .Cases({"include", "include_next", "import", "embed"},
                              true)
                       .Default(false);
  if (!opensFile)
    return Error::success();
  return checkOperand(nameEnd, ("#" + name).str());
}

Error IncludeScanner::checkHasInclude(size_t pos) {
  const std::string &t = src.text;
  size_t end = pos + StringRef("__has_include").size();
  StringRef what = "__has_include";
  if (StringRef(t).substr(end).starts_with("_next")) {
    end += 5;
    what = "__has_include_next";
  }
  // Part of a longer identifier, e.g. `my__has_include_flag`.
  if ((pos > 0 && isIdentChar(t[pos - 1])) ||
      (end < t.size() && isIdentChar(t[end])))
    return Error::success();
  size_t paren = skip[std::min(end, t.size())];
  if (paren >= t.size() || t[paren] != '(')
    return reject(lineAt(pos), what + " must be followed by a parenthesized "
                                      "<header> or \"header\"");
  return checkOperand(paren + 1, what);
}

Error IncludeScanner::checkOperand(size_t pos, StringRef what) {
  const std::string &t = src.text;
  unsigned line = lineAt(pos);
  pos = skip[std::min(pos, t.size())];
  char open = pos < t.size() ? t[pos] : '\n';
  if (open != '<' && open != '"')
    return reject(line, "'" + what +
                            "' without a literal <header> or \"header\" is "
                            "not allowed (computed includes cannot be "
                            "checked)");
  char close = open == '<' ? '>' : '"';
  size_t end = pos + 1;
  while (end < t.size() && t[end] != close && t[end] != '\n')
    ++end;
  if (end >= t.size() || t[end] != close)
    return reject(line, "unterminated header name after '" + what + "'");
  return checkHeaderName(StringRef(t).slice(pos + 1, end), open == '<', what,
                         line);
}

/// The libcu++ header that stands in for standard header `name`, if any.
static std::optional<std::string> standardHeaderReplacement(StringRef name) {
  StringRef base = name;
  if (base.consume_back(".h")) // <stdint.h> -> cstdint
    base = llvm::StringSwitch<StringRef>(base)
               .Case("stdint", "cstdint")
               .Case("stddef", "cstddef")
               .Case("float", "cfloat")
               .Case("limits", "climits")
               .Default("");
  if (llvm::is_contained({"cstdint", "cstddef", "cfloat", "climits", "limits",
                          "type_traits", "utility", "cmath", "array",
                          "complex", "tuple", "atomic"},
                         base))
    return ("cuda/std/" + base).str();
  return std::nullopt;
}

Error IncludeScanner::checkHeaderName(StringRef name, bool angled,
                                      StringRef what, unsigned line) {
  std::string shown = (what + " " + (angled ? "<" : "\"") + name +
                       (angled ? ">" : "\""))
                          .str();
  auto notAllowed = [&](const llvm::Twine &why) {
    return reject(line, "'" + shown + "' is not allowed: " + why);
  };
  if (name.empty())
    return notAllowed("empty header name");
  if (name.contains('\\'))
    return notAllowed("backslash in header name");
  if (name.starts_with("/") || llvm::sys::path::is_absolute(name))
    return notAllowed("absolute path");
  llvm::SmallVector<StringRef> components;
  name.split(components, '/');
  for (StringRef component : components)
    if (component == "..")
      return notAllowed("'..' leaves the CUDA toolkit's include directory");

  for (const std::string &dir : realDirs) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real) ||
        !llvm::sys::fs::is_regular_file(real))
      continue;
    // A symlink inside the toolkit may point anywhere.
    if (StringRef(real).starts_with(dir + "/"))
      return Error::success();
  }
  // The C and C++ standard headers agents reach for most have device-side
  // equivalents in the toolkit (libcu++); say which, as feedback.
  std::string hint;
  if (auto std = standardHeaderReplacement(name))
    hint = "; use <" + *std + "> instead";
  return notAllowed("'" + name +
                    "' is not a CUDA toolkit header (candidates may include "
                    "only headers under " +
                    shownDir + "; device code has printf without <stdio.h>" +
                    hint + ")");
}

} // namespace

Error mlir::cuda_agent::checkCandidateIncludes(
    StringRef source, llvm::ArrayRef<std::string> includeDirs) {
  return IncludeScanner(includeDirs).scan(source);
}
