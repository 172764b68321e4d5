//===- MatmulWgmmaPacked.cpp - wgmma products on packed operands ---------===//
//
// The warp-specialized wgmma kernel (MatmulWgmma.h) on operands the plan's
// pack kernels wrote into the workspace first (OperandPack.h): f32
// operands as TF32 parts (3xTF32, or plain TF32 under precision=tf32) and
// 16-bit ones that cp.async cannot copy as they are. Each tile's step lies
// in the workspace whole and swizzled, as the stage holds it, so the
// producer is one thread issuing one cp.async.bulk per operand and step,
// no bounds; the blocks take their tiles in grouped order.
//
//===----------------------------------------------------------------------===//

#include "MatmulWgmma.h"

#include "cuda-agent/Runner/Protocol.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The rows of tiles the blocks take at a time (grouped order: 8 x 128
/// rows against a wave's columns).
constexpr int kTileGroupRows = 8;

/// The bulk-copy helpers of the kernels on packed operands: arrive on an
/// mbarrier expecting `bytes` of copies, and one bulk copy of `bytes` global
/// -> shared completing on an mbarrier.
StringRef bulkCopyHelpers() {
  return R"cuda(__device__ __forceinline__ void ca_mbar_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void ca_bulk_copy(unsigned dst, const void *src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
)cuda";
}

/// The block tile's steps of a packed operand in the workspace (a byte
/// pointer): the pack of the block's batch, then the steps of its tile in
/// the grouped order (tileM, tileN), whole and swizzled, one after the
/// other.
std::string packedTile(const OperandPack &pack) {
  return llvm::formatv("workspace + {0}LL + (long long)blockIdx.z * {1}LL + "
                       "(long long){2} * {3}LL",
                       pack.offsetBytes, pack.bytes(1),
                       pack.isA ? "tileM" : "tileN",
                       pack.productSteps() * pack.tileStepBytes())
      .str();
}

/// The producer of two packed operands: one thread copies each step of
/// each operand with one bulk copy and the stage's full barrier completes
/// when their bytes have landed. The blocks take their tiles in grouped
/// order (kTileGroupRows), so that a wave's blocks share their steps of A
/// and B in L2; on the 16-bit kernels reading the region's operands it
/// changed nothing measurable (docs/perf.md).
SpecializedProducer writeBulkProducer(const SpecializedTiling &t,
                                      const OperandPack &a,
                                      const OperandPack &b) {
  SpecializedProducer producer;
  producer.kMajorA = producer.kMajorB = true;
  producer.steps = a.productSteps();
  producer.fullArrivals = 1;
  producer.readsWorkspace = true;
  producer.helpers = bulkCopyHelpers().str();
  producer.tileOrder =
      llvm::formatv(
          "  // The block's tile: the blocks take the tiles of {2} rows "
          "of tiles at a time,\n"
          "  // column by column, so that a wave's blocks share their "
          "steps of A and B in L2.\n"
          "  const int ca_id = blockIdx.y * gridDim.x + blockIdx.x;\n"
          "  const int ca_first = ca_id / ({2} * gridDim.x) * {2};\n"
          "  const int ca_rows = min((int)gridDim.y - ca_first, {2});\n"
          "  const int ca_in = ca_id % ({2} * gridDim.x);\n"
          "  const int tileM = ca_first + ca_in % ca_rows, tileN = ca_in "
          "/ ca_rows;\n"
          "  const long long m0 = (long long)tileM * {0};\n"
          "  const long long n0 = (long long)tileN * {1};\n",
          t.bm(), t.bn, kTileGroupRows)
          .str();
  producer.text =
      llvm::formatv(
          "    // Each step of each operand is one bulk copy, issued by "
          "one thread; the\n"
          "    // full barrier completes when their bytes have landed.\n"
          "    if (tid == 0) {{\n"
          "      for (int lt = 0; lt < {0}; ++lt) {{\n"
          "        const int s = lt % {1};\n"
          "        if (lt >= {1})\n"
          "          ca_mbar_wait(empty + s * 8, ((lt / {1}) - 1) & 1);\n"
          "        const unsigned oa = s * {2}, ob = oa + {3};\n"
          "        ca_mbar_expect(full + s * 8, {4});\n"
          "        ca_bulk_copy(sbase + oa, {5} + (long long)lt * {6}, "
          "{6}, full + s * 8);\n"
          "        ca_bulk_copy(sbase + ob, {7} + (long long)lt * {8}, "
          "{8}, full + s * 8);\n"
          "      }\n"
          "    }\n",
          producer.steps, t.stages, t.stageBytes(), t.bm() * kRowBytes,
          a.tileStepBytes() + b.tileStepBytes(), packedTile(a),
          a.tileStepBytes(), packedTile(b), b.tileStepBytes())
          .str();
  return producer;
}

} // namespace

FailureOr<Variant> cuda_agent::builtin::writePackedSpecialized(
    const LinalgRegion &region, const Contraction &c,
    const SpecializedTiling &t, const WgmmaElement &element,
    ArrayRef<PackPart> partsA, ArrayRef<PackPart> partsB, StringRef label,
    std::string &why) {
  OperandPack a = planPack(c, true, t.bm(), element.bytes, partsA, 0);
  // B from the next 1024-byte boundary.
  OperandPack b = planPack(c, false, t.bn, element.bytes, partsB,
                           (a.bytes(c.batches) + 1023) / 1024 * 1024);
  int64_t workspace = b.offsetBytes + b.bytes(c.batches);
  if (workspace > kMaxWorkspaceBytes) {
    why = llvm::formatv("packed operands of {0} bytes, more than a plan's "
                        "workspace may hold ({1})",
                        workspace, kMaxWorkspaceBytes)
              .str();
    return failure();
  }
  FailureOr<Variant> variant =
      writeSpecialized(region, specializedProduct(region, c), t, element, writeBulkProducer(t, a, b),
                       label, why);
  if (failed(variant))
    return failure();
  std::string kernels = getPackHelpers().str();
  SmallVector<Launch> packs;
  for (auto [pack, name] : {std::pair(&a, "pack_a"), std::pair(&b, "pack_b")}) {
    FailureOr<std::string> kernel = writePackKernel(region, c, *pack, name, why);
    if (failed(kernel))
      return failure();
    FailureOr<Launch> launch = packLaunch(c, *pack, name, why);
    if (failed(launch))
      return failure();
    kernels += "\n" + *kernel;
    packs.push_back(*launch);
  }
  variant->source += "\n" + kernels;
  variant->launches.insert(variant->launches.begin(), packs.begin(),
                           packs.end());
  variant->workspaceBytes = workspace;
  return variant;
}

