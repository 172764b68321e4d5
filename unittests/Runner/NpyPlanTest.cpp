//===- NpyPlanTest.cpp - The runner's .npy reader and plan loader ---------===//
//
// cuda-agent-run's input readers without a GPU: .npy files written and read
// back, and every malformed header refused with the file's name; plan.json
// parsed and checked field by field, and the interface check that compares a
// candidate's buffers with the reference's.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "Npy.h"
#include "Plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace mlir::cuda_agent;
namespace fs = std::filesystem;

namespace {

/// A fresh directory, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/runner-core-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string &name, const std::string &bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  }
  fs::path dir;
};

/// The message of the RunnerError `body` throws, or "" when it throws none.
template <typename Body>
std::string errorOf(Body &&body, ExitCode expected = kExitUsage) {
  try {
    body();
  } catch (const RunnerError &error) {
    EXPECT_EQ(error.exitCode(), expected) << error.what();
    return error.what();
  }
  return "";
}

/// A version 1.0 .npy file with header `dict` (padded) and `data`.
std::string makeNpy(const std::string &dict, const std::string &data) {
  std::string header = dict + "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(char(header.size() & 0xff));
  bytes.push_back(char(header.size() >> 8));
  return bytes + header + data;
}

using NpyTest = TempDirTest;

TEST_F(NpyTest, WrittenFilesReadBack) {
  float values[6] = {1, 2, 3, 4, 5, 6};
  writeNpy(dir / "a.npy", "<f4", {2, 3}, values, sizeof(values));
  std::ifstream file(dir / "a.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  // numpy's layout: the header padded so the data starts at a multiple of
  // 64 bytes, the padding ending in a newline.
  ASSERT_EQ((bytes.size() - sizeof(values)) % 64, 0u);
  EXPECT_EQ(bytes[bytes.size() - sizeof(values) - 1], '\n');
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (2, 3), }"),
            std::string::npos);
  NpyArray array = readNpy(dir / "a.npy");
  EXPECT_EQ(array.descr, "<f4");
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(array.data.size(), sizeof(values));
  EXPECT_EQ(std::memcmp(array.data.data(), values, sizeof(values)), 0);

  writeNpy(dir / "s.npy", "<i8", {}, values, 8);
  EXPECT_TRUE(readNpy(dir / "s.npy").shape.empty());
  writeNpy(dir / "v.npy", "|u1", {5}, values, 5);
  EXPECT_EQ(readNpy(dir / "v.npy").shape, std::vector<int64_t>{5});
}

TEST_F(NpyTest, MalformedFilesAreRefusedNamingTheFile) {
  auto read = [](const std::string &bytes) {
    std::istringstream in(bytes);
    return errorOf([&] { readNpy(in, "in.npy"); });
  };
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,), }";
  EXPECT_EQ(read(makeNpy(dict, std::string(8, '\0'))), "");
  EXPECT_EQ(read("not numpy"), "in.npy: not a .npy file");
  std::string v4 = makeNpy(dict, std::string(8, '\0'));
  v4[6] = 4;
  EXPECT_EQ(read(v4), "in.npy: unsupported .npy version 4");
  EXPECT_EQ(read(makeNpy(dict, std::string(8, '\0')).substr(0, 20)),
            "in.npy: truncated header");
  EXPECT_EQ(read(makeNpy(dict, std::string(7, '\0'))),
            "in.npy: holds fewer data bytes than shape and dtype need (8)");
  EXPECT_EQ(read(makeNpy(dict, std::string(9, '\0'))),
            "in.npy: holds more data bytes than shape and dtype need (8)");
  EXPECT_EQ(read(makeNpy("{'descr': '<f4', 'fortran_order': True, "
                         "'shape': (2,), }",
                         std::string(8, '\0'))),
            "in.npy: bad .npy header: fortran_order is not False (only C "
            "order is supported)");
  EXPECT_EQ(read(makeNpy("{'descr': '<f4', 'shape': (2,), }", "")),
            "in.npy: bad .npy header: header lacks 'descr', 'fortran_order' "
            "or 'shape'");
  EXPECT_EQ(read(makeNpy("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (2, x), }",
                         "")),
            "in.npy: bad .npy header: bad dimension 'x' in shape");
  EXPECT_EQ(read(makeNpy("{'descr': 'O', 'fortran_order': False, "
                         "'shape': (), }",
                         "")),
            "in.npy: unsupported dtype descr 'O'");
  EXPECT_EQ(errorOf([&] { readNpy(dir / "absent.npy"); }),
            (dir / "absent.npy").string() + ": cannot open");
}

using PlanTest = TempDirTest;

/// A plan with buffers `buffers` (JSON) and one launch of k0 over `args`.
std::string makePlan(const std::string &buffers, const std::string &args,
                     const std::string &extra = "") {
  return R"({"version": 1, "chip": "sm_90", "buffers": [)" + buffers +
         R"(], "launches": [{"kernel": "k0", "object": "k.ptx",
             "grid": [8, 4], "block": [128], "args": [)" +
         args + "]}]" + extra + "}";
}

const char kTwoBuffers[] =
    R"({"name": "arg0", "shape": [4, 8], "dtype": "f32", "role": "input"},
       {"name": "res0", "shape": [4], "dtype": "f16", "role": "output"})";

TEST_F(PlanTest, AValidPlanParses) {
  write("k.ptx", ".version 8.0");
  std::istringstream in(makePlan(kTwoBuffers, R"("arg0", "res0", "workspace")",
                                 R"(, "workspace_bytes": 256,
         "reduction": {"length": 8, "accumulator": "f32"})"));
  Plan plan = parsePlan(in, dir);
  EXPECT_EQ(plan.chip, "sm_90");
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_EQ(plan.buffers[1].dtype, DType::F16);
  EXPECT_EQ(plan.buffers[1].role, Role::Output);
  EXPECT_EQ(plan.buffers[0].numBytes(), 4u * 8 * 4);
  EXPECT_EQ(plan.buffers[2].name, kWorkspaceName);
  EXPECT_EQ(plan.buffers[2].role, Role::Temp);
  EXPECT_EQ(plan.buffers[2].numBytes(), 256u);
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].grid, (std::array<unsigned, 3>{8, 4, 1}));
  EXPECT_EQ(plan.launches[0].block, (std::array<unsigned, 3>{128, 1, 1}));
  EXPECT_EQ(plan.launches[0].args, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(plan.reductionLength, 8);
  // PTX gets the NUL terminator the driver needs.
  EXPECT_EQ(plan.objects["k.ptx"].back(), '\0');

  write("plan.json", makePlan(kTwoBuffers, R"("arg0", "res0")"));
  EXPECT_EQ(loadPlan(dir).buffers.size(), 2u);
}

TEST_F(PlanTest, APrecisionOfTf32LoosensOnlyWhatItNames) {
  // A reference plan of precision=tf32: parsed, and absent means exact.
  write("k.ptx", ".version 8.0");
  auto parse = [&](const std::string &extra) {
    std::istringstream in(makePlan(kTwoBuffers, R"("arg0", "res0")", extra));
    return parsePlan(in, dir);
  };
  EXPECT_FALSE(parse("").tf32Products);
  EXPECT_FALSE(parse(R"(, "precision": "f32")").tf32Products);
  EXPECT_TRUE(parse(R"(, "precision": "tf32")").tf32Products);
  EXPECT_EQ(errorOf([&] { parse(R"(, "precision": "bf16")"); }),
            "plan.json: top level: precision = 'bf16' is not f32 or tf32");
}

TEST_F(PlanTest, BadPlansNameTheBufferOrLaunchAtFault) {
  write("k.ptx", ".version 8.0");
  auto parse = [&](const std::string &text) {
    std::istringstream in(text);
    return errorOf([&] { parsePlan(in, dir); });
  };
  EXPECT_EQ(parse("{").rfind("plan.json: invalid JSON: ", 0), 0u);
  EXPECT_EQ(parse(R"({"version": 2})"),
            "plan.json: top level: unsupported version 2 (expected 1)");
  EXPECT_EQ(
      parse(makePlan(R"({"name": "a", "shape": [1], "dtype": "f8",
                          "role": "input"})",
                     R"("a")")),
      "plan.json: buffer 0 (a): unknown dtype 'f8' (expected f32, f16, bf16, "
      "f64, i1, i8, i16, i32, i64 or u8)");
  EXPECT_EQ(parse(makePlan(R"({"name": "a", "shape": [-1], "dtype": "f32",
                          "role": "input"})",
                           R"("a")")),
            "plan.json: buffer 0 (a): negative dimension in shape");
  EXPECT_EQ(parse(makePlan(std::string(kTwoBuffers) + R"(, {"name": "arg0",
                             "shape": [1], "dtype": "f32", "role": "temp"})",
                           R"("arg0")")),
            "plan.json: buffer 2: duplicate buffer name 'arg0'");
  EXPECT_EQ(parse(makePlan(kTwoBuffers, R"("arg0", "nope")")),
            "plan.json: launch 0 (k0): args[1] names unknown buffer 'nope'");
  EXPECT_EQ(
      parse(makePlan(kTwoBuffers, R"("arg0")", R"(, "workspace_bytes": -1)")),
      "plan.json: top level: workspace_bytes = -1 is negative");
  std::string bigBlock = makePlan(kTwoBuffers, R"("arg0")");
  bigBlock.replace(bigBlock.find("[128]"), 5, "[64, 32]");
  EXPECT_EQ(parse(bigBlock), "plan.json: launch 0 (k0): block has 2048 "
                             "threads, more than the 1024 allowed");
  std::string noObject = makePlan(kTwoBuffers, R"("arg0")");
  noObject.replace(noObject.find("k.ptx"), 5, "gone.cubin");
  EXPECT_EQ(parse(noObject), "plan.json: launch 0 (k0): object file '" +
                                 (dir / "gone.cubin").string() + "' not found");
  EXPECT_EQ(errorOf([&] { loadPlan(dir / "absent"); }),
            "cannot open '" + (dir / "absent" / "plan.json").string() + "'");
}

TEST_F(PlanTest, ConstantsCarryTheBytesOfTheirDataFile) {
  write("k.ptx", ".version 8.0");
  write("const0.bin", std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));
  const std::string constant =
      std::string(kTwoBuffers) + R"(, {"name": "const0", "shape": [2],
         "dtype": "f32", "role": "constant", "data": "const0.bin"})";
  std::istringstream in(makePlan(constant, R"("arg0", "const0", "res0")"));
  Plan plan = parsePlan(in, dir);
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_EQ(plan.buffers[2].role, Role::Constant);
  EXPECT_EQ(plan.buffers[2].data,
            (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40}));

  auto parse = [&](const std::string &text) {
    std::istringstream in(text);
    return errorOf([&] { parsePlan(in, dir); });
  };
  std::string wrongSize = constant;
  wrongSize.replace(wrongSize.find("[2]"), 3, "[3]");
  EXPECT_EQ(parse(makePlan(wrongSize, R"("const0")")),
            "plan.json: buffer 2 (const0): data file 'const0.bin' holds 8 bytes, "
            "the buffer 12");
  std::string noData = constant;
  noData.replace(noData.find(R"(, "data": "const0.bin")"), 22, "");
  EXPECT_EQ(parse(makePlan(noData, R"("const0")")).rfind("plan.json: buffer 2 (const0): ", 0),
            0u);
  std::string outside = constant;
  outside.replace(outside.find("const0.bin"), 10, "../x.bin");
  EXPECT_EQ(parse(makePlan(outside, R"("const0")")),
            "plan.json: buffer 2 (const0): a constant's data file must be a file "
            "name inside the bundle");
}

BufferSpec buffer(const std::string &name, std::vector<int64_t> shape,
                  DType dtype, Role role) {
  return {name, std::move(shape), dtype, role};
}

TEST(InterfaceTest, OnlyTempsMayDiffer) {
  Plan reference, candidate;
  reference.buffers = {buffer("arg0", {4}, DType::F32, Role::Input),
                       buffer("res0", {4}, DType::F32, Role::Output),
                       buffer("tmp", {9}, DType::U8, Role::Temp)};
  candidate.buffers = {buffer("res0", {4}, DType::F32, Role::Output),
                       buffer("arg0", {4}, DType::F32, Role::Input),
                       buffer("workspace", {64}, DType::U8, Role::Temp)};
  EXPECT_EQ(findInterfaceMismatch(reference, candidate), "");

  Plan changed = candidate;
  changed.buffers[0].shape = {5};
  EXPECT_EQ(findInterfaceMismatch(reference, changed),
            "plan mismatch: candidate buffer res0 has shape [5] but reference "
            "has [4]");
  changed = candidate;
  changed.buffers[1].dtype = DType::F16;
  EXPECT_EQ(findInterfaceMismatch(reference, changed),
            "plan mismatch: candidate buffer arg0 has dtype f16 but reference "
            "has f32");
  changed = candidate;
  changed.buffers[1].role = Role::InOut;
  EXPECT_EQ(findInterfaceMismatch(reference, changed),
            "plan mismatch: candidate buffer arg0 has role inout but reference "
            "has input");
  changed = candidate;
  changed.buffers.erase(changed.buffers.begin());
  EXPECT_EQ(findInterfaceMismatch(reference, changed),
            "plan mismatch: candidate lacks buffer res0 (output) of the "
            "reference");
  changed = candidate;
  changed.buffers.push_back(buffer("tmp", {9}, DType::U8, Role::Output));
  EXPECT_EQ(findInterfaceMismatch(reference, changed),
            "plan mismatch: candidate has buffer tmp (output) that the "
            "reference lacks (only temps may differ)");
}

} // namespace
