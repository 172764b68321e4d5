//===- DbAgentTest.cpp - The db backend and the agent registry ------------===//

#include "cuda-agent/Agents/KernelAgent.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace mlir::cuda_agent;

namespace {

TEST(DbAgentTest, ProposesTheBestKernelOfTheExactKeyOnce) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("db-agent", dir));
  llvm::Expected<std::unique_ptr<KernelDb>> db =
      KernelDb::open((dir + "/k.db").str(), /*create=*/true);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  KernelRecord slow, fast, otherArch;
  slow.key =
      fast.key = {std::string(64, 'a'), "sm_90", "13.0", kContractVersion};
  otherArch.key = {std::string(64, 'a'), "sm_80", "13.0", kContractVersion};
  slow.source = "// slow";
  fast.source = "// fast";
  otherArch.source = "// sm_80";
  slow.speedup = 1.5;
  fast.speedup = 3.0;
  otherArch.speedup = 9.0;
  fast.agent = "openai";
  fast.model = "kernel-model";
  fast.launchPlanJson = R"({"launches": []})";
  for (const KernelRecord *record : {&slow, &fast, &otherArch})
    ASSERT_TRUE(bool((*db)->insertKernel(*record)));

  llvm::Expected<std::unique_ptr<KernelAgent>> agent =
      createAgent("db", {"", db->get(), "13.0"});
  ASSERT_TRUE(bool(agent)) << llvm::toString(agent.takeError());
  KernelTask task;
  task.regionHash = std::string(64, 'a');
  task.arch = "sm_90";
  llvm::Expected<std::vector<Candidate>> proposed =
      (*agent)->propose(task, {}, 4);
  ASSERT_TRUE(bool(proposed));
  ASSERT_EQ(proposed->size(), 1u);
  EXPECT_EQ((*proposed)[0].source, "// fast");
  EXPECT_EQ((*proposed)[0].agent, "db");
  EXPECT_EQ((*proposed)[0].model, "openai/kernel-model");
  // The database stores plans as compact JSON.
  EXPECT_EQ((*proposed)[0].launchPlan, R"({"launches":[]})");
  // Nothing more on a later turn, and nothing for an unknown key.
  Attempt attempt{(*proposed)[0], "slower", ""};
  proposed = (*agent)->propose(task, attempt, 4);
  ASSERT_TRUE(bool(proposed));
  EXPECT_TRUE(proposed->empty());
  task.regionHash = std::string(64, 'b');
  proposed = (*agent)->propose(task, {}, 4);
  ASSERT_TRUE(bool(proposed));
  EXPECT_TRUE(proposed->empty());
  llvm::sys::fs::remove_directories(dir);
}

TEST(AgentRegistryTest, NamesTheProblem) {
  auto message = [](llvm::StringRef name, const AgentConfig &config) {
    llvm::Expected<std::unique_ptr<KernelAgent>> agent =
        createAgent(name, config);
    return agent ? std::string("created") : llvm::toString(agent.takeError());
  };
  EXPECT_EQ(message("replay", {}),
            "agent=replay needs a directory of kernels: replay-dir=DIR");
  EXPECT_EQ(message("db", {}), "agent=db needs a kernel database (db=PATH)");
  EXPECT_EQ(message("nope", {}),
            "unknown agent 'nope' (known: builtin, openai, torch, replay, db)");
  EXPECT_EQ(message("replay", {"dir", nullptr, ""}), "created");
}

TEST(AgentRegistryTest, EachRowCreatesTheBackendItNames) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("registry-test", dir));
  llvm::Expected<std::unique_ptr<KernelDb>> db =
      KernelDb::open((dir + "/k.db").str(), /*create=*/true);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  AgentConfig config{dir.str().str(), db->get(), "13.0"};
  std::vector<llvm::StringRef> rows;
  for (const AgentBackend &backend : getAgentBackends()) {
    rows.push_back(backend.name);
    // agent=torch needs its model and its module; the others need only
    // what `config` has.
    if (backend.name == "torch")
      continue;
    llvm::Expected<std::unique_ptr<KernelAgent>> agent =
        backend.create(config);
    ASSERT_TRUE(bool(agent)) << llvm::toString(agent.takeError());
    EXPECT_EQ((*agent)->getName(), backend.name);
    llvm::Expected<std::unique_ptr<KernelAgent>> byName =
        createAgent(backend.name, config);
    ASSERT_TRUE(bool(byName)) << llvm::toString(byName.takeError());
    EXPECT_EQ((*byName)->getName(), backend.name);
  }
  EXPECT_EQ(rows, std::vector<llvm::StringRef>(getAgentNames().begin(),
                                               getAgentNames().end()));
  EXPECT_EQ(rows, (std::vector<llvm::StringRef>{"builtin", "openai", "torch",
                                                "replay", "db"}));
  db->reset();
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
