//===- OpenAIAgent.cpp - An OpenAI-compatible chat-completions agent ------===//
//
// Any server that speaks POST {endpoint}/chat/completions (vLLM, SGLang,
// llama.cpp server, Ollama, hosted APIs), through libcurl. Each candidate is
// one completion of the conversation the prompt renderer builds; 429, 5xx
// and connection failures are retried with exponential backoff; everything
// else, and a reply that is not a kernel, is a per-region reason or feedback.
// The completions of one turn run on up to `concurrency` threads at once.
// The API key is read from the environment at request time and only ever
// goes into the Authorization header.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/Prompt.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

size_t appendBody(char *data, size_t size, size_t count, void *out) {
  static_cast<std::string *>(out)->append(data, size * count);
  return size * count;
}

struct Response {
  long status = 0;
  std::string body;
};

class OpenAIAgent final : public KernelAgent {
public:
  explicit OpenAIAgent(const OpenAIConfig &config) : config(config) {
    static const bool initialized = curl_global_init(CURL_GLOBAL_DEFAULT) == 0;
    (void)initialized;
  }

  llvm::StringRef getName() const override { return "openai"; }

  llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) override {
    if (config.endpoint.empty())
      return llvm::createStringError(
          "agent=openai needs the server's URL: endpoint=http://HOST:PORT/v1");
    llvm::json::Array messages;
    std::vector<KernelRecord> examples =
        findFewShotExamples(config.fewShot.db, task, config.fewShot.tokens);
    std::vector<ChatMessage> conversation =
        renderPrompt(task, history, examples);
    for (const ChatMessage &m : conversation)
      messages.push_back(
          llvm::json::Object{{"role", m.role}, {"content", m.content}});
    llvm::json::Object request{{"model", config.model},
                               {"messages", std::move(messages)},
                               {"temperature", config.temperature},
                               {"max_tokens", config.maxTokens}};
    std::string body =
        llvm::formatv("{0}", llvm::json::Value(std::move(request)));
    // The `count` completions of a turn, at most `concurrency` in flight;
    // each lands in its own slot, so the candidates keep request order.
    std::vector<std::string> replies(count), errors(count);
    std::atomic<unsigned> next{0};
    auto work = [&] {
      for (unsigned i = next++; i < count; i = next++) {
        llvm::Expected<std::string> reply = complete(body);
        if (reply)
          replies[i] = std::move(*reply);
        else
          errors[i] = llvm::toString(reply.takeError());
      }
    };
    unsigned threads = std::max(1u, std::min(config.concurrency, count));
    if (threads == 1) {
      work();
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back(work);
      for (std::thread &thread : pool)
        thread.join();
    }
    std::vector<Candidate> candidates;
    for (unsigned i = 0; i < count; ++i) {
      if (!errors[i].empty())
        continue; // a failed request costs its candidate, not the turn
      ParsedReply parsed = parseReply(replies[i]);
      std::string turn = std::to_string(history.size() + i + 1);
      candidates.push_back({"reply-" + turn, parsed.source, parsed.launchPlan,
                            "openai", config.model, replies[i], parsed.error,
                            kPromptVersion.str(), conversation});
    }
    if (candidates.empty() && count > 0)
      return llvm::createStringError("%s", errors.front().c_str());
    return candidates;
  }

private:
  /// One POST; a transport failure is an error whose message says so.
  llvm::Expected<Response> post(const std::string &body) {
    CURL *curl = curl_easy_init();
    if (!curl)
      return llvm::createStringError("libcurl could not start a request");
    std::string url = config.endpoint;
    while (!url.empty() && url.back() == '/')
      url.pop_back();
    url += "/chat/completions";
    curl_slist *headers =
        curl_slist_append(nullptr, "Content-Type: application/json");
    if (!config.apiKeyEnv.empty())
      if (const char *key = std::getenv(config.apiKeyEnv.c_str()); key && *key)
        headers = curl_slist_append(
            headers, (std::string("Authorization: Bearer ") + key).c_str());
    Response response;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, long(body.size()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, long(config.timeoutSeconds));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code != CURLE_OK)
      return llvm::createStringError("request to %s failed: %s", url.c_str(),
                                     curl_easy_strerror(code));
    return response;
  }

  /// A completion's text, retrying 429, 5xx and transport failures.
  llvm::Expected<std::string> complete(const std::string &body) {
    std::string last;
    for (unsigned attempt = 0; attempt <= config.retries; ++attempt) {
      if (attempt > 0)
        std::this_thread::sleep_for(
            std::chrono::milliseconds(config.backoffMs << (attempt - 1)));
      llvm::Expected<Response> response = post(body);
      if (!response) {
        last = llvm::toString(response.takeError());
        continue;
      }
      if (response->status == 429 || response->status >= 500) {
        last = llvm::formatv("the server answered HTTP {0}", response->status);
        continue;
      }
      if (response->status != 200)
        return llvm::createStringError(
            "the server answered HTTP %ld: %s", response->status,
            llvm::StringRef(response->body).take_front(300).str().c_str());
      llvm::Expected<llvm::json::Value> json =
          llvm::json::parse(response->body);
      if (!json)
        return llvm::createStringError(
            "the server's reply is not JSON (%s)",
            llvm::toString(json.takeError()).c_str());
      const llvm::json::Object *root = json->getAsObject();
      const llvm::json::Array *choices =
          root ? root->getArray("choices") : nullptr;
      if (!choices || choices->empty())
        return llvm::createStringError("the server's reply has no choices");
      const llvm::json::Object *choice = choices->front().getAsObject();
      const llvm::json::Object *message =
          choice ? choice->getObject("message") : nullptr;
      std::optional<llvm::StringRef> content =
          message ? message->getString("content") : std::nullopt;
      if (!content)
        return llvm::createStringError(
            "the server's reply has no message content");
      return content->str();
    }
    return llvm::createStringError("%s (after %u attempts)", last.c_str(),
                                   config.retries + 1);
  }

  OpenAIConfig config;
};

} // namespace

std::unique_ptr<KernelAgent>
cuda_agent::createOpenAIAgent(const OpenAIConfig &config) {
  return std::make_unique<OpenAIAgent>(config);
}
