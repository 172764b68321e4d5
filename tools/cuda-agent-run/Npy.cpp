//===- Npy.cpp - .npy file reading and writing ------------------*- C++ -*-===//
//
// A minimal .npy codec. The header is a Python dict literal; the reader
// parses just the three keys numpy writes ('descr', 'fortran_order', 'shape')
// with a tiny scanner, which is enough for files written by numpy and torch.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "Error.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

using namespace mlir::cuda_agent;
namespace fs = std::filesystem;

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

namespace {

/// No numpy dtype the runner reads is wider than this.
constexpr uint64_t kMaxItemSize = 64;

/// A non-empty string of decimal digits as a number; nullopt for anything
/// else or a value beyond uint64_t (the header comes from outside).
std::optional<uint64_t> parseCount(const std::string &digits) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  uint64_t value = 0;
  for (char digit : digits)
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, uint64_t(digit - '0'), &value))
      return std::nullopt;
  return value;
}

/// Scans the header dict `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
class HeaderScanner {
public:
  HeaderScanner(const std::string &text, const std::string &name)
      : text(text), name(name) {}

  NpyArray scan() {
    NpyArray array;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    expect('{');
    while (skipSpace(), peek() != '}') {
      std::string key = scanString();
      expect(':');
      if (key == "descr") {
        array.descr = scanString();
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (scanWord() != "False")
          fail("fortran_order is not False (only C order is supported)");
        sawOrder = true;
      } else if (key == "shape") {
        array.shape = scanShape();
        sawShape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',')
        ++pos;
    }
    if (!sawDescr || !sawOrder || !sawShape)
      fail("header lacks 'descr', 'fortran_order' or 'shape'");
    return array;
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw RunnerError(kExitUsage, name + ": bad .npy header: " + message);
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  char peek() {
    if (pos >= text.size())
      fail("unexpected end of header");
    return text[pos];
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c)
      fail(std::string("expected '") + c + "' at offset " + std::to_string(pos));
    ++pos;
  }
  std::string scanString() {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a quoted string at offset " + std::to_string(pos));
    size_t end = text.find(quote, pos + 1);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string result = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return result;
  }
  std::string scanWord() {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() && std::isalnum(static_cast<unsigned char>(text[pos])))
      ++pos;
    return text.substr(start, pos - start);
  }
  std::vector<int64_t> scanShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (skipSpace(), peek() != ')') {
      std::string word = scanWord();
      std::optional<uint64_t> dim = parseCount(word);
      if (!dim || *dim > uint64_t(std::numeric_limits<int64_t>::max()))
        fail("bad dimension '" + word + "' in shape");
      shape.push_back(static_cast<int64_t>(*dim));
      skipSpace();
      if (peek() == ',')
        ++pos;
    }
    ++pos;
    return shape;
  }

  const std::string &text;
  const std::string &name;
  size_t pos = 0;
};

/// Bytes per element of a descr like "<f4" or "|b1"; 0 when it has none.
size_t descrItemSize(const std::string &descr) {
  if (descr.size() < 3)
    return 0;
  std::optional<uint64_t> size = parseCount(descr.substr(2));
  return size && *size <= kMaxItemSize ? static_cast<size_t>(*size) : 0;
}

} // namespace

NpyArray mlir::cuda_agent::readNpy(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RunnerError(kExitUsage, path.string() + ": cannot open");
  return readNpy(in, path.string());
}

NpyArray mlir::cuda_agent::readNpy(std::istream &in, const std::string &name) {
  auto fail = [&](const std::string &message) -> RunnerError {
    return RunnerError(kExitUsage, name + ": " + message);
  };
  // Nothing is allocated beyond what the stream holds: the header's lengths
  // and the shape come from outside.
  const std::streampos start = in.tellg();
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  if (start < 0 || end < start)
    throw fail("cannot tell the size of the data");
  const uint64_t fileSize = static_cast<uint64_t>(end - start);
  in.seekg(start);
  char preamble[8];
  if (!in.read(preamble, 8) || std::memcmp(preamble, kMagic, kMagicSize) != 0)
    throw fail("not a .npy file");
  unsigned major = static_cast<unsigned char>(preamble[6]);
  if (major < 1 || major > 3)
    throw fail("unsupported .npy version " + std::to_string(major));
  // Version 1 has a 2-byte header length, versions 2 and 3 a 4-byte one.
  unsigned char lengthBytes[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char *>(lengthBytes), major == 1 ? 2 : 4))
    throw fail("truncated header");
  size_t headerLength = lengthBytes[0] | lengthBytes[1] << 8 |
                        lengthBytes[2] << 16 | size_t(lengthBytes[3]) << 24;
  uint64_t dataOffset = static_cast<uint64_t>(in.tellg());
  if (headerLength > fileSize - dataOffset)
    throw fail("truncated header");
  dataOffset += headerLength;
  std::string header(headerLength, '\0');
  if (!in.read(header.data(), headerLength))
    throw fail("truncated header");

  NpyArray array = HeaderScanner(header, name).scan();
  size_t itemSize = descrItemSize(array.descr);
  if (itemSize == 0)
    throw fail("unsupported dtype descr '" + array.descr + "'");
  uint64_t expected = itemSize;
  for (int64_t dim : array.shape)
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(dim), &expected))
      throw fail("its shape has more bytes than a file can hold");
  uint64_t available = fileSize - dataOffset;
  if (available < expected)
    throw fail("holds fewer data bytes than shape and dtype need (" +
               std::to_string(expected) + ")");
  if (available > expected)
    throw fail("holds more data bytes than shape and dtype need (" +
               std::to_string(expected) + ")");
  array.data.resize(expected);
  if (!in.read(reinterpret_cast<char *>(array.data.data()), expected))
    throw fail("cannot read its " + std::to_string(expected) + " data bytes");
  return array;
}

void mlir::cuda_agent::writeNpy(const fs::path &path, const std::string &descr,
                                const std::vector<int64_t> &shape,
                                const void *data, size_t numBytes) {
  std::string shapeText = "(";
  for (int64_t dim : shape)
    shapeText += std::to_string(dim) + ", ";
  if (shape.size() > 1)
    shapeText.resize(shapeText.size() - 2); // numpy writes (5,) but (2, 3)
  else if (shape.size() == 1)
    shapeText.pop_back();
  shapeText += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64 bytes, ending in a newline.
  size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  char preamble[10] = {};
  std::memcpy(preamble, kMagic, kMagicSize);
  preamble[6] = 1; // version 1.0
  preamble[8] = static_cast<char>(header.size() & 0xff);
  preamble[9] = static_cast<char>(header.size() >> 8);
  out.write(preamble, sizeof(preamble));
  out.write(header.data(), header.size());
  out.write(static_cast<const char *>(data), numBytes);
  if (!out.flush())
    throw RunnerError(kExitIo, "cannot write '" + path.string() + "'");
}
