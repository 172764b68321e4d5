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
// Shapes need not be tile multiples.
//
// Ahead of them, where both operands are region inputs copied with
// cp.async, warp-specialized kernels: warpgroup 0 only copies (each of its
// threads the same chunks every step, from a pointer set once), stages
// handed over through mbarriers (full: the producer's copies landed,
// cp.async.mbarrier.arrive.noinc; empty: every consumer warp is done with
// the stage's products), the two consumer warpgroups only wait and issue
// wgmmas, the producer's registers given to them (setmaxnreg). Plain
// pointer parameters, as every kernel of the plan takes: a TMA tensor map
// would need the launchers (gpu.launch_func, IREE's dispatch) to build it.
// The same kernel on operands packed into the workspace first (f32 ones as
// TF32 parts, 16-bit ones cp.async cannot copy) is MatmulWgmmaPacked.cpp's
// (MatmulWgmma.h).
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "MatmulWgmma.h"
#include "ProductTail.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The kernels' entry point.
constexpr const char *kKernelName = "matmul";
/// The arch the kernels are built for: wgmma is in sm_90's arch-specific
/// instruction set only.
constexpr const char *kWgmmaArch = "sm_90a";

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

constexpr WgmmaElement kTf32Element{"tf32", 4};

} // namespace

WgmmaElement cuda_agent::builtin::halfElement(Type type) {
  return {type.isBF16() ? "bf16" : "f16", 2};
}

WgmmaElement cuda_agent::builtin::halfElement(const Contraction &c) {
  return halfElement(elementOf(c.a));
}

bool cuda_agent::builtin::hasWgmma(const GpuTarget &target) {
  return std::strncmp(target.chip, "sm_90", 5) == 0;
}

int64_t cuda_agent::builtin::tileCount(const SpecializedTiling &t,
                                       const ProductShape &shape) {
  return (shape.N + t.bn - 1) / t.bn * ((shape.M + t.bm() - 1) / t.bm());
}

std::string cuda_agent::builtin::persistentTileLoop(const SpecializedTiling &t,
                                                    const ProductShape &shape,
                                                    int indent) {
  std::string pad(indent, ' ');
  return llvm::formatv("{4}int step = 0;\n"
                       "{4}for (long long tile = blockIdx.x; tile < {0}LL; "
                       "tile += gridDim.x) {{\n"
                       "{4}const long long m0 = (tile / {1}) * {2}, n0 = (tile "
                       "% {1}) * {3};\n",
                       tileCount(t, shape), (shape.N + t.bn - 1) / t.bn,
                       t.bm(), t.bn, pad)
      .str();
}

OperandLayout cuda_agent::builtin::layoutOf(const Contraction &c, bool isA) {
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

namespace {

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
  FailureOr<SmallVector<std::string>> idx = c.tileOperandIndices(isA, why);
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

/// The device function issuing one m64nBNkK on the accumulators; with
/// `scaleOperand` it takes wgmma's scale-d as an argument (0: D = A * B,
/// the accumulators' old values dropped), else it always accumulates.
std::string wgmmaFunction(const WgmmaTiling &t, const WgmmaElement &element,
                          const OperandLayout &a, const OperandLayout &b,
                          bool scaleOperand = false) {
  int regs = t.bn / 2;
  std::string list, operands;
  for (int i = 0; i < regs; ++i) {
    list += (i ? ", %" : "%") + std::to_string(i);
    operands += llvm::formatv("{0}\"+f\"(d[{1}][{2}])", i ? ", " : "", i / 4,
                              i % 4)
                    .str();
  }
  // TF32 takes no transposes (its operands are k-major).
  std::string trans =
      element.isTf32() ? std::string()
                       : llvm::formatv(", {0}, {1}", a.kMajor ? 0 : 1,
                                       b.kMajor ? 0 : 1)
                             .str();
  return llvm::formatv(
             "// D (64 x {0}, f32) += A (64 x {9}) * B ({9} x {0}), both read "
             "from shared memory through their descriptors.\n"
             "__device__ __forceinline__ void ca_wgmma(float (&d)[{1}][4], "
             "unsigned long long da, unsigned long long db{10}) {{\n"
             "  asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{2}, "
             "0;\\n\"\n"
             "               \"wgmma.mma_async.sync.aligned.m64n{0}k{9}.f32.{3}."
             "{3} {{{4}}, %{5}, %{6}, p, 1, 1{7};\\n}\\n\"\n"
             "               : {8}\n"
             "               : \"l\"(da), \"l\"(db), \"r\"({11})\n"
             "               : \"memory\");\n"
             "}\n",
             t.bn, t.bn / 8, regs + 2, element.ptxType, list, regs, regs + 1,
             trans, operands, element.instrK(),
             scaleOperand ? ", int accumulate" : "",
             scaleOperand ? "accumulate" : "1")
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

/// Ties the bn-column fragment `array` (the accumulators, or the partial
/// sums of promoted steps) to a point after the last wgmma wait, so the
/// compiler reads it only after the wait; the loop `indent` spaces in.
std::string accumulatorFence(int bn, StringRef array = "acc", int indent = 2) {
  std::string pad(indent, ' ');
  return llvm::formatv("#pragma unroll\n"
                       "{2}for (int j = 0; j < {0}; ++j)\n"
                       "#pragma unroll\n"
                       "{2}  for (int q = 0; q < 4; ++q)\n"
                       "{2}    asm volatile(\"\" : \"+f\"({1}[0][j][q]) :: "
                       "\"memory\");\n",
                       bn / 8, array, pad)
      .str();
}

/// The accumulators' fragment stores through the region's epilogue (the
/// mma.sync kernels' store loop): the kernel's last lines.
FailureOr<std::string> writeFragmentStores(const LinalgRegion &region,
                                           const Contraction &c,
                                           const MmaTiling &store,
                                           unsigned &counter,
                                           std::string &why) {
  FailureOr<std::string> epilogue =
      writeEpilogue(region, c, "acc[i][j][q]", counter, why);
  if (failed(epilogue))
    return failure();
  return fragmentStores(store, c.M, c.N, *epilogue);
}

/// A wgmma kernel as a variant: one block of `threads` per bm x bn tile of
/// each batch, built for sm_90a.
FailureOr<Variant> wgmmaVariant(std::string name, std::string src,
                                const ProductShape &shape, int bm, int bn,
                                int threads, int sharedBytes,
                                std::string &why) {
  FailureOr<Launch> launch =
      productLaunch(shape, bm, bn, threads, sharedBytes, why);
  if (failed(launch))
    return failure();
  Variant variant{std::move(name), std::move(src), {*launch}};
  variant.arch = kWgmmaArch;
  return variant;
}

FailureOr<Variant> writeWgmma(const LinalgRegion &region, const Contraction &c,
                              const WgmmaTiling &t, std::string &why) {
  OperandLayout layouts[] = {layoutOf(c, true), layoutOf(c, false)};
  unsigned counter = 0;
  int threads = t.threads();
  std::string name = kKernelName;
  std::string src = getPrelude().str() + "\n" + wgmmaHelpers().str() +
                    wgmmaFunction(t, halfElement(c), layouts[0], layouts[1]) +
                    "\n" +
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
  src += accumulatorFence(t.bn);
  FailureOr<std::string> stores =
      writeFragmentStores(region, c, store, counter, why);
  if (failed(stores))
    return failure();
  return wgmmaVariant(llvm::formatv("wgmma-{0}x{1}x{2}-s{3}", t.bm(), t.bn,
                                    kStepK, t.stages)
                          .str(),
                      src + *stores, {kKernelName, c.M, c.N, c.batches},
                      t.bm(), t.bn, threads, t.sharedBytes(), why);
}

/// The reduction length past which the 3xTF32 wgmma kernels that add their
/// tensor-core sums in f32 come first. One accumulator was 4.9x the default
/// lowering's error against the f64 oracle at K = 512 and 8-10x at 1024
/// (the verifier's precision rule takes 8x); at K = 512 the promoted
/// kernels would only take the place of faster mma.sync tiles.
constexpr int64_t kPromoteAfterK = 512;

/// The reduction length past which the one-accumulator 3xTF32 kernels are
/// not offered at all: their error, 8-10x the default lowering's at K =
/// 1024, only grows, and the verifier rejected every one at K = 8192
/// (docs/perf.md): verifying them would only cost time.
constexpr int64_t kOneAccumulatorMaxK = 4 * kPromoteAfterK;

/// The mbarrier helpers of the warp-specialized kernels.
StringRef mbarrierHelpers() {
  return R"cuda(// mbarriers in shared memory: init, wait for the phase of a parity,
// arrive, and arrive once the executing thread's cp.async copies landed.
__device__ __forceinline__ void ca_mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void ca_mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void ca_mbar_arrive(unsigned bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void ca_mbar_arrive_copies(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" :: "r"(bar) : "memory");
}
)cuda";
}

} // namespace

SpecializedProduct
cuda_agent::builtin::specializedProduct(const LinalgRegion &region,
                                        const Contraction &c) {
  SpecializedProduct product{
      {kKernelName, c.M, c.N, c.batches},
      c.batchIndices(),
      c.initIsSplat(region) ? region.splats.lookup(c.init) : "0.0f",
      [&region, c](StringRef acc, unsigned &counter, std::string &why) {
        return writeEpilogue(region, c, acc, counter, why);
      }};
  return product;
}

FailureOr<Variant> cuda_agent::builtin::writeSpecialized(
    const LinalgRegion &region, const SpecializedProduct &product,
    const SpecializedTiling &t, const WgmmaElement &element,
    const SpecializedProducer &producer, StringRef label, std::string &why) {
  OperandLayout layouts[] = {{true, producer.kMajorA, true},
                             {false, producer.kMajorB, true}};
  const ProductShape &shape = product.shape;
  unsigned counter = 0;
  bool persistent = t.grid > 0;
  if (persistent && (t.stagedStores || t.promoteSteps || shape.batches != 1 ||
                     !producer.tileOrder.empty())) {
    why = "a persistent wgmma kernel stores from its fragments, sums every "
          "step in the tensor cores and takes one batch in tile order";
    return failure();
  }
  int threads = t.threads();
  int consumerWarps = 4 * t.consumers;
  std::string name = shape.kernel.str();
  WgmmaTiling warpgroups{t.consumers, t.bn, t.stages};
  std::string src =
      getPrelude().str() + "\n" + wgmmaHelpers().str() +
      mbarrierHelpers().str() + producer.helpers +
      wgmmaFunction(warpgroups, element, layouts[0], layouts[1],
                    t.promoteSteps > 0) +
      "\n" +
      kernelSignature(region, name, threads, producer.readsWorkspace,
                      t.blocks) +
      " {\n";
  int64_t steps = producer.steps;
  src += llvm::formatv(
             "  extern __shared__ __align__(1024) unsigned char ca_smem[];\n"
             "  // Stages from the first 1024-byte boundary (swizzle atoms), "
             "then the full and\n"
             "  // the empty mbarrier of each stage.\n"
             "  const unsigned smem0 = (unsigned)__cvta_generic_to_shared("
             "ca_smem);\n"
             "  const unsigned sbase = (smem0 + 1023u) & ~1023u;\n"
             "  const unsigned full = sbase + {0}, empty = full + {1};\n"
             "  const int tid = threadIdx.x, warp = tid / 32;\n",
             t.stages * t.stageBytes(), 8 * t.stages)
             .str();
  if (!producer.tileOrder.empty())
    src += producer.tileOrder;
  else if (!persistent)
    src += llvm::formatv("  const long long m0 = (long long)blockIdx.y * {0};\n"
                         "  const long long n0 = (long long)blockIdx.x * {1};\n",
                         t.bm(), t.bn)
               .str();
  src += product.batchIndices;
  src += llvm::formatv(
             "  if (tid == 0) {{\n"
             "    for (int s = 0; s < {0}; ++s) {{\n"
             "      ca_mbar_init(full + s * 8, {3});\n"
             "      ca_mbar_init(empty + s * 8, {1});\n"
             "    }\n"
             "  }\n"
             "  __syncthreads();\n"
             "  if (warp < 4) {{\n"
             "    // The producer warpgroup: step lt's tiles into stage lt % "
             "{0} once the\n"
             "    // consumers released the step {0} before.\n"
             "    asm volatile(\"setmaxnreg.dec.sync.aligned.u32 {2};\\n\");\n",
             t.stages, consumerWarps, SpecializedTiling::kProducerRegs,
             producer.fullArrivals)
             .str();
  src += producer.text + "    return;\n  }\n";
  src += llvm::formatv(
             "  // A consumer warpgroup: 64 rows of the block's {0}.\n"
             "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 {1};\\n\");\n"
             "  const int lane = tid % 32, wg = warp / 4 - 1, g = lane / 4, "
             "tig = lane % 4;\n"
             "  // The warp's 16 rows of its warpgroup's 64 (wgmma's D "
             "fragment).\n"
             "  const int wm = wg * 64 + (warp % 4) * 16, wn = 0;\n",
             t.bm(), t.consumerRegs())
             .str();
  // A persistent block's consumers take its tiles in the producer's order,
  // counting their steps over all of them (`step`).
  if (persistent)
    src += persistentTileLoop(t, shape, 2);
  MmaTiling store{16, t.bn, kStepK, 1, 1};
  src += tiles::mmaAccumulators(store, product.init);
  int promote = t.promoteSteps;
  if (promote)
    src += llvm::formatv("  // The tensor cores' sums of {0} steps at a time, "
                         "added to acc in f32.\n"
                         "  float part[1][{1}][4];\n",
                         promote, t.bn / 8)
               .str();
  std::string issue =
      promote ? "      ca_wgmma(part[0], {4}, {5}, kt % {6} != 0 || ks != 0);\n"
              : "      ca_wgmma(acc[0], {4}, {5});\n";
  std::string promoteAdd =
      promote ? llvm::formatv(
                    "    if (kt % {0} == {1} || kt == {2}) {{\n"
                    "      asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" "
                    "::: \"memory\");\n",
                    promote, promote - 1, steps - 1)
                        .str() +
                    accumulatorFence(t.bn, "part", 6) +
                    llvm::formatv("#pragma unroll\n"
                                  "      for (int j = 0; j < {0}; ++j)\n"
                                  "#pragma unroll\n"
                                  "        for (int q = 0; q < 4; ++q)\n"
                                  "          acc[0][j][q] += part[0][j][q];\n"
                                  "    }\n",
                                  t.bn / 8)
                        .str()
              : std::string();
  std::string loop =
      "  for (int kt = 0; kt < {0}; ++kt{8}) {{\n"
      "    const int s = {7} % {1};\n"
      "    ca_mbar_wait(full + s * 8, ({7} / {1}) & 1);\n"
      "    // The copies landed through the generic proxy; the tensor cores "
      "read through\n"
      "    // the async one.\n"
      "    asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: "
      "\"memory\");\n"
      "    const unsigned sa = sbase + s * {2}, sb = sa + {3};\n"
      "    asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
      "#pragma unroll\n"
      "    for (int ks = 0; ks < 4; ++ks)\n" +
      issue +
      "    asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: "
      "\"memory\");\n"
      "    // Step kt - 1's products are done: its stage may be refilled.\n"
      "    asm volatile(\"wgmma.wait_group.sync.aligned 1;\\n\" ::: "
      "\"memory\");\n"
      "    if (kt > 0 && lane == 0)\n"
      "      ca_mbar_arrive(empty + (({7} - 1) % {1}) * 8);\n";
  src += llvm::formatv(loop.c_str(), steps, t.stages, t.stageBytes(),
                       t.bm() * kRowBytes, descriptor(layouts[0], "sa"),
                       descriptor(layouts[1], "sb"), promote,
                       persistent ? "step" : "kt",
                       persistent ? ", ++step" : "")
             .str() +
         promoteAdd +
         "  }\n"
         "  asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: "
         "\"memory\");\n";
  // The tile's last stage too, before the block's next tile reuses it.
  if (persistent)
    src += llvm::formatv("  if (lane == 0)\n"
                         "    ca_mbar_arrive(empty + ((step - 1) % {0}) * 8);\n",
                         t.stages)
               .str();
  src += accumulatorFence(t.bn);
  if (t.stagedStores) {
    FailureOr<std::string> epilogue = product.epilogueAt("v", counter, why);
    if (failed(epilogue))
      return failure();
    int ld = t.bn + 8;
    int consumerThreads = 128 * t.consumers;
    src += llvm::formatv(
               "  // The tile goes through the stages once {7} done\n"
               "  // with them (named barrier 1, the consumers' {6} threads), "
               "so that each warp\n"
               "  // stores 32 consecutive elements of a row (rows {0} floats "
               "apart: 2-way bank\n"
               "  // conflicts at most on the fragment writes).\n"
               "  asm volatile(\"bar.sync 1, {6};\\n\" ::: \"memory\");\n"
               "  float *const ctile = reinterpret_cast<float *>(ca_smem + "
               "(sbase - smem0));\n"
               "#pragma unroll\n"
               "  for (int j = 0; j < {1}; ++j) {{\n"
               "    const int col = j * 8 + 2 * tig;\n"
               "    *reinterpret_cast<float2 *>(&ctile[(wm + g) * {0} + col]) "
               "= make_float2(acc[0][j][0], acc[0][j][1]);\n"
               "    *reinterpret_cast<float2 *>(&ctile[(wm + g + 8) * {0} + "
               "col]) = make_float2(acc[0][j][2], acc[0][j][3]);\n"
               "  }\n"
               "  asm volatile(\"bar.sync 1, {6};\\n\" ::: \"memory\");\n"
               "#pragma unroll 4\n"
               "  for (int e = tid - 128; e < {2}; e += {6}) {{\n"
               "    const int rr = e / {3}, cc = e % {3};\n"
               "    const long long m = m0 + rr, n = n0 + cc;\n"
               "    if (m >= {4}LL || n >= {5}LL)\n"
               "      continue;\n"
               "    const float v = ctile[rr * {0} + cc];\n",
               ld, t.bn / 8, t.bm() * t.bn, t.bn, shape.M, shape.N,
               consumerThreads,
               t.consumers == 1 ? "the consumer warpgroup is"
                                : "both consumer warpgroups are")
               .str();
    src += *epilogue + "  }\n}\n";
  } else {
    FailureOr<std::string> epilogue =
        product.epilogueAt("acc[i][j][q]", counter, why);
    if (failed(epilogue))
      return failure();
    src += fragmentStores(store, shape.M, shape.N, *epilogue);
    // The stores close the kernel; a persistent one's tile loop first.
    if (persistent)
      src.insert(src.size() - 2, "  }\n");
  }
  FailureOr<Variant> variant = wgmmaVariant(
      llvm::formatv("wgmma-ws{0}-{1}x{2}x{3}-s{4}{5}{6}{7}", label, t.bm(),
                    t.bn, element.stepK(), t.stages,
                    t.stagedStores ? "" : "-regstore",
                    promote ? "-sum" + std::to_string(promote) : std::string(),
                    persistent ? "-persistent" : "")
          .str(),
      src, shape, t.bm(), t.bn, threads,
      t.sharedBytes() + producer.sharedBytes, why);
  // A persistent grid: at most a block a tile.
  if (succeeded(variant) && persistent)
    variant->launches.front().grid = {std::min(t.grid, tileCount(t, shape)),
                                      1, 1};
  return variant;
}

void cuda_agent::builtin::addWgmmaVariants(const LinalgRegion &region,
                                           const Contraction &c,
                                           const GpuTarget &target,
                                           bool allowTf32, VariantList &list) {
  bool f32 = elementOf(c.a).isF32() && elementOf(c.b).isF32();
  if (!hasHalfOperands(c) && !f32)
    return;
  if (!hasWgmma(target))
    return;
  int64_t bigTiles = (c.M + 127) / 128 * ((c.N + 255) / 256) * c.batches;
  std::string reason;
  // The warp-specialized kernels first: two consumer warpgroups of 64 x 256
  // (four 48 KiB stages), also storing from the fragments, or of 64 x 128
  // (six 32 KiB stages); only the last for products whose big tiles do not
  // fill the SMs once (the 1024 x 8192 linear layer's 256 big tiles, two
  // waves of 132, ran 1827 us on 128 x 128 tiles: docs/perf.md).
  SmallVector<SpecializedTiling> specialized = {
      {2, 256, 4}, {2, 256, 4, false}, {2, 128, 6}};
  if (bigTiles < target.smCount)
    specialized.erase(specialized.begin(), specialized.end() - 1);
  auto fits = [&](const SpecializedTiling &t) {
    return t.sharedBytes() <= target.maxSharedBytesPerBlock &&
           (!t.stagedStores || t.tileFits());
  };
  if (f32) {
    // f32 products as TF32 wgmmas on packed operands: A's slices
    // (hi, hi, lo) against B's (hi, lo, hi) make the 3xTF32 product (f32
    // accuracy); the plain TF32 product under precision=tf32 first.
    using P = PackPart;
    for (const SpecializedTiling &t : specialized)
      if (allowTf32 && fits(t))
        list.add(writePackedSpecialized(region, c, t, kTf32Element, {P::Hi},
                                        {P::Hi}, "-tf32", reason),
                 reason);
    // Over a long reduction, the 3xTF32 products summed by the tensor cores
    // a few steps at a time first (promoteSteps), past kPromoteAfterK: the
    // others' error grows with K past the f32 loop's (past
    // kOneAccumulatorMaxK they are left out).
    auto add3xTf32 = [&](const SpecializedTiling &t) {
      if (fits(t))
        list.add(writePackedSpecialized(region, c, t, kTf32Element,
                                        {P::Hi, P::Hi, P::Lo},
                                        {P::Hi, P::Lo, P::Hi}, "-3xtf32",
                                        reason),
                 reason);
    };
    for (int promote : {4, 2}) {
      if (c.K <= kPromoteAfterK)
        break;
      SpecializedTiling t{2, 128, 6};
      t.promoteSteps = promote;
      add3xTf32(t);
    }
    if (c.K <= kOneAccumulatorMaxK)
      for (const SpecializedTiling &t : specialized)
        add3xTf32(t);
    return;
  }
  // The producer copies both operands with cp.async where both are region
  // inputs with whole 16-byte chunks; any other pair is packed first.
  bool bothAsync = layoutOf(c, true).async && layoutOf(c, false).async;
  for (const SpecializedTiling &t : specialized) {
    if (!fits(t))
      continue;
    if (bothAsync)
      list.add(writeRegionSpecialized(region, c, t, reason), reason);
    else
      list.add(writePackedSpecialized(region, c, t, halfElement(c),
                                      {PackPart::Value}, {PackPart::Value},
                                      "-packed", reason),
               reason);
  }
  // Then the kernels without a producer warpgroup, which load an operand
  // through registers where they must: two warpgroups of 64 x 256 (128
  // accumulators a thread) or 64 x 128 for products that fill the device,
  // one of 64 x 128 for those that do not (four stages, 97 KiB: two blocks
  // an SM).
  SmallVector<WgmmaTiling> tilings = {{2, 256, 4}, {2, 128, 5}, {1, 128, 4}};
  if (bigTiles < 2 * target.smCount)
    std::reverse(tilings.begin(), tilings.end());
  for (const WgmmaTiling &t : tilings) {
    if (t.sharedBytes() > target.maxSharedBytesPerBlock)
      continue;
    list.add(writeWgmma(region, c, t, reason), reason);
  }
}
