//===- OperandPack.cpp - Product operands packed into the workspace -------===//
//
// The pack kernel: a 256-thread block reads 32 rows x one 128-byte slice of
// k of one operand into a shared tile (consecutive threads along the
// operand's contiguous dimension) and writes the slice's parts k-major
// (consecutive threads along k). See OperandPack.h.
//
//===----------------------------------------------------------------------===//

#include "OperandPack.h"
#include "KernelText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {
/// Rows of the operand a pack block reads.
constexpr int kPackRows = 32;
constexpr int kPackThreads = 256;
} // namespace

OperandPack cuda_agent::builtin::planPack(const Contraction &c, bool isA,
                                          int rowTile, int elementBytes,
                                          ArrayRef<PackPart> parts,
                                          int64_t offsetBytes) {
  int64_t extent = isA ? c.M : c.N;
  int sliceK = 128 / elementBytes;
  return OperandPack{isA,
                     (extent + rowTile - 1) / rowTile * rowTile,
                     (c.K + sliceK - 1) / sliceK,
                     sliceK,
                     rowTile,
                     SmallVector<PackPart>(parts),
                     offsetBytes};
}

FailureOr<std::string> cuda_agent::builtin::writePackKernel(
    const LinalgRegion &region, const Contraction &c, const OperandPack &pack,
    StringRef name, std::string &why) {
  bool isA = pack.isA;
  Value operand = isA ? c.a : c.b;
  AffineMap map = isA ? c.mapA : c.mapB;
  Type type = elementOf(operand);
  bool tf32 = type.isF32();
  if (!tf32 && (!type.isF16() && !type.isBF16())) {
    why = "a packed operand that is neither f32 nor f16/bf16";
    return failure();
  }
  for (PackPart part : pack.parts)
    if ((part == PackPart::Value) == tf32) {
      why = "a pack part of another element type";
      return failure();
    }
  unsigned counter = 0;
  std::string value;
  FailureOr<std::string> body =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return failure();
  // Read along the operand's contiguous dimension: k unless its rows are.
  bool kFast = !c.isInnermost(operand, map, isA ? c.m : c.n);
  // The blocks cover the rows padded to the product's tile: past the
  // operand's own rows they write zeros (a guard wherever the tile does not
  // divide them, though 32-row blocks may).
  SmallVector<std::string> conds = tiles::edgeConds(
      isA ? c.M : c.N, pack.tileRows, c.K, pack.sliceK);
  std::string storage = tf32 ? "float" : getCType(type)->storage;
  std::string src = kernelSignature(region, name, kPackThreads, true) + " {\n";
  src += llvm::formatv(
             "  __shared__ float tile[{0}][{1} + 1];\n"
             "  const int tid = threadIdx.x;\n"
             "  const long long r0 = (long long)blockIdx.y * {0};\n"
             "  const long long k0 = (long long)blockIdx.x * {1};\n",
             kPackRows, pack.sliceK)
             .str();
  src += c.batchIndices();
  src += tiles::loadLoop(kPackRows, pack.sliceK, kPackThreads, kFast, "r0",
                         conds, *body + "        x = " + value + ";\n",
                         "      tile[rr][kk] = x;\n");
  int64_t parts = pack.parts.size();
  int chunk = pack.sliceK / 8;
  src += llvm::formatv(
             "  __syncthreads();\n"
             "  {0} *const dst = reinterpret_cast<{0} *>(workspace + {1}LL) +\n"
             "      (long long)blockIdx.z * {2}LL;\n"
             "  // The block's rows lie in one {3}-row tile of the product: "
             "its slices are the\n"
             "  // product's steps blockIdx.x * {4} + part.\n"
             "  const long long t = r0 / {3};\n"
             "  const int rt0 = (int)(r0 % {3});\n"
             "#pragma unroll\n"
             "  for (int p = 0; p < {5}; ++p) {{\n"
             "    const int e = tid + p * {6}, rr = e / {7}, kk = e % {7};\n"
             "    const int rt = rt0 + rr;\n"
             "    // 16-byte chunk kk / {8} of the row's 128 bytes, swizzled as "
             "wgmma reads it.\n"
             "    const int at = (((kk / {8}) ^ (rt & 7)) * {8}) + kk % {8};\n"
             "    const float x = tile[rr][kk];\n",
             storage, pack.offsetBytes, pack.rows * pack.rowElements(),
             pack.tileRows, parts, kPackRows * pack.sliceK / kPackThreads,
             kPackThreads, pack.sliceK, chunk)
             .str();
  if (tf32)
    src += "    const float hi = __uint_as_float(ca_pack_tf32(x));\n"
           "    const float lo = __uint_as_float(ca_pack_tf32(x - hi));\n";
  for (auto [i, part] : llvm::enumerate(pack.parts)) {
    std::string v = part == PackPart::Value ? storeAs(type, "x")
                    : part == PackPart::Hi  ? "hi"
                                            : "lo";
    src += llvm::formatv("    dst[((t * {0}LL + (long long)blockIdx.x * {1} + "
                         "{2}) * {3} + rt) * {4} + at] = {5};\n",
                         pack.productSteps(), parts, i, pack.tileRows,
                         pack.sliceK, v)
               .str();
  }
  return src + "  }\n}\n";
}

StringRef cuda_agent::builtin::getPackHelpers() {
  return R"cuda(// x rounded to TF32 (to nearest, ties away), as f32 bits.
__device__ __forceinline__ unsigned ca_pack_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}
)cuda";
}

FailureOr<Launch> cuda_agent::builtin::packLaunch(const Contraction &c,
                                                  const OperandPack &pack,
                                                  StringRef name,
                                                  std::string &why) {
  int64_t blockRows = pack.rows / kPackRows;
  if (pack.steps > 0x7fffffff || blockRows > 65535 || c.batches > 65535) {
    why = "a packed operand past the pack kernel's grid (65535 blocks of 32 "
          "rows, 65535 batches)";
    return failure();
  }
  return Launch{name.str(),
                {pack.steps, blockRows, c.batches},
                {kPackThreads, 1, 1}};
}
