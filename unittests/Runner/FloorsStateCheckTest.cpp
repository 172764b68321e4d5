//===- FloorsStateCheckTest.cpp - Time floors and the state scan ----------===//
//
// Two host-only parts of cuda-agent-run's verifier, without a GPU: the
// bytes and peak rate behind the roofline and compute floors (Floors.h), the
// plan's optional "flops" and "ptx", and the scan that rejects a candidate
// bundle whose PTX keeps writable state between launches (StateCheck.h).
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "Floors.h"
#include "Plan.h"
#include "StateCheck.h"

#include "cuda-agent/Target/GpuTarget.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace mlir::cuda_agent;
namespace fs = std::filesystem;

namespace {

/// A bundle directory with k.ptx holding `ptx`, removed afterwards.
class BundleTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/runner-floors-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override { fs::remove_all(dir); }

  /// Parses a plan over f32 in0 [4, 8], f16 out0 [4] and a 256-byte
  /// workspace, one launch from k.ptx (`ptx`), with top-level `extra`.
  Plan parse(const std::string &ptx, const std::string &extra = "") {
    std::ofstream(dir / "k.ptx") << ptx;
    std::istringstream in(
        R"({"version": 1, "chip": "sm_90", "buffers": [
              {"name": "in0", "shape": [4, 8], "dtype": "f32", "role": "input"},
              {"name": "out0", "shape": [4], "dtype": "f16", "role": "output"}],
            "workspace_bytes": 256,
            "launches": [{"kernel": "k0", "object": "k.ptx", "grid": [1],
                          "block": [32], "args": ["in0", "out0", "workspace"]}])" +
        extra + "}");
    return parsePlan(in, dir);
  }

  fs::path dir;
};

const char kCleanPtx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                         ".visible .entry k0()\n{\n\tret;\n}\n";
const char kMemoPtx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".global .align 4 .u32 memo_hits;\n"
                        ".visible .entry k0()\n{\n\tmov.u64 \t%rd1, memo_hits;\n"
                        "\tst.global.u32 \t[%rd1], %r1;\n\tret;\n}\n";

TEST_F(BundleTest, FloorsCountInterfaceBytesAndPickTheDtypesUnit) {
  Plan plan = parse(kCleanPtx);
  // in0 (128 bytes) read once, out0 (8 bytes) written once; the workspace
  // is no interface.
  EXPECT_EQ(getFloorBytes(plan), 136u);
  // A region that reads a slice of in0 says how much it reads; a count above
  // the interface's does not raise the floor.
  EXPECT_EQ(getFloorBytes(parse(kCleanPtx, R"(, "bytes": 40)")), 40u);
  EXPECT_EQ(getFloorBytes(parse(kCleanPtx, R"(, "bytes": 4096)")), 136u);
  // An f16 output allows the f16 tensor cores.
  PeakRate peak = getPeakRate(plan);
  EXPECT_EQ(peak.flopsPerSecond, getGpuTarget("sm_90").peakFlopsF16);
  EXPECT_EQ(peak.unit, "f16/bf16 tensor-core peak of sm_90");
}

TEST_F(BundleTest, PlanFlopsBytesAndPtxAreOptional) {
  EXPECT_EQ(parse(kCleanPtx).flops, 0);
  EXPECT_EQ(parse(kCleanPtx).bytes, 0);
  EXPECT_EQ(parse(kCleanPtx, R"(, "bytes": 40)").bytes, 40);
  EXPECT_EQ(parse(kCleanPtx, R"(, "flops": 33554432)").flops, 33554432);
  EXPECT_EQ(parse(kCleanPtx, R"(, "ptx": "abc")").ptx, "abc");
  for (std::string key : {"flops", "bytes"}) {
    try {
      parse(kCleanPtx, ", \"" + key + "\": -8");
      ADD_FAILURE() << "negative " << key << " accepted";
    } catch (const RunnerError &error) {
      EXPECT_NE(std::string(error.what()).find(key + " = -8 is negative"), std::string::npos)
          << error.what();
    }
  }
}

TEST_F(BundleTest, StateInAnObjectIsFoundByName) {
  EXPECT_EQ(findCandidateState(parse(kCleanPtx)).reason, "");
  StateFinding finding = findCandidateState(parse(kMemoPtx));
  EXPECT_FALSE(finding.uninspectable);
  EXPECT_NE(finding.reason.find("writable state that outlives a launch in object 'k.ptx'"),
            std::string::npos)
      << finding.reason;
  EXPECT_NE(finding.reason.find("module-scope .global variable 'memo_hits'"),
            std::string::npos)
      << finding.reason;
}

TEST_F(BundleTest, ThePlansPtxIsCheckedToo) {
  // The compiler keeps a candidate's PTX in its plan beside the cubin.
  std::string clean = R"(, "ptx": ".visible .entry k0()\n{\n\tret;\n}\n")";
  EXPECT_EQ(findCandidateState(parse(kCleanPtx, clean)).reason, "");
  std::string memo = R"(, "ptx": ".global .u32 memo;\n.visible .entry k0()\n{\n)"
                     R"(\tmov.u64 \t%rd1, memo;\n\tst.global.u32 \t[%rd1], %r1;\n\tret;\n}\n")";
  std::string reason = findCandidateState(parse(kCleanPtx, memo)).reason;
  EXPECT_NE(reason.find("in plan.json's ptx: module-scope .global variable 'memo'"),
            std::string::npos)
      << reason;
}

TEST(StateCheckTest, ACubinThatIsNotElfCannotBeInspected) {
  const char garbage[] = "not an ELF image at all, just some bytes of text";
  EXPECT_EQ(findCubinState(garbage, sizeof(garbage)), std::vector<std::string>{"?"});
}

} // namespace
