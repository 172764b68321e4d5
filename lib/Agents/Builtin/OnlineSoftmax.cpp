//===- OnlineSoftmax.cpp - A softmax's max and sum in one pass ------------===//
//
// Online softmax (Milakov and Gimelshein, 2018): a running max m and the sum
// s of exp(x - m), merged across threads by rescaling to the larger m. An
// element equal to m adds 1 without exp, so that -inf elements ahead of the
// first finite one add exp(-inf) = 0 once m grows, not NaN. A row streamed
// from memory is then read twice instead of three times; a split row merges
// its chunks' (m, s) pairs the same way, and a cluster row its blocks'.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Rows.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

LogicalResult RowKernelWriter::writeOnlineSoftmax(linalg::GenericOp max,
                                                  linalg::GenericOp sum,
                                                  const Combiner &maxOf,
                                                  StringRef m, unsigned n) {
  std::string s = "sum" + std::to_string(n);
  // Merging (m, s) with (mo, so): both sums rescaled to max(m, mo); equal
  // maxima (-inf included) keep their sums as they are.
  auto merge = [&](StringRef mo, StringRef so) {
    return llvm::formatv("    {{\n"
                         "      const float mn = {0};\n"
                         "      {1} = ({2} == mn ? {1} : {1} * expf({2} - mn)) "
                         "+ ({3} == mn ? {4} : {4} * expf({3} - mn));\n"
                         "      {2} = mn;\n"
                         "    }\n",
                         maxOf.combine(m, mo), s, m, mo, so)
        .str();
  };
  // Across a warp by shuffles (the block's lanes, then the finish
  // kernel's chunks of a row).
  std::string warpMerge =
      "  for (int o = 16; o > 0; o /= 2) {\n" +
      llvm::formatv("    const float mo = __shfl_xor_sync(0xffffffffu, "
                    "{0}, o), so = __shfl_xor_sync(0xffffffffu, {1}, o);\n",
                    m, s)
          .str() +
      merge("mo", "so") + "  }\n";
  FailureOr<bool> stagedPass = false;
  if (staged && exchange) {
    stagedPass = writeStagedSoftmax(max, sum, maxOf, m, s, n);
    if (failed(stagedPass))
      return failure();
  }
  if (!*stagedPass) {
    src += llvm::formatv("  float {0} = {1}, {2} = 0.0f;\n", m, maxOf.identity, s)
               .str();
    Value x = max.getDpsInputs()[0];
    FailureOr<std::string> loop = writePass(
        [&](ElementEvaluator &eval, int, ArrayRef<std::string> idx,
            std::string &why) -> LogicalResult {
          FailureOr<std::string> e = eval.valueAt(x, idx, why);
          if (failed(e))
            return failure();
          eval.getWriter().append(
              llvm::formatv("    if ({0} > {1}) {{\n"
                            "      {2} = {2} * expf({1} - {0}) + 1.0f;\n"
                            "      {1} = {0};\n"
                            "    } else {{\n"
                            "      {2} += {0} == {1} ? 1.0f : expf({0} - {1});\n"
                            "    }\n",
                            *e, m, s)
                  .str());
          return success();
        },
        known);
    if (failed(loop))
      return failure();
    src += *loop;
    src += warpMerge;
    if (group > 32)
      src += llvm::formatv("  __shared__ float part{0}[32], parts{0}[32];\n"
                           "  if (t % 32 == 0) {{\n"
                           "    part{0}[t / 32] = {1};\n"
                           "    parts{0}[t / 32] = {2};\n"
                           "  }\n"
                           "  __syncthreads();\n"
                           "  {1} = part{0}[0];\n"
                           "  {2} = parts{0}[0];\n"
                           "  for (int w = 1; w < {3}; ++w) {{\n",
                           n, m, s, group / 32)
                 .str() +
             merge("part" + std::to_string(n) + "[w]",
                   "parts" + std::to_string(n) + "[w]") +
             "  }\n";
  }
  if (cluster > 1)
    writeClusterCombine("float", {m.str(), s},
                        [&](ArrayRef<std::string>, ArrayRef<std::string> other) {
                          return merge(other[0], other[1]);
                        });
  if (split) {
    // Each chunk's (m, s) into the workspace; the finish kernel merges a
    // row's chunks in order, then across its warp.
    std::string ms = "reinterpret_cast<float *>(workspace)";
    std::string at = "[row * " + std::to_string(splits) + " + blockIdx.x]";
    std::string sums = std::to_string(rs.rows * splits);
    partialBytes = 2 * rs.rows * splits * 4;
    beginFinish("    " + ms + at + " = " + m.str() + ";\n    " + ms + "[" +
                sums + " + row * " + std::to_string(splits) +
                " + blockIdx.x] = " + s + ";\n");
    std::string q = "[row * " + std::to_string(splits) + " + q]";
    src += llvm::formatv("  float {0} = {1}, {2} = 0.0f;\n"
                         "  for (int q = lane; q < {3}; q += 32) {{\n",
                         m, maxOf.identity, s, splits)
               .str() +
           merge(ms + q, ms + "[" + sums + " + row * " +
                             std::to_string(splits) + " + q]") +
           "  }\n" + warpMerge;
  }
  // The fills enter once: the max's first, the sum rescaled to it.
  std::string maxResult = "red" + std::to_string(n);
  std::string sumResult = "red" + std::to_string(n) + "s";
  std::string maxInit = region.splats.lookup(max.getDpsInitOperand(0)->get());
  std::string sumInit = region.splats.lookup(sum.getDpsInitOperand(0)->get());
  src += llvm::formatv("  const float {0} = {1};\n"
                       "  const float {2} = {3} + ({4} == {0} ? {5} : {5} * "
                       "expf({4} - {0}));\n",
                       maxResult, maxOf.combine(maxInit, m), sumResult, sumInit,
                       m, s)
             .str();
  known[max.getResult(0)] = maxResult;
  known[sum.getResult(0)] = sumResult;
  if (*stagedPass)
    // The chunk holds exp(x - the block's max): times exp(the block's max
    // - the row's), it is exp(x - the row's max) (writeStagedSoftmax).
    src += llvm::formatv("  const float fac{0} = {1}loc == {2} ? 1.0f : "
                         "expf({1}loc - {2});\n",
                         n, m, maxResult)
               .str();
  return success();
}

FailureOr<bool> RowKernelWriter::writeStagedSoftmax(linalg::GenericOp max,
                                                    linalg::GenericOp sum,
                                                    const Combiner &maxOf,
                                                    StringRef m, StringRef s,
                                                    unsigned n) {
  // x must be a staged input that only the max and the exponentials read
  // (the exponentials are written over it).
  Value x = max.getDpsInputs()[0];
  Value exps = sum.getDpsInputs()[0];
  auto *input = llvm::find(region.inputs, x);
  if (input == region.inputs.end())
    return false;
  auto array = stagedInputs.find(unsigned(input - region.inputs.begin()));
  if (array == stagedInputs.end() || !elementOf(exps).isF32())
    return false;
  for (Operation *user : x.getUsers())
    if (user != max && user != exps.getDefiningOp() &&
        llvm::is_contained(region.generics, user))
      return false;
  // The block's max, then exp(x - max) over the chunk and its sum (an
  // element equal to the max is 1, as in the online pass), each across the
  // block; then the pair is exchanged as the online pass's is.
  std::string vec = llvm::formatv("ca_vec<float, {0}>", vector).str();
  std::string at = llvm::formatv("reinterpret_cast<{0} *>({1} + (c - begin))",
                                 vec, array->second)
                       .str();
  std::string maxLanes, expLanes;
  for (int l = 0; l < vector; ++l) {
    std::string lane = "v.v[" + std::to_string(l) + "]";
    maxLanes += "    " + m.str() + " = " + maxOf.combine(m, lane) + ";\n";
    expLanes += llvm::formatv("    {0} = {0} == {1} ? 1.0f : expf({0} - {1});\n"
                              "    {2} += {0};\n",
                              lane, m, s)
                    .str();
  }
  // The sum's combiner (findExpSum checked that it adds).
  Block &sumBody = sum.getRegion().front();
  std::string why;
  FailureOr<Combiner> addOf = findCombiner(
      sumBody, sumBody.getArgument(sum.getNumDpsInputs()), why);
  if (failed(addOf))
    return false;
  src += llvm::formatv("  float {0} = {1};\n", m, maxOf.identity).str() +
         stepLoop + "    const " + vec + " v = *" + at + ";\n" + maxLanes +
         "  }\n";
  src += combineInGroup({maxOf, "float", m.str()});
  src += llvm::formatv("  float {0} = 0.0f;\n", s).str() + stepLoop + "    " +
         vec + " v = *" + at + ";\n" + expLanes + "    *" + at + " = v;\n  }\n";
  src += combineInGroup({*addOf, "float", s.str()});
  src += llvm::formatv("  const float {0}loc = {0};\n", m).str();
  stagedTensors[exps] = {array->second, "fac" + std::to_string(n)};
  return true;
}
