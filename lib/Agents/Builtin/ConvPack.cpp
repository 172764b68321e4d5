//===- ConvPack.cpp - The im2col matrix packed into the workspace --------===//
//
// The packed convolution's operands (Conv.cpp, writeConvPacked): a pack
// kernel writes the input's im2col rows and the filter's columns into the
// workspace as dense rows of K padded to whole steps, 16-byte aligned, each
// element read as the element gather reads it (through pads and
// producers); the TF32 mainloop then copies both 16 bytes at a time
// without bounds.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "ElementEvaluator.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

FailureOr<std::string> cuda_agent::builtin::writePackRows(
    const LinalgRegion &region, const ConvProduct &c, bool isA, int64_t first,
    int64_t rows, int64_t kp, int64_t at, int64_t skip, unsigned &counter,
    std::string &why) {
  std::string body;
  FailureOr<SmallVector<std::string>> index =
      tileElementIndex(c, isA, body, why);
  if (failed(index))
    return failure();
  StatementWriter writer(body, counter);
  ElementEvaluator eval(region, writer);
  FailureOr<std::string> value =
      eval.valueAt(isA ? c.input : c.filter, *index, why);
  if (failed(value))
    return failure();
  int64_t quads = kp / 4;
  std::string text = llvm::formatv(
      "  if (e >= {0}LL && e < {1}LL) {{\n"
      "    const long long line = (e - {0}LL) / {2}, k4 = (e - {0}LL) % {2} "
      "* 4;\n"
      "    const long long r = {3}LL + line;\n"
      "    float v[4];\n"
      "#pragma unroll\n"
      "    for (int q = 0; q < 4; ++q) {{\n"
      "      const long long k = k4 + q;\n"
      "      float x = 0.0f;\n"
      "      if (r < {4}LL && k < {5}LL) {{\n",
      skip, skip + rows * quads, quads, first, isA ? c.M : c.N, c.K);
  text +=
      body + "        x = " + *value + ";\n      }\n      v[q] = x;\n    }\n";
  text +=
      llvm::formatv("    *reinterpret_cast<float4 *>(reinterpret_cast<float "
                    "*>(workspace) + {0}LL + line * {1} + k4) = "
                    "make_float4(v[0], v[1], v[2], v[3]);\n  }\n",
                    at, kp);
  return text;
}

Tf32TileLoader cuda_agent::builtin::packedLoader(const Tf32Tiling &t, bool isA,
                                                 int64_t kp, int64_t at,
                                                 std::string row) {
  Tf32TileLoader loader;
  loader.kMajor = true;
  int rows = isA ? t.bm : t.bn, threads = t.threads();
  int ld = tf32TileStride(t, isA, /*kMajor=*/true);
  loader.writeLoad = [=](StringRef tile, StringRef k0) {
    std::string text = tf32ChunkLoop(rows * t.bk / 4, threads);
    text += llvm::formatv(
        "          const int rr = e / {0}, kk = (e % {0}) * 4;\n"
        "          ca_cp_async16({1} + rr * {2} + kk, reinterpret_cast<const "
        "float *>(workspace) + {3}LL + ({4} + rr) * {5}LL + {6} + kk, "
        "true);\n"
        "        }\n",
        t.bk / 4, tile, ld, at, row, kp, k0);
    return text;
  };
  return loader;
}
