//===- Plan.cpp - Launch plan parsing ---------------------------*- C++ -*-===//
//
// Parses plan.json with nlohmann-json and validates it field by field. Each
// check reports where it failed ("buffer 1 (res0)", "launch 0 (main_kernel)")
// so that a generator bug is found from the message alone.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include "Error.h"

#include "cuda-agent/Runner/Protocol.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <limits>
#include <set>

using namespace mlir::cuda_agent;
using nlohmann::json;
namespace fs = std::filesystem;

const char *mlir::cuda_agent::getRoleName(Role role) {
  switch (role) {
  case Role::Input:
    return "input";
  case Role::Output:
    return "output";
  case Role::InOut:
    return "inout";
  case Role::Temp:
    return "temp";
  case Role::Constant:
    return "constant";
  }
  return "?";
}

std::string mlir::cuda_agent::formatDims(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

uint64_t BufferSpec::numElements() const {
  uint64_t n = 1;
  for (int64_t dim : shape)
    n *= static_cast<uint64_t>(dim);
  return n;
}

namespace {

/// Typed field access on one JSON object, failing with the location `where`.
class FieldReader {
public:
  FieldReader(const json &object, std::string where)
      : object(object), where(std::move(where)) {
    if (!object.is_object())
      fail("must be a JSON object");
  }

  [[noreturn]] void fail(const std::string &message) const {
    throw RunnerError(kExitUsage, "plan.json: " + where + ": " + message);
  }

  void rename(std::string newWhere) { where = std::move(newWhere); }

  const json *find(const char *key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  const json &get(const char *key) const {
    if (const json *value = find(key))
      return *value;
    fail(std::string("missing field '") + key + "'");
  }

  std::string getString(const char *key) const {
    const json &value = get(key);
    if (!value.is_string())
      fail(std::string("field '") + key + "' must be a string");
    return value.get<std::string>();
  }

  int64_t getInt(const char *key) const { return toInt(get(key), key); }

  std::vector<int64_t> getInts(const char *key) const {
    const json &value = get(key);
    if (!value.is_array())
      fail(std::string("field '") + key + "' must be an array of integers");
    std::vector<int64_t> result;
    for (const json &element : value)
      result.push_back(toInt(element, key));
    return result;
  }

  const json &getArray(const char *key) const {
    const json &value = get(key);
    if (!value.is_array())
      fail(std::string("field '") + key + "' must be an array");
    return value;
  }

private:
  int64_t toInt(const json &value, const char *key) const {
    if (!value.is_number_integer())
      fail(std::string("field '") + key + "' must hold integers, got " +
           value.dump());
    return value.get<int64_t>();
  }

  const json &object;
  std::string where;
};

Role parseRole(const FieldReader &reader) {
  std::string name = reader.getString("role");
  for (Role role : {Role::Input, Role::Output, Role::InOut, Role::Temp, Role::Constant})
    if (name == getRoleName(role))
      return role;
  reader.fail("unknown role '" + name +
              "' (expected input, output, inout, temp or constant)");
}

std::vector<char> readObject(const fs::path &path, const FieldReader &reader);

BufferSpec parseBuffer(const json &object, size_t index, const fs::path &bundle) {
  FieldReader reader(object, "buffer " + std::to_string(index));
  BufferSpec buffer;
  buffer.name = reader.getString("name");
  reader.rename("buffer " + std::to_string(index) + " (" + buffer.name + ")");
  if (buffer.name.empty() || buffer.name.find('/') != std::string::npos)
    reader.fail("a buffer name must be non-empty and contain no '/'");
  buffer.shape = reader.getInts("shape");
  for (int64_t dim : buffer.shape)
    if (dim < 0)
      reader.fail("negative dimension in shape");
  std::string dtype = reader.getString("dtype");
  std::optional<DType> parsed = parseDType(dtype);
  if (!parsed)
    reader.fail("unknown dtype '" + dtype +
                "' (expected f32, f16, bf16, f64, i1, i8, i16, i32, i64 or u8)");
  buffer.dtype = *parsed;
  buffer.role = parseRole(reader);
  if (buffer.role == Role::Constant) {
    std::string file = reader.getString("data");
    if (file.empty() || file.find('/') != std::string::npos)
      reader.fail("a constant's data file must be a file name inside the bundle");
    std::vector<char> bytes = readObject(bundle / file, reader);
    if (bytes.size() != buffer.numBytes())
      reader.fail("data file '" + file + "' holds " + std::to_string(bytes.size()) +
                  " bytes, the buffer " + std::to_string(buffer.numBytes()));
    buffer.data.assign(bytes.begin(), bytes.end());
  }
  return buffer;
}

/// Reads a 1- to 3-element dim list (missing trailing dims are 1), checking
/// each dim against `limits`.
std::array<unsigned, 3> parseDims(const FieldReader &reader, const char *key,
                                  const std::array<int64_t, 3> &limits) {
  std::vector<int64_t> dims = reader.getInts(key);
  if (dims.empty() || dims.size() > 3)
    reader.fail(std::string("'") + key + "' must have 1 to 3 dims");
  std::array<unsigned, 3> result = {1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1 || dims[i] > limits[i])
      reader.fail(std::string(key) + "[" + std::to_string(i) + "] = " +
                  std::to_string(dims[i]) + " is out of range [1, " +
                  std::to_string(limits[i]) + "]");
    result[i] = static_cast<unsigned>(dims[i]);
  }
  return result;
}

/// Reads the buffer named by field `key` of `reader`.
size_t lookupBuffer(const FieldReader &reader, const char *key,
                    const std::map<std::string, size_t> &bufferIndex) {
  std::string name = reader.getString(key);
  auto it = bufferIndex.find(name);
  if (it == bufferIndex.end())
    reader.fail(std::string(key) + " names unknown buffer '" + name + "'");
  return it->second;
}

/// Reads a view (role "view"): another name and shape for an earlier
/// buffer, "view_of", with the same dtype and element count. Launches that
/// name the view get that buffer's pointer; returns its index.
size_t parseView(const json &object, size_t index,
                 const std::map<std::string, size_t> &bufferIndex,
                 const std::vector<BufferSpec> &buffers, std::string &name) {
  FieldReader reader(object, "buffer " + std::to_string(index));
  name = reader.getString("name");
  reader.rename("buffer " + std::to_string(index) + " (view " + name + ")");
  size_t base = lookupBuffer(reader, "view_of", bufferIndex);
  BufferSpec shape{name, reader.getInts("shape"), buffers[base].dtype,
                   Role::Temp};
  std::optional<DType> dtype = parseDType(reader.getString("dtype"));
  if (!dtype || *dtype != buffers[base].dtype ||
      shape.numElements() != buffers[base].numElements())
    reader.fail("a view must have the dtype and element count of '" +
                buffers[base].name + "'");
  return base;
}

LaunchSpec parseCopy(const json &object, size_t index,
                     const std::map<std::string, size_t> &bufferIndex,
                     const std::vector<BufferSpec> &buffers) {
  FieldReader reader(object, "launch " + std::to_string(index) + " (copy)");
  LaunchSpec copy;
  copy.isCopy = true;
  copy.kernel = "copy";
  copy.copyFrom = lookupBuffer(reader, "from", bufferIndex);
  copy.copyTo = lookupBuffer(reader, "to", bufferIndex);
  if (buffers[copy.copyFrom].numBytes() != buffers[copy.copyTo].numBytes())
    reader.fail("copies " + std::to_string(buffers[copy.copyFrom].numBytes()) +
                " bytes into a buffer of " +
                std::to_string(buffers[copy.copyTo].numBytes()));
  if (buffers[copy.copyTo].role == Role::Input)
    reader.fail("copies into input '" + buffers[copy.copyTo].name + "'");
  return copy;
}

LaunchSpec parseLaunch(const json &object, size_t index,
                       const std::map<std::string, size_t> &bufferIndex,
                       const std::vector<BufferSpec> &buffers) {
  if (object.is_object() && object.contains("copy"))
    return parseCopy(object["copy"], index, bufferIndex, buffers);
  FieldReader reader(object, "launch " + std::to_string(index));
  LaunchSpec launch;
  launch.kernel = reader.getString("kernel");
  reader.rename("launch " + std::to_string(index) + " (" + launch.kernel + ")");
  launch.object = reader.getString("object");
  launch.grid = parseDims(reader, "grid", {0x7fffffff, 65535, 65535});
  launch.block = parseDims(reader, "block", {1024, 1024, 64});
  uint64_t threads = uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (threads > 1024)
    reader.fail("block has " + std::to_string(threads) +
                " threads, more than the 1024 allowed");
  if (reader.find("shared_bytes")) {
    int64_t shared = reader.getInt("shared_bytes");
    if (shared < 0 || shared > std::numeric_limits<int32_t>::max())
      reader.fail("shared_bytes = " + std::to_string(shared) + " is out of range");
    launch.sharedBytes = static_cast<unsigned>(shared);
  }
  const json &args = reader.getArray("args");
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_string())
      reader.fail("args[" + std::to_string(i) + "] must be a buffer name");
    auto it = bufferIndex.find(args[i].get<std::string>());
    if (it == bufferIndex.end())
      reader.fail("args[" + std::to_string(i) + "] names unknown buffer '" +
                  args[i].get<std::string>() + "'");
    launch.args.push_back(it->second);
  }
  return launch;
}

/// Reads an object file; PTX gets the NUL terminator the driver expects.
std::vector<char> readObject(const fs::path &path, const FieldReader &reader) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    reader.fail("object file '" + path.string() + "' not found");
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    reader.fail("cannot read object file '" + path.string() + "'");
  if (bytes.empty())
    reader.fail("object file '" + path.string() + "' is empty");
  if (path.extension() == ".ptx" && bytes.back() != '\0')
    bytes.push_back('\0');
  return bytes;
}

} // namespace

Plan mlir::cuda_agent::loadPlan(const fs::path &bundle) {
  fs::path planPath = bundle / "plan.json";
  std::ifstream in(planPath);
  if (!in)
    throw RunnerError(kExitUsage, "cannot open '" + planPath.string() + "'");
  return parsePlan(in, bundle);
}

Plan mlir::cuda_agent::parsePlan(std::istream &in, const fs::path &bundle) {
  json root;
  try {
    root = json::parse(in);
  } catch (const json::exception &e) {
    throw RunnerError(kExitUsage, "plan.json: invalid JSON: " + std::string(e.what()));
  }

  Plan plan;
  plan.bundle = bundle;
  FieldReader top(root, "top level");
  plan.version = static_cast<int>(top.getInt("version"));
  if (plan.version != 1)
    top.fail("unsupported version " + std::to_string(plan.version) + " (expected 1)");
  if (top.find("chip"))
    plan.chip = top.getString("chip");

  std::map<std::string, size_t> bufferIndex;
  const json &buffers = top.getArray("buffers");
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].is_object() && buffers[i].contains("role") &&
        buffers[i]["role"] == "view") {
      std::string name;
      size_t base = parseView(buffers[i], i, bufferIndex, plan.buffers, name);
      if (!bufferIndex.emplace(name, base).second)
        throw RunnerError(kExitUsage, "plan.json: buffer " + std::to_string(i) +
                                          ": duplicate buffer name '" + name +
                                          "'");
      continue;
    }
    BufferSpec buffer = parseBuffer(buffers[i], i, bundle);
    if (!bufferIndex.emplace(buffer.name, plan.buffers.size()).second)
      throw RunnerError(kExitUsage, "plan.json: buffer " + std::to_string(i) +
                                        ": duplicate buffer name '" +
                                        buffer.name + "'");
    plan.buffers.push_back(std::move(buffer));
  }

  // A candidate's scratch memory: "workspace_bytes": N adds a temp u8 buffer
  // named "workspace" that launches pass like any other buffer.
  if (top.find("workspace_bytes")) {
    int64_t bytes = top.getInt("workspace_bytes");
    if (bytes < 0)
      top.fail("workspace_bytes = " + std::to_string(bytes) + " is negative");
    if (bytes > 0) {
      if (bufferIndex.count(kWorkspaceName))
        top.fail(std::string("workspace_bytes is set but a buffer named '") +
                 kWorkspaceName + "' already exists");
      bufferIndex.emplace(kWorkspaceName, plan.buffers.size());
      plan.buffers.push_back({kWorkspaceName, {bytes}, DType::U8, Role::Temp});
    }
  }

  // The reduction a reference plan declares (Plan::reductionLength).
  if (const json *reduction = top.find("reduction")) {
    FieldReader reader(*reduction, "reduction");
    plan.reductionLength = reader.getInt("length");
    if (plan.reductionLength < 1)
      reader.fail("length must be at least 1");
    std::optional<DType> accumulator = parseDType(reader.getString("accumulator"));
    if (!accumulator)
      reader.fail("unknown accumulator dtype");
    plan.reductionAccumulator = *accumulator;
  }

  if (top.find(wire::kPrecision)) {
    std::string precision = top.getString(wire::kPrecision);
    if (precision != wire::kPrecisionF32 && precision != wire::kPrecisionTf32)
      top.fail(std::string(wire::kPrecision) + " = '" + precision + "' is not " +
               wire::kPrecisionF32 + " or " + wire::kPrecisionTf32);
    plan.tf32Products = precision == wire::kPrecisionTf32;
  }

  for (auto [key, count] : {std::pair{wire::kFlops, &plan.flops},
                             std::pair{wire::kBytes, &plan.bytes}}) {
    if (!top.find(key))
      continue;
    *count = top.getInt(key);
    if (*count < 0)
      top.fail(std::string(key) + " = " + std::to_string(*count) +
               " is negative");
  }
  if (top.find(kPlanPtxKey))
    plan.ptx = top.getString(kPlanPtxKey);

  const json &launches = top.getArray("launches");
  if (launches.empty())
    top.fail("'launches' is empty");
  for (size_t i = 0; i < launches.size(); ++i) {
    LaunchSpec launch = parseLaunch(launches[i], i, bufferIndex, plan.buffers);
    if (!launch.isCopy && !plan.objects.count(launch.object))
      plan.objects[launch.object] = readObject(
          bundle / launch.object,
          FieldReader(launches[i], "launch " + std::to_string(i) + " (" +
                                       launch.kernel + ")"));
    plan.launches.push_back(std::move(launch));
  }
  return plan;
}

std::string mlir::cuda_agent::findInterfaceMismatch(const Plan &reference,
                                                    const Plan &candidate) {
  auto find = [](const Plan &plan, const std::string &name) -> const BufferSpec * {
    for (const BufferSpec &buffer : plan.buffers)
      if (buffer.name == name)
        return &buffer;
    return nullptr;
  };
  for (const BufferSpec &want : reference.buffers) {
    if (want.role == Role::Temp)
      continue;
    const BufferSpec *have = find(candidate, want.name);
    std::string prefix = "plan mismatch: candidate buffer " + want.name + " has ";
    if (!have)
      return "plan mismatch: candidate lacks buffer " + want.name + " (" +
             getRoleName(want.role) + ") of the reference";
    if (have->role != want.role)
      return prefix + "role " + getRoleName(have->role) + " but reference has " +
             getRoleName(want.role);
    if (have->dtype != want.dtype)
      return prefix + "dtype " + getInfo(have->dtype).name +
             " but reference has " + getInfo(want.dtype).name;
    if (have->shape != want.shape)
      return prefix + "shape " + formatDims(have->shape) + " but reference has " +
             formatDims(want.shape);
  }
  for (const BufferSpec &have : candidate.buffers) {
    const BufferSpec *want = find(reference, have.name);
    if (have.role != Role::Temp && (!want || want->role == Role::Temp))
      return "plan mismatch: candidate has buffer " + have.name + " (" +
             getRoleName(have.role) +
             ") that the reference lacks (only temps may differ)";
  }
  return "";
}
