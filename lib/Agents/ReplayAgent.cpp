//===- ReplayAgent.cpp - Candidates from files ------------------------------===//
//
// The replay backend: serves kernels written by hand, recorded from a model,
// or produced by an external agent workflow, keyed by region hash.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/KernelAgent.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

llvm::Expected<std::string> readText(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s'",
                                   path.str().c_str());
  return (*buffer)->getBuffer().str();
}

class ReplayAgent final : public KernelAgent {
public:
  explicit ReplayAgent(llvm::StringRef dir) : dir(dir.str()) {}

  llvm::StringRef getName() const override { return "replay"; }

  llvm::Expected<std::vector<Candidate>>
  propose(const KernelTask &task, llvm::ArrayRef<Attempt> history,
          unsigned count) override {
    llvm::SmallString<256> regionDir(dir);
    llvm::sys::path::append(regionDir, task.regionHash);
    std::vector<std::string> names;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(regionDir, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".cu")
        names.push_back(llvm::sys::path::stem(it->path()).str());
    if (ec && ec != std::errc::no_such_file_or_directory)
      return llvm::createStringError(ec, "cannot list '%s'", regionDir.c_str());
    std::sort(names.begin(), names.end());

    llvm::StringSet<> attempted;
    for (const Attempt &attempt : history)
      attempted.insert(attempt.candidate.name);
    std::vector<Candidate> candidates;
    for (const std::string &name : names) {
      if (candidates.size() == count)
        break;
      if (attempted.contains(name))
        continue;
      llvm::Expected<std::string> source =
          readText(regionDir + "/" + name + ".cu");
      if (!source)
        return source.takeError();
      llvm::Expected<std::string> plan =
          readText(regionDir + "/" + name + ".json");
      if (!plan)
        return llvm::createStringError(
            "replay candidate '%s/%s.cu' has no launch plan beside it (%s)",
            regionDir.c_str(), name.c_str(),
            llvm::toString(plan.takeError()).c_str());
      candidates.push_back({name, std::move(*source), std::move(*plan),
                            "replay", "files"});
    }
    return candidates;
  }

private:
  std::string dir;
};

} // namespace

std::unique_ptr<KernelAgent> cuda_agent::createReplayAgent(llvm::StringRef dir) {
  return std::make_unique<ReplayAgent>(dir);
}
