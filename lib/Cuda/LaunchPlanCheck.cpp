//===- LaunchPlanCheck.cpp - Validation of a candidate's launch plan -*- C++ -*-===//
//
// Checks a candidate's launch plan against what NVRTC produced, field by
// field, before the runner sees it. The limits are CUDA's (grid, block,
// threads per block, dynamic shared memory per arch) plus the project's own
// cap on the workspace. Like the runner's plan.json check, every message says
// where it failed ("launch 1 (k1): ...").
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Cuda/LaunchPlanCheck.h"

#include "PtxEntries.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <array>
#include <optional>

using namespace mlir::cuda_agent;
using llvm::Error;
using llvm::StringRef;
namespace json = llvm::json;

namespace {

constexpr std::array<int64_t, 3> kGridLimits = {0x7fffffff, 65535, 65535};
constexpr std::array<int64_t, 3> kBlockLimits = {1024, 1024, 64};
constexpr int64_t kMaxThreadsPerBlock = 1024;
/// The most blocks of a thread-block cluster: CUDA's portable size. sm_90
/// places 16 only for a kernel whose launcher opts in, which MLIR's
/// gpu.launch_func, IREE's launcher and the runner do not, so a spliced or
/// exported kernel with a larger cluster would fail to launch.
constexpr int64_t kMaxClusterBlocks = 8;

/// Reads the fields of one JSON object, failing with `where` in front.
class FieldReader {
public:
  FieldReader(const json::Object &object, std::string where)
      : object(object), where(std::move(where)) {}

  Error fail(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch plan: " + where + ": " + message);
  }

  /// Rejects keys outside `known`.
  Error checkKeys(llvm::ArrayRef<StringRef> known) const {
    for (const auto &kv : object)
      if (!llvm::is_contained(known, StringRef(kv.first)))
        return fail("unknown key '" + StringRef(kv.first) + "' (expected " +
                    llvm::join(known, ", ") + ")");
    return Error::success();
  }

  /// Reads an optional integer in [0, max]; `value` keeps its default when
  /// the key is absent.
  Error getOptionalInt(StringRef key, int64_t max, int64_t &value) const {
    const json::Value *field = object.get(key);
    if (!field)
      return Error::success();
    std::optional<int64_t> number = field->getAsInteger();
    if (!number)
      return fail("'" + key + "' must be an integer");
    if (*number < 0 || *number > max)
      return fail("'" + key + "' = " + llvm::Twine(*number) +
                  " is out of range [0, " + llvm::Twine(max) + "]");
    value = *number;
    return Error::success();
  }

  /// Reads 1 to 3 dims (missing trailing dims are 1), each in [1, limit].
  Error getDims(StringRef key, const std::array<int64_t, 3> &limits,
                std::array<int64_t, 3> &dims) const {
    const json::Value *field = object.get(key);
    if (!field)
      return fail("missing '" + key + "'");
    const json::Array *array = field->getAsArray();
    if (!array || array->empty() || array->size() > 3)
      return fail("'" + key + "' must be an array of 1 to 3 integers");
    dims = {1, 1, 1};
    for (size_t i = 0; i < array->size(); ++i) {
      std::optional<int64_t> dim = (*array)[i].getAsInteger();
      if (!dim)
        return fail("'" + key + "' must be an array of 1 to 3 integers");
      if (*dim < 1 || *dim > limits[i])
        return fail(key + "[" + llvm::Twine(i) + "] = " + llvm::Twine(*dim) +
                    " is out of range [1, " + llvm::Twine(limits[i]) + "]");
      dims[i] = *dim;
    }
    return Error::success();
  }

  void rename(std::string newWhere) { where = std::move(newWhere); }

private:
  const json::Object &object;
  std::string where;
};

/// Checks one kernel's parameters against the candidate ABI: `numBuffers`
/// pointers, plus an optional workspace pointer when there is a workspace.
Error checkParams(const FieldReader &reader, const PtxEntry &entry,
                  unsigned numBuffers, bool hasWorkspace) {
  size_t count = entry.params.size();
  bool countOk = count == numBuffers || (hasWorkspace && count == numBuffers + 1);
  if (!countOk)
    return reader.fail(
        "kernel takes " + llvm::Twine(count) + " parameters, expected " +
        llvm::Twine(numBuffers) + " buffer pointers" +
        (hasWorkspace ? " (plus an optional workspace pointer)" : "") +
        "; kernels take only pointers, in region order");
  for (size_t i = 0; i < count; ++i)
    if (!isPointerSizedParam(entry.params[i]))
      return reader.fail("parameter " + llvm::Twine(i) + " is '" +
                         entry.params[i] +
                         "', not a pointer; kernels take only pointers "
                         "(shapes are compile-time constants)");
  return Error::success();
}

} // namespace

int64_t mlir::cuda_agent::getMaxSharedBytes(StringRef arch) {
  // Opt-in maximum of dynamic shared memory per block, from the CUDA
  // programming guide's table of compute capabilities.
  StringRef digits = arch;
  if (!digits.consume_front("sm_"))
    return 48 * 1024;
  digits = digits.rtrim("af"); // sm_90a, sm_100f: same limits.
  unsigned version = 0;
  if (digits.getAsInteger(10, version))
    return 48 * 1024;
  switch (version) {
  case 75:
    return 64 * 1024;
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
  case 120:
    return 99 * 1024;
  case 90:
  case 100:
    return 227 * 1024;
  default:
    return 48 * 1024;
  }
}

llvm::Expected<std::string>
mlir::cuda_agent::getCandidateArch(StringRef planText, StringRef chip) {
  llvm::Expected<json::Value> plan = json::parse(planText);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return chip.str();
  }
  const json::Object *root = plan->getAsObject();
  const json::Value *arch = root ? root->get(StringRef(wire::kArch)) : nullptr;
  if (!arch)
    return chip.str();
  std::string specific = chip.str() + "a";
  if (arch->getAsString() == std::optional<StringRef>(specific) ||
      arch->getAsString() == std::optional<StringRef>(chip))
    return std::string(*arch->getAsString());
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "launch plan: '%s' may only be '%s' (the arch-specific form of the "
      "target %s)",
      wire::kArch, specific.c_str(), chip.str().c_str());
}

Error mlir::cuda_agent::validateLaunchPlan(const json::Value &plan,
                                           const CompiledKernel &kernel,
                                           unsigned numBuffers) {
  const json::Object *root = plan.getAsObject();
  if (!root)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch plan: must be a JSON object");
  FieldReader top(*root, "top level");
  if (Error err = top.checkKeys({"launches", "workspace_bytes", StringRef(wire::kArch)}))
    return err;
  if (const json::Value *arch = root->get(StringRef(wire::kArch)))
    if (arch->getAsString() != std::optional<StringRef>(kernel.arch))
      return top.fail("'" + StringRef(wire::kArch) + "' must be the arch the kernel "
                      "was compiled for, '" + kernel.arch + "'");
  int64_t workspaceBytes = 0;
  if (Error err = top.getOptionalInt("workspace_bytes", kMaxWorkspaceBytes,
                                     workspaceBytes))
    return err;
  const json::Value *launchesValue = root->get("launches");
  if (!launchesValue)
    return top.fail("missing 'launches'");
  const json::Array *launches = launchesValue->getAsArray();
  if (!launches)
    return top.fail("'launches' must be an array");
  if (launches->empty())
    return top.fail("'launches' is empty: a plan needs at least one launch");

  std::vector<PtxEntry> entries = parsePtxEntries(kernel.ptx);
  int64_t maxShared = getMaxSharedBytes(kernel.arch);
  for (size_t i = 0; i < launches->size(); ++i) {
    std::string where = "launch " + std::to_string(i);
    const json::Object *launch = (*launches)[i].getAsObject();
    if (!launch)
      return FieldReader(*root, where).fail("must be a JSON object");
    FieldReader reader(*launch, where);
    std::optional<StringRef> name = launch->getString("kernel");
    if (!name || name->empty())
      return reader.fail("'kernel' must be a non-empty string");
    reader.rename(where + " (" + name->str() + ")");
    if (Error err =
            reader.checkKeys({"kernel", "grid", "block", "shared_bytes"}))
      return err;
    if (!llvm::is_contained(kernel.entryPoints, *name)) {
      bool mangled = llvm::any_of(kernel.entryPoints, [](const std::string &e) {
        return StringRef(e).starts_with("_Z");
      });
      return reader.fail(
          "kernel '" + *name + "' is not an entry point of the candidate " +
          "(entry points: " +
          (kernel.entryPoints.empty() ? std::string("none")
                                      : llvm::join(kernel.entryPoints, ", ")) +
          ")" +
          (mangled ? "; declare kernels extern \"C\" so that their names "
                     "are not mangled"
                   : ""));
    }
    std::array<int64_t, 3> grid, block;
    if (Error err = reader.getDims("grid", kGridLimits, grid))
      return err;
    if (Error err = reader.getDims("block", kBlockLimits, block))
      return err;
    int64_t threads = block[0] * block[1] * block[2];
    if (threads > kMaxThreadsPerBlock)
      return reader.fail("block has " + llvm::Twine(threads) +
                         " threads, more than the " +
                         llvm::Twine(kMaxThreadsPerBlock) + " allowed");
    int64_t sharedBytes = 0;
    if (Error err =
            reader.getOptionalInt("shared_bytes", maxShared, sharedBytes))
      return err;
    const PtxEntry *entry = nullptr;
    for (const PtxEntry &candidate : entries)
      if (candidate.name == *name)
        entry = &candidate;
    if (!entry)
      return reader.fail("kernel '" + *name + "' has no .entry in the PTX");
    // A kernel compiled with a cluster (`__cluster_dims__`) launches whole
    // clusters only.
    int64_t clusterBlocks =
        entry->cluster[0] * entry->cluster[1] * entry->cluster[2];
    if (clusterBlocks > kMaxClusterBlocks)
      return reader.fail("kernel '" + *name + "' has clusters of " +
                         llvm::Twine(clusterBlocks) + " blocks, more than " +
                         llvm::Twine(kMaxClusterBlocks) +
                         " (CUDA's portable cluster size)");
    for (int d = 0; d < 3; ++d)
      if (entry->cluster[d] < 1 || grid[d] % entry->cluster[d] != 0)
        return reader.fail("grid[" + llvm::Twine(d) + "] = " +
                           llvm::Twine(grid[d]) +
                           " is not a multiple of the kernel's cluster size " +
                           llvm::Twine(entry->cluster[d]) +
                           " in that dimension (.reqnctapercluster)");
    if (Error err = checkParams(reader, *entry, numBuffers, workspaceBytes > 0))
      return err;
  }
  return Error::success();
}
