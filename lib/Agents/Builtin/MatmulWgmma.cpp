//===- MatmulWgmma.cpp - f16/bf16 contractions on Hopper's wgmma ----------===//
//
// The matmul strategy's warpgroup kernels for f16 or bf16 operands with f32
// accumulation on sm_90, built for the arch-specific sm_90a (the variant's
// plan asks for it): one or two warpgroups of 128 threads, each computing a
// 64 x BN part of the block's tile with `wgmma.mma_async.m64nBNk16`, both
// operands read by the tensor cores from shared memory through matrix
// descriptors. A step of the k loop is 64 elements deep, one 128-byte row
// of a 16-bit operand, stored in the 128-byte-swizzled layout wgmma reads
// (16-byte chunk c of row r at chunk c ^ (r % 8), 1024-byte atoms): K-major
// when the operand's k is contiguous in memory, MN-major (imm-trans 1) when
// its rows or columns are, so either operand may be transposed. Several
// stages of shared memory form a pipeline: a region input read as it is
// lands with 16-byte `cp.async` copies (zero-filled past the edges), two
// steps ahead of the products; an operand computed by producers (casts,
// elementwise ops) or whose rows are not whole 16-byte chunks is loaded
// through registers into the same layout while the previous step's
// products run. After a barrier (and `fence.proxy.async`, which makes the
// copies visible to the tensor cores' proxy) each warpgroup issues the
// step's four wgmmas, commits them and waits for the step before, so the
// products of one step overlap the copies of the next ones. The epilogue
// and store loop are the mma.sync kernels' (Matmul.cpp, MatmulMma.cpp): the
// wgmma accumulator fragment of each 8-column slice is mma.sync's.
// Shapes need not be tile multiples. TMA (cp.async.bulk.tensor) and
// producer/consumer warp specialization are the next steps.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Matmul.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The k depth of one pipeline step: one 128-byte swizzle row of 16-bit
/// elements.
constexpr int kStepK = 64;
/// The arch the kernels are built for: wgmma is in sm_90's arch-specific
/// instruction set only.
constexpr const char *kWgmmaArch = "sm_90a";
/// Bytes of one 64-element (128-byte) row of a 16-bit operand's tile.
constexpr int kRowBytes = 128;
/// Bytes of a 64 x 64 MN-major atom column (64 k rows of 64 elements).
constexpr int kMnAtomBytes = kStepK * kRowBytes;

/// A warpgroup tile: BM = 64 rows per warpgroup, BN columns (one
/// m64nBNk16 per warpgroup and k16 slice), `stages` shared-memory buffers.
struct WgmmaTiling {
  int warpgroups, bn, stages;
  int bm() const { return 64 * warpgroups; }
  int threads() const { return 128 * warpgroups; }
  int tileBytes(bool isA) const { return (isA ? bm() : bn) * kRowBytes; }
  int stageBytes() const { return tileBytes(true) + tileBytes(false); }
  /// The stages and the 1024 bytes that align them to a swizzle atom.
  int sharedBytes() const { return stages * stageBytes() + 1024; }
};

/// How one operand's tile is laid out in shared memory and filled.
struct OperandLayout {
  bool isA;
  /// k contiguous in shared memory (imm-trans 0), else rows (A) or columns
  /// (B) contiguous, MN-major (imm-trans 1).
  bool kMajor;
  /// Filled by cp.async straight from a region input.
  bool async;
};

/// Reads how operand A (`isA`) or B sits in memory.
OperandLayout layoutOf(const Contraction &c, bool isA) {
  Value operand = isA ? c.a : c.b;
  AffineMap map = isA ? c.mapA : c.mapB;
  unsigned rowDim = isA ? c.m : c.n;
  int64_t rows = isA ? c.M : c.N;
  OperandLayout layout{isA, !c.isInnermost(operand, map, rowDim), false};
  bool direct = isa<BlockArgument>(operand);
  bool contiguous = c.isInnermost(operand, map, layout.kMajor ? c.k : rowDim);
  // 16-byte chunks of 8 elements along the contiguous dimension, each all
  // in bounds or all out.
  bool chunks = (layout.kMajor ? c.K : rows) % 8 == 0;
  layout.async = direct && contiguous && chunks;
  return layout;
}

/// The element offset of (rr, kk) in a 16-bit tile of `rows` x 64 in the
/// 128-byte-swizzled layout.
std::string swizzledIndex(const OperandLayout &layout) {
  if (layout.kMajor)
    return "rr * 64 + ((((kk >> 3) ^ (rr & 7))) << 3) + (kk & 7)";
  return "(rr >> 6) * 4096 + kk * 64 + (((((rr >> 3) & 7) ^ (kk & 7))) << 3) "
         "+ (rr & 7)";
}

/// The statements filling one operand's tile of step k0 at byte offset
/// `tile` (from the aligned shared base) with cp.async copies.
FailureOr<std::string> writeAsyncLoad(const LinalgRegion &region,
                                      const Contraction &c,
                                      const WgmmaTiling &t,
                                      const OperandLayout &layout,
                                      StringRef tile, std::string &why) {
  bool isA = layout.isA;
  Value operand = isA ? c.a : c.b;
  int rows = isA ? t.bm() : t.bn;
  int64_t extent = isA ? c.M : c.N;
  FailureOr<SmallVector<std::string>> idx = applyIndexingMap(
      isA ? c.mapA : c.mapB,
      isA ? c.loopDims("r", "0", "k") : c.loopDims("0", "r", "k"), why);
  if (failed(idx))
    return failure();
  SmallVector<std::string> conds =
      tiles::edgeConds(extent, rows, c.K, kStepK);
  int chunks = rows * kStepK / 8;
  std::string text = llvm::formatv("#pragma unroll\n"
                                   "      for (int p = 0; p < {0}; ++p) {{\n"
                                   "        const int e = tid + p * {1};\n",
                                   chunks / t.threads(), t.threads())
                         .str();
  if (layout.kMajor)
    text += llvm::formatv(
                "        const int rr = e >> 3, kc = e & 7;\n"
                "        const long long r = {0} + rr, k = k0 + kc * 8;\n"
                "        const unsigned dst = sbase + {1} + rr * 128 + "
                "((kc ^ (rr & 7)) << 4);\n",
                isA ? "m0" : "n0", tile)
                .str();
  else
    text += llvm::formatv(
                "        const int rc = e % {0}, kk = e / {0};\n"
                "        const long long r = {1} + rc * 8, k = k0 + kk;\n"
                "        const unsigned dst = sbase + {2} + (rc >> 3) * {3} + "
                "kk * 128 + (((rc & 7) ^ (kk & 7)) << 4);\n",
                rows / 8, isA ? "m0" : "n0", tile, kMnAtomBytes)
                .str();
  std::string in =
      "in" + std::to_string(cast<BlockArgument>(operand).getArgNumber());
  std::string offset = linearize(*idx, shapeOf(operand));
  if (conds.empty())
    text += "        ca_cp_async16(dst, " + in + " + " + offset + ", true);\n";
  else
    text += "        const bool ok = " + join(conds, " && ") +
            ";\n        ca_cp_async16(dst, " + in + " + (ok ? " + offset +
            " : 0LL), ok);\n";
  return text + "      }\n";
}

/// The statements filling one operand's tile of step k0 at byte offset
/// `tile` through registers: the region's producers give each element.
FailureOr<std::string> writeRegisterLoad(const LinalgRegion &region,
                                         const Contraction &c,
                                         const WgmmaTiling &t,
                                         const OperandLayout &layout,
                                         StringRef tile, unsigned &counter,
                                         std::string &why) {
  bool isA = layout.isA;
  int rows = isA ? t.bm() : t.bn;
  int64_t extent = isA ? c.M : c.N;
  std::string storage = getCType(elementOf(isA ? c.a : c.b))->storage;
  std::string value;
  FailureOr<std::string> body =
      writeOperandValue(region, c, isA, "r", "k", counter, value, why);
  if (failed(body))
    return failure();
  SmallVector<std::string> conds =
      tiles::edgeConds(extent, rows, c.K, kStepK);
  std::string store = "      reinterpret_cast<" + storage + " *>(sgen + " +
                      tile.str() + ")[" + swizzledIndex(layout) +
                      "] = " + storeAs(elementOf(isA ? c.a : c.b), "x") +
                      ";\n";
  std::string loop =
      tiles::loadLoop(rows, kStepK, t.threads(), layout.kMajor,
                      isA ? "m0" : "n0", conds,
                      *body + "        x = " + value + ";\n", store);
  // Unrolled whole, the 32 to 64 loads a thread makes would hold the
  // registers the accumulators need: unrolled by 4.
  StringRef unroll = "#pragma unroll\n";
  if (StringRef(loop).starts_with(unroll))
    loop = "#pragma unroll 4\n" + loop.substr(unroll.size());
  return loop;
}

/// The device function issuing one m64nBNk16 on the accumulators.
std::string wgmmaFunction(const WgmmaTiling &t, StringRef ptxType,
                          const OperandLayout &a, const OperandLayout &b) {
  int regs = t.bn / 2;
  std::string list, operands;
  for (int i = 0; i < regs; ++i) {
    list += (i ? ", %" : "%") + std::to_string(i);
    operands += llvm::formatv("{0}\"+f\"(d[{1}][{2}])", i ? ", " : "", i / 4,
                              i % 4)
                    .str();
  }
  return llvm::formatv(
             "// D (64 x {0}, f32) += A (64 x 16) * B (16 x {0}), both read "
             "from shared memory through their descriptors.\n"
             "__device__ __forceinline__ void ca_wgmma(float (&d)[{1}][4], "
             "unsigned long long da, unsigned long long db) {{\n"
             "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{2}, "
             "0;\\n\"\n"
             "               \"wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{3}."
             "{3} {{{4}}, %{5}, %{6}, p, 1, 1, {7}, {8};\\n}\\n\"\n"
             "               : {9}\n"
             "               : \"l\"(da), \"l\"(db), \"r\"(1)\n"
             "               : \"memory\");\n"
             "}\n",
             t.bn, t.bn / 8, regs + 2, ptxType, list, regs, regs + 1,
             a.kMajor ? 0 : 1, b.kMajor ? 0 : 1, operands)
      .str();
}

/// The helpers every wgmma kernel uses: the 16-byte async copy and the
/// shared-memory matrix descriptor.
StringRef wgmmaHelpers() {
  return R"cuda(// 16 bytes global -> shared, asynchronously; zeros when !full.
__device__ __forceinline__ void ca_cp_async16(unsigned dst, const void *src, bool full) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :: "r"(dst), "l"(src), "r"(full ? 16 : 0) : "memory");
}
// A wgmma shared-memory matrix descriptor, 128-byte swizzle: start address,
// leading and stride byte offsets, all in 16-byte units.
__device__ __forceinline__ unsigned long long ca_wgmma_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) |
         ((unsigned long long)(lbo >> 4) << 16) |
         ((unsigned long long)(sbo >> 4) << 32) | (1ULL << 62);
}
)cuda";
}

/// The descriptor of k16 slice `ks` of an operand's tile at shared address
/// `base` (C expressions), the warpgroup's rows for A.
std::string descriptor(const OperandLayout &layout, StringRef base) {
  std::string rows = layout.isA ? " + wg * " + std::to_string(kMnAtomBytes)
                                : std::string();
  // K-major: rows of 128 bytes, 8-row groups 1024 bytes apart; a k16 slice
  // starts 32 bytes further into the swizzled row. MN-major: 64-element
  // columns of atoms kMnAtomBytes apart, 8 k rows 1024 bytes apart; a k16
  // slice is 16 rows further.
  if (layout.kMajor)
    return ("ca_wgmma_desc(" + base + rows + " + ks * 32, 16, 1024)").str();
  return ("ca_wgmma_desc(" + base + rows + " + ks * 2048, " +
          std::to_string(kMnAtomBytes) + ", 1024)")
      .str();
}

FailureOr<Variant> writeWgmma(const LinalgRegion &region, const Contraction &c,
                              const WgmmaTiling &t, std::string &why) {
  Type type = elementOf(c.a);
  std::string ptxType = type.isBF16() ? "bf16" : "f16";
  OperandLayout layouts[] = {layoutOf(c, true), layoutOf(c, false)};
  unsigned counter = 0;
  int threads = t.threads();
  std::string name = "matmul";
  std::string src = getPrelude().str() + "\n" + wgmmaHelpers().str() +
                    wgmmaFunction(t, ptxType, layouts[0], layouts[1]) + "\n" +
                    kernelSignature(region, name, threads) + " {\n";
  src += llvm::formatv(
             "  extern __shared__ __align__(1024) unsigned char ca_smem[];\n"
             "  // Stages from the first 1024-byte boundary (swizzle atoms).\n"
             "  const unsigned smem0 = (unsigned)__cvta_generic_to_shared("
             "ca_smem);\n"
             "  const unsigned sbase = (smem0 + 1023u) & ~1023u;\n"
             "  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;\n"
             "  const int wg = warp / 4, g = lane / 4, tig = lane % 4;\n"
             "  // The warp's 16 rows of its warpgroup's 64 (wgmma's D "
             "fragment).\n"
             "  const int wm = wg * 64 + (warp % 4) * 16, wn = 0;\n"
             "  const long long m0 = (long long)blockIdx.y * {0};\n"
             "  const long long n0 = (long long)blockIdx.x * {1};\n",
             t.bm(), t.bn)
             .str();
  if (!layouts[0].async || !layouts[1].async)
    src += "  unsigned char *const sgen = ca_smem + (sbase - smem0);\n";
  src += c.batchIndices();
  // mma.sync's accumulator shape: one 16-row tile per warp, BN/8 slices.
  MmaTiling store{16, t.bn, kStepK, 1, 1};
  std::string init =
      c.initIsSplat(region) ? region.splats.lookup(c.init) : "0.0f";
  src += tiles::mmaAccumulators(store, init);
  std::string loads;
  for (const OperandLayout &layout : layouts) {
    std::string tile = layout.isA ? "oa" : "ob";
    FailureOr<std::string> load =
        layout.async
            ? writeAsyncLoad(region, c, t, layout, tile, why)
            : writeRegisterLoad(region, c, t, layout, tile, counter, why);
    if (failed(load))
      return failure();
    loads += *load;
  }
  int64_t steps = (c.K + kStepK - 1) / kStepK;
  int ahead = t.stages - 2;
  src += llvm::formatv(
             "  // Step kt's tiles land {0} steps ahead; a stage is refilled "
             "once the barrier\n"
             "  // shows every warpgroup done with the products that read "
             "it.\n"
             "  for (int kt = -{0}; kt < {1}; ++kt) {{\n"
             "    if (kt >= 0) {{\n"
             "      asm volatile(\"cp.async.wait_group {2};\\n\" ::: "
             "\"memory\");\n"
             "      asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: "
             "\"memory\");\n"
             "      __syncthreads();\n"
             "      const unsigned sa = sbase + (kt % {3}) * {4}, sb = sa + "
             "{5};\n"
             "      asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: "
             "\"memory\");\n"
             "#pragma unroll\n"
             "      for (int ks = 0; ks < 4; ++ks)\n"
             "        ca_wgmma(acc[0], {6}, {7});\n"
             "      asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: "
             "\"memory\");\n"
             "    }\n"
             "    const int lt = kt + {0};\n"
             "    if (lt < {1}) {{\n"
             "      const long long k0 = (long long)lt * {8};\n"
             "      const unsigned oa = (lt % {3}) * {4}, ob = oa + {5};\n",
             ahead, steps, ahead - 1, t.stages, t.stageBytes(),
             t.tileBytes(true), descriptor(layouts[0], "sa"),
             descriptor(layouts[1], "sb"), kStepK)
             .str();
  src += loads;
  src += "    }\n"
         "    asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\");\n"
         "    if (kt >= 0)\n"
         "      asm volatile(\"wgmma.wait_group.sync.aligned 1;\\n\" ::: "
         "\"memory\");\n"
         "  }\n"
         "  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: "
         "\"memory\");\n";
  // The accumulators are read only after the wait.
  src += llvm::formatv("#pragma unroll\n"
                       "  for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "    for (int q = 0; q < 4; ++q)\n"
                       "      asm volatile(\"\" : \"+f\"(acc[0][j][q]) :: "
                       "\"memory\");\n",
                       t.bn / 8)
             .str();
  FailureOr<std::string> epilogue =
      writeEpilogue(region, c, "acc[i][j][q]", counter, why);
  if (failed(epilogue))
    return failure();
  src += tiles::mmaStoreLoop(store, c.M, c.N);
  src += *epilogue + tiles::mmaStoreEnd().str();
  Launch launch{name,
                {(c.N + t.bn - 1) / t.bn, (c.M + t.bm() - 1) / t.bm(),
                 c.batches},
                {threads, 1, 1},
                t.sharedBytes()};
  if (launch.grid[1] > 65535) {
    why = "more than 65535 row tiles";
    return failure();
  }
  Variant variant{llvm::formatv("wgmma-{0}x{1}x{2}-s{3}", t.bm(), t.bn,
                                kStepK, t.stages)
                      .str(),
                  src,
                  {launch}};
  variant.arch = kWgmmaArch;
  return variant;
}

} // namespace

void cuda_agent::builtin::addWgmmaVariants(const LinalgRegion &region,
                                           const Contraction &c,
                                           const GpuTarget &target,
                                           VariantList &list) {
  if (!hasHalfOperands(c))
    return;
  // wgmma is sm_90's alone (and needs its arch-specific build, sm_90a).
  if (std::strncmp(target.chip, "sm_90", 5) != 0)
    return;
  // Two warpgroups of 64 x 256 (128 accumulators a thread) or 64 x 128 for
  // products that fill the device, one of 64 x 128 for those that do not
  // (four stages, 97 KiB: two blocks an SM).
  SmallVector<WgmmaTiling> tilings = {{2, 256, 4}, {2, 128, 5}, {1, 128, 4}};
  int64_t bigTiles = (c.M + 127) / 128 * ((c.N + 255) / 256) * c.batches;
  if (bigTiles < 2 * target.smCount)
    std::reverse(tilings.begin(), tilings.end());
  std::string reason;
  for (const WgmmaTiling &t : tilings) {
    if (t.sharedBytes() > target.maxSharedBytesPerBlock)
      continue;
    list.add(writeWgmma(region, c, t, reason), reason);
  }
}
