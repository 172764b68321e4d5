//===- StateCheck.cpp - Candidate state that outlives a launch --*- C++ -*-===//
//
// A bounds-checked reader of the few ELF64 structures a cubin's symbol table
// needs (section headers, one symbol table, its string table), and the scan
// of a bundle's objects described in StateCheck.h.
//
//===----------------------------------------------------------------------===//

#include "StateCheck.h"

#include "cuda-agent/Cuda/ModuleState.h"

#include <cstdint>
#include <cstring>
#include <string_view>

using namespace mlir::cuda_agent;

namespace {

/// Little-endian field of `size` bytes at `offset`, or false when out of range.
bool readField(const char *data, size_t size, uint64_t offset, unsigned bytes,
               uint64_t &value) {
  if (offset > size || bytes > size - offset)
    return false;
  value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= uint64_t(uint8_t(data[offset + i])) << (8 * i);
  return true;
}

/// A NUL-terminated name inside [data, data + size), or "" when it runs off.
std::string readName(const char *data, size_t size, uint64_t offset) {
  if (offset >= size)
    return "";
  const char *start = data + offset;
  const void *end = std::memchr(start, '\0', size - offset);
  return end ? std::string(start, static_cast<const char *>(end)) : "";
}

struct Section {
  uint64_t name, type, offset, size, link, entsize;
};

constexpr uint64_t kSymtab = 2;     // SHT_SYMTAB
constexpr unsigned kObject = 1;     // STT_OBJECT
constexpr unsigned kElfHeader = 64; // sizeof(Elf64_Ehdr)

bool isElf64(const char *data, size_t size) {
  return size >= kElfHeader && std::memcmp(data, "\x7f" "ELF", 4) == 0 &&
         data[4] == 2 /* ELFCLASS64 */ && data[5] == 1 /* little endian */;
}

} // namespace

std::vector<std::string> mlir::cuda_agent::findCubinState(const char *data,
                                                          size_t size) {
  const std::vector<std::string> unreadable = {"?"};
  if (!isElf64(data, size))
    return unreadable;
  uint64_t shoff, shentsize, shnum, shstrndx;
  if (!readField(data, size, 0x28, 8, shoff) ||
      !readField(data, size, 0x3A, 2, shentsize) ||
      !readField(data, size, 0x3C, 2, shnum) ||
      !readField(data, size, 0x3E, 2, shstrndx) || shentsize < 64 ||
      shstrndx >= shnum)
    return unreadable;
  std::vector<Section> sections;
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t at = shoff + i * shentsize;
    Section s;
    if (!readField(data, size, at + 0, 4, s.name) ||
        !readField(data, size, at + 4, 4, s.type) ||
        !readField(data, size, at + 24, 8, s.offset) ||
        !readField(data, size, at + 32, 8, s.size) ||
        !readField(data, size, at + 40, 4, s.link) ||
        !readField(data, size, at + 56, 8, s.entsize))
      return unreadable;
    sections.push_back(s);
  }
  auto sectionName = [&](uint64_t index) -> std::string {
    const Section &names = sections[shstrndx];
    if (index >= sections.size() || names.offset > size ||
        names.size > size - names.offset)
      return "";
    return readName(data + names.offset, names.size, sections[index].name);
  };

  std::vector<std::string> found;
  bool sawSymtab = false;
  for (const Section &symtab : sections) {
    if (symtab.type != kSymtab)
      continue;
    sawSymtab = true;
    if (symtab.entsize < 24 || symtab.link >= sections.size())
      return unreadable;
    const Section &strtab = sections[symtab.link];
    if (strtab.offset > size || strtab.size > size - strtab.offset)
      return unreadable;
    for (uint64_t at = 0; at + 24 <= symtab.size; at += symtab.entsize) {
      uint64_t nameOffset, info, shndx;
      if (!readField(data, size, symtab.offset + at, 4, nameOffset) ||
          !readField(data, size, symtab.offset + at + 4, 1, info) ||
          !readField(data, size, symtab.offset + at + 6, 2, shndx))
        return unreadable;
      std::string name = readName(data + strtab.offset, strtab.size, nameOffset);
      if (shndx == 0) {
        if (name == "malloc")
          found.push_back("malloc");
        continue;
      }
      if ((info & 0xf) != kObject || shndx >= sections.size())
        continue;
      std::string section = sectionName(shndx);
      if (section == ".nv.global" || section.rfind(".nv.global.", 0) == 0)
        found.push_back(name.empty() ? "?" : name);
    }
  }
  return sawSymtab ? found : unreadable;
}

/// The findings of one object: PTX text, a cubin, or a fatbin holding either
/// (its PTX preferred: only PTX tells a used variable from a dead one).
static std::vector<std::string> findObjectState(const std::string &object,
                                                const std::vector<char> &bytes) {
  std::string_view text(bytes.data(), bytes.size());
  auto fromPtx = [](std::string_view ptx) {
    std::vector<std::string> names;
    for (const ModuleStateDecl &decl : findModuleState(ptx))
      names.push_back(decl.name);
    return names;
  };
  if (object.size() >= 4 && object.compare(object.size() - 4, 4, ".ptx") == 0)
    return fromPtx(text);
  if (isElf64(bytes.data(), bytes.size()))
    return findCubinState(bytes.data(), bytes.size());
  // A fatbin: the PTX texts stored in it uncompressed, else its ELF images.
  std::vector<std::string> found;
  bool inspected = false;
  for (size_t at = text.find(".version"); at != std::string_view::npos;
       at = text.find(".version", at + 8)) {
    size_t end = text.find('\0', at);
    std::vector<std::string> names =
        fromPtx(text.substr(at, end == std::string_view::npos ? end : end - at));
    inspected = true;
    found.insert(found.end(), names.begin(), names.end());
  }
  if (inspected)
    return found;
  for (size_t at = text.find("\x7f" "ELF"); at != std::string_view::npos;
       at = text.find("\x7f" "ELF", at + 4)) {
    std::vector<std::string> names =
        findCubinState(bytes.data() + at, bytes.size() - at);
    if (names.size() == 1 && names[0] == "?")
      continue; // not an image after all
    inspected = true;
    found.insert(found.end(), names.begin(), names.end());
  }
  if (!inspected)
    found.push_back("?");
  return found;
}

StateFinding mlir::cuda_agent::findCandidateState(const Plan &plan) {
  // The compiler keeps the PTX it compiled a candidate's cubin from in the
  // plan: checked instead of the cubin, whose symbol table also lists
  // variables no code uses (NVRTC keeps every namespace-scope constexpr).
  if (!plan.ptx.empty()) {
    std::vector<ModuleStateDecl> decls = findModuleState(plan.ptx);
    if (!decls.empty())
      return {describeModuleState(decls, "plan.json's ptx")};
  }
  for (const auto &[object, bytes] : plan.objects) {
    bool isPtx = object.size() >= 4 && object.compare(object.size() - 4, 4, ".ptx") == 0;
    if (!plan.ptx.empty() && !isPtx)
      continue;
    std::vector<std::string> names = findObjectState(object, bytes);
    if (names.size() == 1 && names[0] == "?")
      return {"object '" + object + "' cannot be inspected for module-scope state "
              "(not PTX, an ELF cubin or a fatbin holding either uncompressed)",
              true};
    if (!names.empty()) {
      std::vector<ModuleStateDecl> decls;
      for (const std::string &name : names)
        decls.push_back(makeModuleStateDecl(name));
      return {describeModuleState(decls, "object '" + object + "'")};
    }
  }
  return {};
}
