//===- BpeTokenizer.cpp - tokenizer.json byte-level BPE -------------------===//
//
// Reads a Hugging Face tokenizer.json with nlohmann-json (this target is
// built with exceptions; every exception stops here and becomes an
// llvm::Error) and implements GPT-2's byte-level BPE: bytes-to-unicode,
// added-token splitting, the pre-tokenizer split and rank-ordered merges.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Torch/BpeTokenizer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// UTF-8 of one code point.
std::string utf8(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

/// The length of the UTF-8 sequence starting with `lead` (1 for a stray
/// continuation byte, so that every byte is consumed).
size_t utf8Length(unsigned char lead) {
  if (lead >= 0xF0)
    return 4;
  if (lead >= 0xE0)
    return 3;
  if (lead >= 0xC0)
    return 2;
  return 1;
}

enum class CharClass { Letter, Number, Space, Other };

CharClass classify(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)
    return CharClass::Letter;
  if (c >= '0' && c <= '9')
    return CharClass::Number;
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
    return CharClass::Space;
  return CharClass::Other;
}

struct AddedToken {
  std::string content;
  int64_t id;
  bool special;
};

} // namespace

struct BpeTokenizer::Impl {
  std::unordered_map<std::string, int64_t> vocab;
  std::unordered_map<int64_t, std::string> tokens;    // id -> vocab string
  std::unordered_map<std::string, size_t> mergeRanks; // "a b" -> rank
  std::vector<AddedToken> added;                      // longest first
  std::unordered_map<int64_t, size_t> addedById;      // id -> index in added
  std::array<std::string, 256> byteToUnicode;
  std::unordered_map<std::string, unsigned char> unicodeToByte;
  std::optional<int64_t> unk;
  bool addPrefixSpace = false;
  int64_t size = 0;

  /// GPT-2's table: printable Latin-1 bytes stand for themselves, the others
  /// are shifted to U+0100 and up, so that every byte is a visible character.
  void buildByteTable() {
    unsigned next = 0;
    for (unsigned b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
                       (b >= 0xAE && b <= 0xFF);
      uint32_t cp = printable ? b : 256 + next++;
      byteToUnicode[b] = utf8(cp);
      unicodeToByte[byteToUnicode[b]] = static_cast<unsigned char>(b);
    }
  }

  /// BPE of one pre-tokenized word.
  llvm::Error encodeWord(llvm::StringRef word,
                         std::vector<int64_t> &out) const {
    std::vector<std::string> symbols;
    symbols.reserve(word.size());
    for (unsigned char c : word)
      symbols.push_back(byteToUnicode[c]);
    // Merge the best-ranked adjacent pair, all its occurrences left to right,
    // until no adjacent pair has a rank (GPT-2's bpe()).
    while (symbols.size() > 1) {
      size_t bestRank = std::numeric_limits<size_t>::max();
      std::string bestLeft, bestRight;
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        auto it = mergeRanks.find(symbols[i] + " " + symbols[i + 1]);
        if (it != mergeRanks.end() && it->second < bestRank) {
          bestRank = it->second;
          bestLeft = symbols[i];
          bestRight = symbols[i + 1];
        }
      }
      if (bestRank == std::numeric_limits<size_t>::max())
        break;
      std::vector<std::string> merged;
      merged.reserve(symbols.size());
      for (size_t i = 0; i < symbols.size(); ++i) {
        if (i + 1 < symbols.size() && symbols[i] == bestLeft &&
            symbols[i + 1] == bestRight) {
          merged.push_back(bestLeft + bestRight);
          ++i;
        } else {
          merged.push_back(std::move(symbols[i]));
        }
      }
      symbols = std::move(merged);
    }
    for (const std::string &symbol : symbols) {
      auto it = vocab.find(symbol);
      if (it != vocab.end()) {
        out.push_back(it->second);
        continue;
      }
      if (!unk)
        return llvm::createStringError(
            "the tokenizer has no token for '%s' and no unk_token",
            symbol.c_str());
      out.push_back(*unk);
    }
    return llvm::Error::success();
  }
};

BpeTokenizer::BpeTokenizer(std::shared_ptr<const Impl> impl)
    : impl(std::move(impl)) {}

llvm::Expected<BpeTokenizer> BpeTokenizer::loadFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read the tokenizer %s: %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::Expected<BpeTokenizer> tokenizer = parse((*buffer)->getBuffer());
  if (!tokenizer)
    return llvm::createStringError(
        "%s: %s", path.str().c_str(),
        llvm::toString(tokenizer.takeError()).c_str());
  return tokenizer;
}

/// Whether a pre-tokenizer or decoder JSON node is (or holds) ByteLevel.
static bool hasByteLevel(const nlohmann::json &node, bool *addPrefixSpace) {
  if (!node.is_object())
    return false;
  if (node.value("type", "") == "ByteLevel") {
    if (addPrefixSpace)
      *addPrefixSpace = node.value("add_prefix_space", false);
    return true;
  }
  for (const char *key : {"pretokenizers", "decoders"})
    if (node.contains(key) && node[key].is_array())
      for (const nlohmann::json &child : node[key])
        if (hasByteLevel(child, addPrefixSpace))
          return true;
  return false;
}

llvm::Expected<BpeTokenizer> BpeTokenizer::parse(llvm::StringRef text) {
  auto impl = std::make_shared<Impl>();
  try {
    nlohmann::json root = nlohmann::json::parse(text.begin(), text.end());
    if (!root.is_object() || !root.contains("model") ||
        !root["model"].is_object())
      return llvm::createStringError("not a tokenizer.json (no \"model\")");
    const nlohmann::json &model = root["model"];
    std::string type = model.value("type", "BPE");
    if (type != "BPE")
      return llvm::createStringError(
          "the tokenizer's model is %s; only byte-level BPE is supported",
          type.c_str());
    bool byteLevel = false;
    if (root.contains("pre_tokenizer"))
      byteLevel |= hasByteLevel(root["pre_tokenizer"], &impl->addPrefixSpace);
    if (root.contains("decoder"))
      byteLevel |= hasByteLevel(root["decoder"], nullptr);
    if (!byteLevel)
      return llvm::createStringError(
          "the tokenizer is not byte-level (no ByteLevel pre-tokenizer or "
          "decoder); SentencePiece-style BPE is not supported");
    if (!model.contains("vocab") || !model["vocab"].is_object())
      return llvm::createStringError("the tokenizer has no model.vocab");
    for (const auto &[token, id] : model["vocab"].items()) {
      int64_t value = id.get<int64_t>();
      if (value < 0)
        return llvm::createStringError("the token '%s' has a negative id",
                                       token.c_str());
      impl->vocab[token] = value;
      impl->tokens[value] = token;
      impl->size = std::max(impl->size, value + 1);
    }
    if (!model.contains("merges") || !model["merges"].is_array())
      return llvm::createStringError("the tokenizer has no model.merges");
    for (const nlohmann::json &merge : model["merges"]) {
      std::string key;
      if (merge.is_string()) {
        key = merge.get<std::string>();
        if (key.find(' ') == std::string::npos)
          return llvm::createStringError("the merge '%s' is not 'a b'",
                                         key.c_str());
      } else if (merge.is_array() && merge.size() == 2) {
        key = merge[0].get<std::string>() + " " + merge[1].get<std::string>();
      } else {
        return llvm::createStringError(
            "a merge is neither \"a b\" nor [\"a\", \"b\"]: %s",
            merge.dump().c_str());
      }
      impl->mergeRanks.emplace(std::move(key), impl->mergeRanks.size());
    }
    if (model.contains("unk_token") && model["unk_token"].is_string()) {
      auto it = impl->vocab.find(model["unk_token"].get<std::string>());
      if (it != impl->vocab.end())
        impl->unk = it->second;
    }
    if (root.contains("added_tokens") && root["added_tokens"].is_array()) {
      for (const nlohmann::json &token : root["added_tokens"]) {
        AddedToken added{token.at("content").get<std::string>(),
                         token.at("id").get<int64_t>(),
                         token.value("special", false)};
        if (added.content.empty() || added.id < 0)
          continue;
        impl->size = std::max(impl->size, added.id + 1);
        impl->added.push_back(std::move(added));
      }
      std::stable_sort(impl->added.begin(), impl->added.end(),
                       [](const AddedToken &a, const AddedToken &b) {
                         return a.content.size() > b.content.size();
                       });
      for (size_t i = 0; i < impl->added.size(); ++i)
        impl->addedById.emplace(impl->added[i].id, i);
    }
  } catch (const nlohmann::json::parse_error &e) {
    return llvm::createStringError("the tokenizer is not valid JSON: %s",
                                   e.what());
  } catch (const std::exception &e) {
    return llvm::createStringError("the tokenizer is malformed: %s", e.what());
  }
  impl->buildByteTable();
  return BpeTokenizer(std::move(impl));
}

std::vector<std::string> BpeTokenizer::preTokenize(llvm::StringRef text) {
  std::vector<std::string> words;
  size_t n = text.size(), i = 0;
  auto cls = [&](size_t at) {
    return classify(static_cast<unsigned char>(text[at]));
  };
  // A run of one class from `at` (whole UTF-8 sequences), returning its end.
  auto runEnd = [&](size_t at) {
    CharClass c = cls(at);
    while (at < n && cls(at) == c)
      at += c == CharClass::Letter
                ? utf8Length(static_cast<unsigned char>(text[at]))
                : 1;
    return std::min(at, n);
  };
  while (i < n) {
    // 's 't 're 've 'm 'll 'd
    if (text[i] == '\'') {
      llvm::StringRef rest = text.substr(i + 1);
      size_t length = 0;
      for (llvm::StringRef suffix : {"re", "ve", "ll", "s", "t", "m", "d"})
        if (rest.starts_with(suffix)) {
          length = 1 + suffix.size();
          break;
        }
      if (length) {
        words.push_back(text.substr(i, length).str());
        i += length;
        continue;
      }
    }
    size_t start = i;
    if (cls(i) == CharClass::Space) {
      size_t end = runEnd(i);
      if (end == n) { // \s+ at the end of the text
        words.push_back(text.substr(i).str());
        break;
      }
      if (end - i > 1) { // \s+(?!\S): all but the last whitespace character
        words.push_back(text.substr(i, end - 1 - i).str());
        i = end - 1;
        continue;
      }
      if (text[i] != ' ') { // a lone \n or \t before a word: \s+
        words.push_back(text.substr(i, 1).str());
        ++i;
        continue;
      }
      ++i; // ' ?' in front of the next run
    }
    size_t end = runEnd(i);
    words.push_back(text.substr(start, end - start).str());
    i = end;
  }
  return words;
}

llvm::Expected<std::vector<int64_t>>
BpeTokenizer::encode(llvm::StringRef text) const {
  std::vector<int64_t> ids;
  auto encodePiece = [&](llvm::StringRef piece) -> llvm::Error {
    if (piece.empty())
      return llvm::Error::success();
    std::string prefixed;
    if (impl->addPrefixSpace && classify(piece.front()) != CharClass::Space) {
      prefixed = " " + piece.str();
      piece = prefixed;
    }
    for (const std::string &word : preTokenize(piece))
      if (llvm::Error error = impl->encodeWord(word, ids))
        return error;
    return llvm::Error::success();
  };
  size_t pieceStart = 0, i = 0;
  while (i < text.size()) {
    const AddedToken *match = nullptr;
    for (const AddedToken &token : impl->added)
      if (text.substr(i).starts_with(token.content)) {
        match = &token; // the longest, the list is sorted so
        break;
      }
    if (!match) {
      ++i;
      continue;
    }
    if (llvm::Error error = encodePiece(text.slice(pieceStart, i)))
      return std::move(error);
    ids.push_back(match->id);
    i += match->content.size();
    pieceStart = i;
  }
  if (llvm::Error error = encodePiece(text.substr(pieceStart)))
    return std::move(error);
  return ids;
}

std::string BpeTokenizer::decode(llvm::ArrayRef<int64_t> ids,
                                 bool skipSpecial) const {
  std::string out;
  for (int64_t id : ids) {
    if (auto it = impl->addedById.find(id); it != impl->addedById.end()) {
      const AddedToken &token = impl->added[it->second];
      if (!(skipSpecial && token.special))
        out += token.content;
      continue;
    }
    auto it = impl->tokens.find(id);
    if (it == impl->tokens.end())
      continue;
    llvm::StringRef token = it->second;
    for (size_t i = 0; i < token.size();) {
      size_t length = std::min(utf8Length(static_cast<unsigned char>(token[i])),
                               token.size() - i);
      std::string symbol = token.substr(i, length).str();
      auto byte = impl->unicodeToByte.find(symbol);
      if (byte != impl->unicodeToByte.end())
        out += static_cast<char>(byte->second);
      else
        out += symbol; // not byte-level: keep as written
      i += length;
    }
  }
  return out;
}

std::optional<int64_t> BpeTokenizer::tokenId(llvm::StringRef token) const {
  for (const AddedToken &added : impl->added)
    if (added.content == token)
      return added.id;
  auto it = impl->vocab.find(token.str());
  if (it != impl->vocab.end())
    return it->second;
  return std::nullopt;
}

int64_t BpeTokenizer::size() const { return impl->size; }
