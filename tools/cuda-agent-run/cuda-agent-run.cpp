//===- cuda-agent-run.cpp - The MLIR-free GPU runner ------------*- C++ -*-===//
//
// cuda-agent-run executes a launch-plan bundle (plan.json + kernel objects) on
// a GPU: it fills the inputs (from .npy files or a seeded generator), poisons
// the outputs, runs the launches once with a check after each, writes every
// output as .npy, checks guard bytes and inputs, and optionally times the
// whole plan. It needs only the CUDA driver, loaded at run time, so it is
// built on the compile machine and carried to the GPU machine. `--probe`
// reports the GPUs (or their absence) for lit and the compiler.
//
// `--verify REF CAND...` checks candidate bundles against a reference bundle
// and times them (Verify.h); it runs each candidate in a child process of
// this same binary (`--verify-one`, internal).
//
// The result is one JSON object on stdout; failures also print one line on
// stderr and exit nonzero (see Error.h for the codes).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Error.h"
#include "Inputs.h"
#include "Jobs.h"
#include "Npy.h"
#include "Plan.h"
#include "Runner.h"
#include "Verify.h"

#include "cuda-agent/Runner/Protocol.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <iomanip>
#include <iostream>

using namespace mlir::cuda_agent;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

/// A default as the help prints it: "%g" without the exponent's "+" and
/// leading zeros ("1.05", "4.23e12").
static std::string formatDefault(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  std::string result = text;
  size_t e = result.find('e');
  if (e == std::string::npos)
    return result;
  std::string exponent = result.substr(e + 1);
  bool negative = exponent[0] == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return result.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

static std::string getUsage() {
  return
    "usage: cuda-agent-run --probe\n"
    "       cuda-agent-run BUNDLE [--inputs DIR] [--out DIR] [--seed N]\n"
    "                      [--device N] [--time] [--warmup N] [--runs N] [--json]\n"
    "       cuda-agent-run --verify REF CAND [CAND...] [--trials N] [--seed N]\n"
    "                      [--device N] [--time] [--warmup N] [--runs N]\n"
    "                      [--min-speedup X] [--roofline-bw B] [--peak-flops F]\n"
    "                      [--flops N] [--timeout S] [--json]\n"
    "       cuda-agent-run --jobs DIR [--device N] [--warmup N] [--runs N]\n"
    "                      [--roofline-bw B] [--peak-flops F]\n"
    "\n"
    "  BUNDLE       directory with plan.json and the kernel objects it names\n"
    "  --inputs DIR read every input buffer from DIR/<name>.npy\n"
    "               (default: seeded random data, written to the output dir)\n"
    "  --out DIR    where <name>.npy outputs go (default: BUNDLE/out)\n"
    "  --seed N     seed of the generated inputs (default 0 for one bundle; for\n"
    "               --verify and --jobs drawn afresh per verification and\n"
    "               reported as \"seed\")\n"
    "  --device N   CUDA device ordinal (default 0)\n"
    "  --time       time the plan after the checked run (CUDA events, L2\n"
    "               flushed between runs)\n"
    "  --warmup N   untimed runs before timing (default 5)\n"
    "  --runs N     timed runs (default 50)\n"
    "  --json       print only the JSON summary (no human summary on stderr)\n"
    "\n"
    "Verification (--verify): checks each candidate bundle against the reference\n"
    "bundle REF in a child process of its own, on fresh inputs per trial.\n"
    "  --trials N        trials, cycling normal, uniform+offset, small-int,\n"
    "                    large-normal inputs (default " +
        std::to_string(kDefaultTrials) + ")\n"
    "  --time            time passing candidates interleaved with the reference\n"
    "                    (default 5 warm-up and 20 timed runs each)\n"
    "  --min-speedup X   ref/cand time ratio that counts as faster (default " +
        formatDefault(kDefaultMinSpeedup) + ")\n"
    "  --roofline-bw B   bytes/s for the roofline floor; a candidate faster than\n"
    "                    " + formatDefault(VerifyOptions().rooflineMargin) +
        " x floor is rejected as suspicious (default " +
        formatDefault(kDefaultRooflineBandwidth) + ")\n"
    "  --peak-flops F    FLOP/s for the compute floor (default: the plan chip's\n"
    "                    fastest unit for the region's dtype: f16/bf16 tensor\n"
    "                    cores, TF32 for f32); a candidate faster than " +
        formatDefault(VerifyOptions().rooflineMargin) + " x\n"
    "                    flops / F is rejected as suspicious\n"
    "  --flops N         the region's flops (default: the reference plan's \"flops\")\n"
    "  --timeout S       seconds before a candidate's child is killed (default " +
        std::to_string(kDefaultTimeoutSeconds) + ")\n"
    "\n"
    "Jobs (--jobs DIR): runs the verification jobs that the compiler wrote with\n"
    "--agent-lower=\"verify=bundle:DIR\": one timed --verify per region, with\n"
    "min-speedup, timeout and trials from DIR/jobs.json; each result goes to\n"
    "DIR/<hash>/result.json, for `cuda-agent-db import-results DIR`.\n"
    "\n"
    "Exit codes: 0 ok (for --verify: it ran, whatever the verdicts),\n"
    "1 cannot write output, 2 bad usage/plan/input (for --verify: also a\n"
    "candidate plan that does not load or match the reference), 3 CUDA error\n"
    "(for --verify: in the reference, or no GPU), 4 plan wrote outside a buffer\n"
    "or into an input (for --verify: the reference did).\n";
}

namespace {

enum class Mode { Run, Probe, Verify, VerifyOne, Jobs };

struct Options {
  Mode mode = Mode::Run;
  std::vector<fs::path> bundles; ///< Run: one; Verify: REF CAND...; VerifyOne: REF CAND
  fs::path bundle, inputs, out, jobs;
  uint64_t seed = 0;
  int device = 0;
  bool time = false;
  int warmup = 5, runs = 50;
  bool jsonOnly = false;
  VerifyOptions verify;
};

[[noreturn]] void usageError(const std::string &message) {
  throw RunnerError(kExitUsage, message + " (see --help)");
}

uint64_t parseNumber(const std::string &option, const std::string &text,
                     uint64_t max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 19 || std::stoull(text) > max)
    usageError(option + " expects an integer in [0, " + std::to_string(max) +
               "], got '" + text + "'");
  return std::stoull(text);
}

double parsePositive(const std::string &option, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value > 0) || !std::isfinite(value))
    usageError(option + " expects a positive number, got '" + text + "'");
  return value;
}

Options parseOptions(int argc, char **argv) {
  Options options;
  bool runsGiven = false, seedGiven = false;
  std::vector<std::string> verifyOnly; ///< verify options seen, for errors
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      hasInlineValue = true;
    }
    auto takeValue = [&]() -> std::string {
      if (hasInlineValue)
        return value;
      if (i + 1 >= argc)
        usageError(arg + " expects a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << getUsage();
      std::exit(kExitOk);
    } else if (arg == "--probe") {
      options.mode = Mode::Probe;
    } else if (arg == "--verify") {
      options.mode = Mode::Verify;
    } else if (arg == "--jobs") {
      options.mode = Mode::Jobs;
      options.jobs = takeValue();
    } else if (arg == "--verify-one") {
      options.mode = Mode::VerifyOne;
    } else if (arg == "--trials") {
      options.verify.trials = int(parseNumber(arg, takeValue(), 1000));
      if (options.verify.trials == 0)
        usageError("--trials must be at least 1");
      verifyOnly.push_back(arg);
    } else if (arg == "--min-speedup") {
      options.verify.minSpeedup = parsePositive(arg, takeValue());
      verifyOnly.push_back(arg);
    } else if (arg == "--roofline-bw") {
      options.verify.rooflineBw = parsePositive(arg, takeValue());
      verifyOnly.push_back(arg);
    } else if (arg == "--peak-flops") {
      options.verify.peakFlops = parsePositive(arg, takeValue());
      verifyOnly.push_back(arg);
    } else if (arg == "--flops") {
      options.verify.flops = int64_t(parseNumber(arg, takeValue(), INT64_MAX / 2));
      verifyOnly.push_back(arg);
    } else if (arg == "--timeout") {
      options.verify.timeoutSeconds = parsePositive(arg, takeValue());
      verifyOnly.push_back(arg);
    } else if (arg == "--child-test-fault") {
      options.verify.childTestFault = takeValue();
      if (options.verify.childTestFault != "hang" &&
          options.verify.childTestFault != "crash" &&
          options.verify.childTestFault != "exit")
        usageError("--child-test-fault expects hang, crash or exit");
      verifyOnly.push_back(arg);
    } else if (arg == "--inputs") {
      options.inputs = takeValue();
    } else if (arg == "--out") {
      options.out = takeValue();
    } else if (arg == "--seed") {
      options.seed = parseNumber(arg, takeValue(), UINT64_MAX / 2);
      seedGiven = true;
    } else if (arg == "--device") {
      options.device = int(parseNumber(arg, takeValue(), 1024));
    } else if (arg == "--time") {
      options.time = true;
    } else if (arg == "--warmup") {
      options.warmup = int(parseNumber(arg, takeValue(), 100000));
    } else if (arg == "--runs") {
      options.runs = int(parseNumber(arg, takeValue(), 100000));
      if (options.runs == 0)
        usageError("--runs must be at least 1");
      runsGiven = true;
    } else if (arg == "--json") {
      options.jsonOnly = true;
    } else if (arg.rfind("-", 0) == 0) {
      usageError("unknown option '" + arg + "'");
    } else {
      options.bundles.push_back(arg);
    }
  }

  bool verifying = options.mode == Mode::Verify ||
                   options.mode == Mode::VerifyOne || options.mode == Mode::Jobs;
  if (!verifying && !verifyOnly.empty())
    usageError(verifyOnly.front() + " needs --verify");
  switch (options.mode) {
  case Mode::Probe:
    return options;
  case Mode::Jobs:
    if (!options.bundles.empty() || !options.inputs.empty() || !options.out.empty())
      usageError("--jobs takes only its directory (bundles, --inputs and --out "
                 "come from DIR/jobs.json)");
    options.verify.device = options.device;
    options.verify.warmup = options.warmup;
    options.verify.runs = runsGiven ? options.runs : options.verify.runs;
    options.verify.seed = options.seed;
    options.verify.drawSeed = !seedGiven;
    return options;
  case Mode::Run:
    if (options.bundles.empty())
      usageError("no bundle given");
    if (options.bundles.size() > 1)
      usageError("more than one bundle given ('" + options.bundles[0].string() +
                 "' and '" + options.bundles[1].string() + "')");
    options.bundle = options.bundles[0];
    if (options.out.empty())
      options.out = options.bundle / "out";
    return options;
  case Mode::Verify:
  case Mode::VerifyOne:
    if (!options.inputs.empty() || !options.out.empty())
      usageError("--inputs and --out do not apply to --verify (inputs are "
                 "generated per trial)");
    if (options.bundles.size() < 2)
      usageError("--verify needs a reference bundle and at least one candidate");
    if (options.mode == Mode::VerifyOne && options.bundles.size() != 2)
      usageError("--verify-one takes exactly one reference and one candidate");
    options.verify.seed = options.seed;
    options.verify.drawSeed = !seedGiven && options.mode == Mode::Verify;
    options.verify.device = options.device;
    options.verify.time = options.time;
    options.verify.warmup = options.warmup;
    options.verify.runs = runsGiven ? options.runs : options.verify.runs;
    return options;
  }
  return options;
}

json describeDevice(const DeviceInfo &device) {
  return {{wire::kName, device.name},
          {wire::kArch, device.arch},
          {wire::kMemoryBytes, device.memoryBytes}};
}

/// --probe: never fails; a missing driver or GPU is reported in the JSON.
json probe() {
  json result = {{wire::kGpu, false}, {wire::kDevices, json::array()},
                 {wire::kArch, nullptr}, {"driver", nullptr}};
  try {
    Driver driver;
    int version = 0;
    if (driver.cuDriverGetVersion(&version) == CUDA_SUCCESS)
      result["driver"] = version;
    CU_CHECK(driver, cuInit, 0);
    int count = 0;
    CU_CHECK(driver, cuDeviceGetCount, &count);
    for (int i = 0; i < count; ++i)
      result[wire::kDevices].push_back(describeDevice(queryDevice(driver, i)));
    if (count == 0)
      throw RunnerError(kExitCuda, "no CUDA device");
    result[wire::kGpu] = true;
    result[wire::kArch] = result[wire::kDevices][0][wire::kArch];
  } catch (const RunnerError &error) {
    result[wire::kGpu] = false;
    result[wire::kError] = error.what();
  }
  return result;
}

/// Writes buffer `buffer` to OUT/<name>.npy and returns the path written.
std::string writeBuffer(const Options &options, const BufferSpec &buffer,
                        const std::vector<uint8_t> &bytes) {
  fs::path path = fs::absolute(options.out / (buffer.name + ".npy"));
  writeNpy(path, getInfo(buffer.dtype).npyDescr, buffer.shape, bytes.data(),
           bytes.size());
  return path.string();
}

/// Runs the bundle and returns the summary. Throws RunnerError; a violated
/// check (guards, inputs) is returned as status "error" with outputs written.
json runBundle(const Options &options, ExitCode &exitCode) {
  Plan plan = loadPlan(options.bundle);
  json summary = {{"status", "ok"}, {"bundle", fs::absolute(plan.bundle).string()}};
  json outputs = json::object(), inputs = json::object(), buffers = json::object();
  std::vector<std::string> bf16Names;

  // Host data first: a bad input file fails before the GPU is touched.
  std::vector<std::vector<uint8_t>> hostInputs(plan.buffers.size());
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferSpec &buffer = plan.buffers[i];
    buffers[buffer.name] = {{"role", getRoleName(buffer.role)},
                            {"dtype", getInfo(buffer.dtype).name},
                            {"npy_descr", getInfo(buffer.dtype).npyDescr},
                            {"shape", buffer.shape}};
    if (buffer.dtype == DType::BF16 && buffer.isWrittenOut())
      bf16Names.push_back(buffer.name);
    if (!buffer.isFilled())
      continue;
    if (!options.inputs.empty()) {
      fs::path path = options.inputs / (buffer.name + ".npy");
      if (!fs::exists(path))
        throw RunnerError(kExitUsage, "input file '" + path.string() +
                                          "' for buffer '" + buffer.name +
                                          "' not found");
      hostInputs[i] = readInput(buffer, path);
      inputs[buffer.name] = {{"path", fs::absolute(path).string()}, {"source", "file"}};
    } else {
      hostInputs[i] = generateInput(buffer, options.seed, i);
    }
  }

  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec)
    throw RunnerError(kExitIo, "cannot create output directory '" +
                                   options.out.string() + "': " + ec.message());
  if (options.inputs.empty()) {
    summary["seed"] = options.seed;
    for (size_t i = 0; i < plan.buffers.size(); ++i)
      if (plan.buffers[i].isFilled())
        inputs[plan.buffers[i].name] = {
            {"path", writeBuffer(options, plan.buffers[i], hostInputs[i])},
            {"source", "generated"}};
  }

  Driver driver;
  PlanRunner runner(driver, plan, options.device);
  const DeviceInfo &device = runner.getDevice();
  summary["device"] = describeDevice(device);
  // An arch-specific plan (sm_90a) runs on its chip (sm_90).
  std::string planChip = plan.chip;
  if (planChip.size() > 5 && planChip.back() == 'a')
    planChip.pop_back();
  if (!planChip.empty() && planChip != device.arch)
    summary["warnings"].push_back("the plan is for " + plan.chip +
                                  ", the device is " + device.arch);

  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferSpec &buffer = plan.buffers[i];
    if (buffer.isFilled())
      runner.upload(i, hostInputs[i]);
    else if (buffer.role == Role::Constant)
      runner.upload(i, buffer.data);
    else // 0xFF bytes are NaN for every float type; temps start at zero.
      runner.fill(i, buffer.role == Role::Output ? 0xFF : 0x00);
  }
  runner.runChecked();

  std::vector<std::string> violations;
  for (const std::string &name : runner.findGuardViolations())
    violations.push_back("wrote outside buffer " + name);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferSpec &buffer = plan.buffers[i];
    if (buffer.role == Role::Input && runner.download(i) != hostInputs[i])
      violations.push_back("wrote into input buffer '" + buffer.name + "'");
    if (buffer.role == Role::Constant && runner.download(i) != buffer.data)
      violations.push_back("wrote into constant buffer '" + buffer.name + "'");
    if (buffer.role == Role::Output || buffer.role == Role::InOut)
      outputs[buffer.name] = writeBuffer(options, buffer, runner.download(i));
  }

  summary["outputs"] = outputs;
  summary["inputs"] = inputs;
  summary["buffers"] = buffers;
  if (!bf16Names.empty()) {
    summary["bf16_as_u16"] = bf16Names;
    summary["notes"].push_back("bf16 buffers are stored as '<u2' .npy files "
                               "holding the raw bf16 bits");
  }
  summary["checks"] = {{"guards_intact", true}, {"inputs_unchanged", true}};
  for (const std::string &violation : violations)
    summary["checks"][violation.rfind("wrote outside", 0) == 0
                          ? "guards_intact"
                          : "inputs_unchanged"] = false;

  if (!violations.empty()) {
    std::string message = "the plan ";
    for (size_t i = 0; i < violations.size(); ++i)
      message += (i ? "; " : "") + violations[i];
    summary["status"] = "error";
    summary["error"] = message;
    exitCode = kExitChecks;
    return summary;
  }

  if (options.time) {
    TimingStats stats = runner.time(options.warmup, options.runs);
    summary["time"] = {{"median_us", stats.medianUs}, {"min_us", stats.minUs},
                       {"max_us", stats.maxUs},       {"p10_us", stats.p10Us},
                       {"p90_us", stats.p90Us},       {"mean_us", stats.meanUs},
                       {"runs", stats.runs},          {"warmup", options.warmup}};
  }
  return summary;
}

/// The human table for --verify, on stderr.
void printVerifySummary(const json &summary) {
  std::cerr << "cuda-agent-run: verified against "
            << summary[wire::kReference][wire::kBundle].get<std::string>() << "\n";
  for (const json &entry : summary[wire::kCandidates]) {
    std::string name = fs::path(entry[wire::kBundle].get<std::string>()).filename();
    std::cerr << "  " << std::left << std::setw(24) << name << " "
              << std::setw(5) << entry[wire::kVerify].get<std::string>() << " "
              << std::setw(10) << entry[wire::kDecision].get<std::string>();
    if (entry[wire::kSpeedup].is_number())
      std::cerr << " x" << std::setprecision(3) << entry[wire::kSpeedup].get<double>()
                << " (" << entry[wire::kRefUs].get<double>() << " -> "
                << entry[wire::kCandUs].get<double>() << " us)";
    if (!entry[wire::kReason].get<std::string>().empty())
      std::cerr << " " << entry[wire::kReason].get<std::string>();
    std::cerr << "\n";
  }
}

void printHumanSummary(const json &summary) {
  std::cerr << "cuda-agent-run: ran on " << summary["device"]["name"].get<std::string>()
            << " (" << summary["device"]["arch"].get<std::string>() << ")\n";
  for (auto &[name, path] : summary["outputs"].items())
    std::cerr << "  " << name << " -> " << path.get<std::string>() << "\n";
  if (summary.contains("time"))
    std::cerr << "  time: median " << summary["time"]["median_us"].get<double>()
              << " us (p10 " << summary["time"]["p10_us"].get<double>() << ", p90 "
              << summary["time"]["p90_us"].get<double>() << ", "
              << summary["time"]["runs"].get<int>() << " runs)\n";
  if (summary.contains("warnings"))
    for (const json &warning : summary["warnings"])
      std::cerr << "  warning: " << warning.get<std::string>() << "\n";
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  try {
    options = parseOptions(argc, argv);
    if (options.mode == Mode::Probe) {
      std::cout << probe().dump() << std::endl;
      return kExitOk;
    }
    if (options.mode == Mode::VerifyOne) {
      std::cout << verifyOne(options.bundles[0], options.bundles[1], options.verify)
                       .dump()
                << std::endl;
      // Skip teardown: the candidate may have left the context broken.
      std::_Exit(kExitOk);
    }
    if (options.mode == Mode::Jobs) {
      JobsFile jobs = loadJobs(options.jobs); // before the GPU: usage errors first
      json device = probe();
      if (!device[wire::kGpu].get<bool>())
        throw RunnerError(kExitCuda, "--jobs needs a GPU: " +
                                         device.value(wire::kError, std::string()));
      if (size_t(options.device) >= device[wire::kDevices].size())
        throw RunnerError(kExitCuda, "--device " + std::to_string(options.device) +
                                         ": no such device");
      json summary = runJobs(jobs, device[wire::kDevices][options.device],
                             options.verify, verifyBundles);
      std::cout << summary.dump() << std::endl;
      return kExitOk;
    }
    if (options.mode == Mode::Verify) {
      ExitCode exitCode = kExitOk;
      json summary = verifyBundles(
          options.bundles[0],
          std::vector<fs::path>(options.bundles.begin() + 1, options.bundles.end()),
          options.verify, exitCode);
      std::cout << summary.dump() << std::endl;
      if (summary.contains(wire::kError))
        std::cerr << "cuda-agent-run: error: " << summary[wire::kError].get<std::string>()
                  << "\n";
      if (!options.jsonOnly && summary.contains(wire::kCandidates))
        printVerifySummary(summary);
      return exitCode;
    }
    ExitCode exitCode = kExitOk;
    json summary = runBundle(options, exitCode);
    std::cout << summary.dump() << std::endl;
    if (exitCode != kExitOk)
      std::cerr << "cuda-agent-run: error: "
                << summary["error"].get<std::string>() << "\n";
    else if (!options.jsonOnly)
      printHumanSummary(summary);
    return exitCode;
  } catch (const RunnerError &error) {
    std::cout << json{{wire::kStatus, wire::kStatusError},
                      {wire::kError, error.what()},
                      {wire::kExitCode, int(error.exitCode())}}
                     .dump()
              << std::endl;
    std::cerr << "cuda-agent-run: error: " << error.what() << "\n";
    return error.exitCode();
  } catch (const std::exception &error) {
    // Filesystem or allocation failures that escaped a more specific check.
    std::cout << json{{wire::kStatus, wire::kStatusError},
                      {wire::kError, error.what()},
                      {wire::kExitCode, int(kExitIo)}}
                     .dump()
              << std::endl;
    std::cerr << "cuda-agent-run: error: " << error.what() << "\n";
    return kExitIo;
  }
}
