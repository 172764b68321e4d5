//===- ModuleState.h - Writable state that outlives a launch ----*- C++ -*-===//
//
// A candidate kernel may keep nothing between launches: its workspace is the
// only scratch memory, and the verifier zeroes it before every run. State in
// module-scope `.global` variables (CUDA `__device__`/`__managed__`
// variables) or on the device heap (`malloc` in a kernel) lives as long as
// the loaded module, so a kernel could remember an answer keyed by a
// fingerprint of its inputs and replay it on later launches. This reader
// finds such declarations in PTX text. It is header-only and needs nothing
// but the C++ standard library, so the compiler (on the PTX NVRTC gives,
// before any GPU run) and the MLIR-free runner (on the PTX a bundle carries)
// use the same rules.
//
// What counts: any declaration whose state space is `.global`, with any
// linkage (`.extern`, `.visible`, `.weak`, `.common`), alignment, vector
// type, array dimensions or initializer, whose name the module uses anywhere
// else (an instruction, another variable's initializer), unless every use
// only reads it (isReadOnly()). An unused one is left alone: NVRTC emits
// every namespace-scope `constexpr` variable as an initialized `.global`
// that no instruction touches; so is a `__device__ const` or `__device__
// constexpr` lookup table, an initialized `.global` the kernel only loads
// from (`ld.global.nc`). `.const` variables are
// read-only and allowed (the place for lookup tables), as are texture and
// sampler references (read-only handles). A `.extern .func` named `malloc`
// (device heap allocation) counts too.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_CUDA_MODULESTATE_H
#define CUDA_AGENT_CUDA_MODULESTATE_H

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::cuda_agent {

/// One piece of writable state that outlives a launch.
struct ModuleStateDecl {
  /// The variable's name ("memo"), or "malloc" for the device heap.
  std::string name;
  /// What it is, e.g. "module-scope .global variable 'memo'".
  std::string what;
};

/// The declaration of variable `name` (or of the device heap, for "malloc")
/// as findModuleState() would report it.
inline ModuleStateDecl makeModuleStateDecl(const std::string &name) {
  if (name == "malloc")
    return {name, "device heap allocation (malloc)"};
  return {name, "module-scope .global variable '" + name + "'"};
}

namespace module_state_detail {

/// A character of a PTX identifier ([A-Za-z0-9_$%]).
inline bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

/// How often `name` occurs in `text` as a whole identifier.
inline size_t countUses(std::string_view text, const std::string &name) {
  size_t count = 0;
  for (size_t at = text.find(name); at != std::string_view::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || !isIdentChar(text[at - 1])) &&
        (end >= text.size() || !isIdentChar(text[end])))
      ++count;
  }
  return count;
}

inline bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// `ptx` without its `//` and `/* */` comments and string literals.
inline std::string stripComments(std::string_view ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
      out += '\n';
    } else if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
      size_t end = ptx.find("*/", i + 2);
      i = end == std::string_view::npos ? ptx.size() : end + 1;
      out += ' ';
    } else if (ptx[i] == '"') {
      size_t end = ptx.find('"', i + 1);
      i = end == std::string_view::npos ? ptx.size() : end;
      out += ' ';
    } else {
      out += ptx[i];
    }
  }
  return out;
}

/// The whitespace-separated words of `text`, with `(`, `)`, `[`, `]`, `=`
/// and `,` as words of their own.
inline std::vector<std::string> splitWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty())
      words.push_back(word);
    word.clear();
  };
  for (char c : text) {
    if (isSpace(c)) {
      flush();
    } else if (c == '(' || c == ')' || c == '[' || c == ']' || c == '=' ||
               c == ',') {
      flush();
      words.push_back(std::string(1, c));
    } else {
      word += c;
    }
  }
  flush();
  return words;
}

inline bool isLinkage(const std::string &word) {
  return word == ".extern" || word == ".visible" || word == ".weak" ||
         word == ".common";
}

/// The names declared by the words after a `.global` state space: each
/// declarator's first identifier that is not a directive, up to its array
/// dimensions or initializer; declarators are separated by commas outside an
/// initializer.
inline std::vector<std::string> declaredNames(const std::vector<std::string> &words,
                                              size_t start) {
  std::vector<std::string> names;
  bool wantName = true, inInitializer = false;
  int brackets = 0;
  for (size_t i = start; i < words.size(); ++i) {
    const std::string &w = words[i];
    if (w == "[") {
      ++brackets;
    } else if (w == "]") {
      --brackets;
    } else if (w == "=") {
      inInitializer = true;
    } else if (w == "," && brackets == 0 && !inInitializer) {
      wantName = true;
    } else if (wantName && brackets == 0 && !inInitializer && w[0] != '.' &&
               w != "(" && w != ")") {
      // `.align 8` takes a number; a name never starts with a digit.
      if (w[0] >= '0' && w[0] <= '9')
        continue;
      names.push_back(w);
      wantName = false;
    }
  }
  return names;
}

/// One statement of a PTX module, split for isReadOnly(): its text, guard
/// predicate, opcode (a directive's starts with '.') and operands
/// (comma-separated; an operand in `[...]` is an address; a `{...}` vector
/// is one operand).
struct Statement {
  std::string text, guard, opcode;
  std::vector<std::string> operands;
  std::vector<bool> isAddress;
};

/// The identifiers of `text` (registers, variable names; `%tid.x` gives
/// `%tid` and `x`).
inline std::vector<std::string> identifiersOf(std::string_view text) {
  std::vector<std::string> ids;
  std::string id;
  for (char c : text) {
    if (isIdentChar(c)) {
      id += c;
    } else if (!id.empty()) {
      ids.push_back(id);
      id.clear();
    }
  }
  if (!id.empty())
    ids.push_back(id);
  return ids;
}

/// The `;`-terminated statements of comment-free `text`. Labels are
/// dropped; a brace that does not close within the statement (a function
/// body's) cuts off what came before it; the commas of a closed `{...}` (a
/// vector operand or an initializer) are not separators.
inline std::vector<Statement> splitStatements(const std::string &text) {
  std::vector<Statement> result;
  size_t begin = 0;
  for (size_t end = text.find(';'); end != std::string::npos;
       begin = end + 1, end = text.find(';', begin)) {
    std::string statement = text.substr(begin, end - begin);
    size_t start = 0;
    for (size_t i = 0; i < statement.size(); ++i) {
      if (statement[i] == '}') {
        start = i + 1;
      } else if (statement[i] == '{') {
        size_t close = statement.find('}', i);
        size_t reopen = statement.find('{', i + 1);
        if (close == std::string::npos || (reopen != std::string::npos && reopen < close)) {
          start = i + 1;
          continue;
        }
        statement[i] = statement[close] = ' ';
        for (size_t j = i; j < close; ++j)
          if (statement[j] == ',')
            statement[j] = ' ';
        i = close;
      }
    }
    Statement s;
    s.text = statement.substr(start);
    std::string_view rest(s.text);
    size_t at = 0;
    auto nextWord = [&]() -> std::string {
      while (at < rest.size() && isSpace(rest[at]))
        ++at;
      size_t from = at;
      while (at < rest.size() && !isSpace(rest[at]))
        ++at;
      return std::string(rest.substr(from, at - from));
    };
    std::string word = nextWord();
    while (!word.empty() && (word.back() == ':' || word[0] == '@')) {
      if (word[0] == '@')
        s.guard = word.substr(word.size() > 1 && word[1] == '!' ? 2 : 1);
      word = nextWord();
    }
    if (word.empty())
      continue;
    s.opcode = word;
    std::string operand;
    int depth = 0;
    bool address = false;
    auto flush = [&] {
      if (!identifiersOf(operand).empty() || address) {
        s.operands.push_back(operand);
        s.isAddress.push_back(address);
      }
      operand.clear();
      address = false;
    };
    for (char c : rest.substr(at)) {
      if (c == '[') {
        ++depth;
        address = true;
      } else if (c == ']') {
        --depth;
      } else if (c == ',' && depth == 0) {
        flush();
        continue;
      }
      operand += c;
    }
    flush();
    result.push_back(std::move(s));
  }
  return result;
}

/// Instructions that only compute their first operand from the others.
inline bool isComputation(const std::string &root) {
  static const char *const kRoots[] = {
      "mov",  "cvta", "add",  "sub",  "mul",   "mad",  "mul24", "mad24", "sad",
      "div",  "rem",  "abs",  "neg",  "min",   "max",  "and",   "or",    "xor",
      "not",  "cnot", "shl",  "shr",  "shf",   "selp", "setp",  "set",   "slct",
      "cvt",  "prmt", "bfe",  "bfi",  "popc",  "clz",  "brev",  "bfind", "lop3",
      "fma",  "isspacep"};
  for (const char *known : kRoots)
    if (root == known)
      return true;
  return false;
}

} // namespace module_state_detail

/// Whether every use of the module-scope variable `name` in comment-free
/// `ptx` only reads it. A conservative taint analysis: the registers that
/// hold its address or anything computed from it (to a fixed point; a
/// computation's guard counts as a source) may serve only as load
/// addresses (`ld`, `ldu`, `prefetch`). Taint reaching anything else, a
/// store, atomic, reduction or copy (as address or value), a call, a
/// branch's guard (control flow could launder the address), an instruction
/// not known to only compute, or another declaration's initializer, makes
/// the variable writable. A `__device__ const` lookup table passes; a memo
/// fails.
inline bool isReadOnly(const std::string &ptx, const std::string &name) {
  using namespace module_state_detail;
  std::vector<Statement> statements = splitStatements(ptx);
  std::vector<std::string> tainted = {name};
  auto isTainted = [&](std::string_view text) {
    for (const std::string &id : identifiersOf(text))
      if (std::find(tainted.begin(), tainted.end(), id) != tainted.end())
        return true;
    return false;
  };
  // Directives: the variable's own declaration (the first that names it),
  // else a use in an initializer.
  bool declared = false;
  for (const Statement &s : statements) {
    if (s.opcode[0] != '.' || countUses(s.text, name) == 0)
      continue;
    if (declared)
      return false;
    declared = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Statement &s : statements) {
      if (s.opcode[0] == '.')
        continue;
      std::string root = s.opcode.substr(0, s.opcode.find('.'));
      bool guardTainted = !s.guard.empty() && isTainted(s.guard);
      bool isLoad = root == "ld" || root == "ldu" || root == "prefetch" ||
                    root == "prefetchu";
      bool sourceTainted = guardTainted;
      for (size_t i = 0; i < s.operands.size(); ++i) {
        bool isSource = i > 0 || s.isAddress[i];
        if (!isSource || !isTainted(s.operands[i]))
          continue;
        if (isLoad && s.isAddress[i])
          continue; // reading through its address
        sourceTainted = true;
      }
      if (!sourceTainted)
        continue;
      bool computes = (isLoad || isComputation(root)) && !s.operands.empty() &&
                      !s.isAddress[0];
      for (size_t i = 1; computes && !isLoad && i < s.operands.size(); ++i)
        computes = !s.isAddress[i];
      if (!computes)
        return false; // a write, an escape, a branch or something unknown
      for (const std::string &id : identifiersOf(s.operands[0]))
        if (!isTainted(id)) {
          tainted.push_back(id);
          changed = true;
        }
    }
  }
  return true;
}

/// Returns every declaration of writable state that outlives a launch in
/// `ptx` that the module uses (see the file comment), in text order. Text
/// that is not PTX gives fewer findings, never an error.
inline std::vector<ModuleStateDecl> findModuleState(std::string_view ptx) {
  using namespace module_state_detail;
  std::vector<ModuleStateDecl> found;
  std::string text = stripComments(ptx);
  // A statement ends at `;`, `{` or `}`. An initializer's braces split its
  // declaration, but the part before them holds the state space and name.
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ';' && text[i] != '{' && text[i] != '}')
      continue;
    std::vector<std::string> words =
        splitWords(std::string_view(text).substr(begin, i - begin));
    begin = i + 1;
    // Directives without a `;` (.version, .target, .address_size) run into
    // the statement after them, so a declaration is found by its state space
    // word anywhere in the statement: a `.global` standing alone is one,
    // unless it qualifies a `.ptr` parameter (`.param .u64 .ptr .global`).
    // Instructions spell the space inside their opcode (`ld.global.f32`).
    for (size_t k = 0; k < words.size(); ++k) {
      if (words[k] == ".global") {
        size_t before = k;
        while (before > 0 && isLinkage(words[before - 1]))
          --before;
        if (before > 0 && words[before - 1] == ".ptr")
          continue;
        bool isHandle = false;
        for (size_t j = k + 1; j < words.size() && words[j] != "="; ++j)
          isHandle |= words[j] == ".texref" || words[j] == ".samplerref";
        if (isHandle)
          break;
        std::vector<std::string> names = declaredNames(words, k + 1);
        if (names.empty())
          names.push_back("?");
        for (const std::string &name : names)
          if (name == "?" ||
              (countUses(text, name) > 1 && // beyond its declaration
               !isReadOnly(text, name)))
            found.push_back(makeModuleStateDecl(name));
        break; // the rest of the statement is this declaration
      }
      if (words[k] == ".func" && k > 0 && words[k - 1] == ".extern") {
        // `.extern .func (.param .b64 func_retval0) malloc (...)`.
        size_t j = k + 1;
        if (j < words.size() && words[j] == "(") {
          int depth = 0;
          for (; j < words.size(); ++j) {
            depth += words[j] == "(" ? 1 : words[j] == ")" ? -1 : 0;
            if (depth == 0)
              break;
          }
          ++j;
        }
        if (j < words.size() && words[j] == "malloc")
          found.push_back(makeModuleStateDecl("malloc"));
        break;
      }
    }
  }
  return found;
}

/// The rejection reason for `found` (not empty), naming every declaration;
/// `where` ("object 'k.cubin'") is named when given.
inline std::string describeModuleState(const std::vector<ModuleStateDecl> &found,
                                       const std::string &where = "") {
  std::string reason = "writable state that outlives a launch";
  if (!where.empty())
    reason += " in " + where;
  reason += ": ";
  for (size_t i = 0; i < found.size() && i < 8; ++i)
    reason += (i ? ", " : "") + found[i].what;
  if (found.size() > 8)
    reason += " and " + std::to_string(found.size() - 8) + " more";
  return reason + " (kernels may keep nothing between launches; the workspace, "
                  "zeroed before every run, is the only scratch memory; "
                  "read-only tables belong in __constant__ memory)";
}

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_CUDA_MODULESTATE_H
