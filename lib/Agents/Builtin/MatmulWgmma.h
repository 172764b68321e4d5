//===- MatmulWgmma.h - The warp-specialized wgmma kernel --------*- C++ -*-===//
//
// What the wgmma files share: the warp-specialized kernel (writeSpecialized,
// MatmulWgmma.cpp), whose consumer warpgroups wait for each stage of shared
// memory, issue its wgmmas and release it, written around the producer
// warpgroup its caller gives (SpecializedProducer): cp.async copies of two
// region inputs (MatmulWgmmaProducer.cpp) or one thread's bulk copies of
// operands packed into the workspace (MatmulWgmmaPacked.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_MATMULWGMMA_H
#define CUDA_AGENT_AGENTS_BUILTIN_MATMULWGMMA_H

#include "OperandPack.h"
#include "ProductTail.h"

#include <functional>

namespace mlir::cuda_agent::builtin {

/// Bytes of one 64-element (128-byte) row of a 16-bit operand's tile.
inline constexpr int kRowBytes = 128;
/// The k depth of one pipeline step of 16-bit operands: one 128-byte
/// swizzle row.
inline constexpr int kStepK = 64;
/// Bytes of a 64 x 64 MN-major atom column (64 k rows of 64 elements).
inline constexpr int kMnAtomBytes = kStepK * kRowBytes;

/// The element type the tensor cores read: f16 or bf16 (a wgmma is 16
/// deep) or TF32 (8 deep, both operands k-major). A pipeline step is one
/// 128-byte row of either.
struct WgmmaElement {
  StringRef ptxType;
  int bytes;
  int stepK() const { return kRowBytes / bytes; }
  /// Elements per 16-byte copy.
  int chunk() const { return 16 / bytes; }
  /// The k depth of one wgmma: 32 bytes.
  int instrK() const { return 32 / bytes; }
  bool isTf32() const { return bytes == 4; }
};

/// The 16-bit element `type` (f16 or bf16), or that of `c`'s operands.
WgmmaElement halfElement(Type type);
WgmmaElement halfElement(const Contraction &c);

/// Whether `target` is sm_90, whose arch-specific build (sm_90a) alone has
/// wgmma.
bool hasWgmma(const GpuTarget &target);

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
OperandLayout layoutOf(const Contraction &c, bool isA);

/// A warp-specialized tile: one producer warpgroup filling the stages,
/// `consumers` warpgroups of 64 x BN issuing the wgmmas, one block an SM;
/// the product stored through the stages (`stagedStores`, whole rows a
/// warp) or from the accumulator fragments.
struct SpecializedTiling {
  int consumers, bn, stages;
  bool stagedStores = true;
  /// Steps whose products the tensor cores sum on their own before a
  /// consumer adds them to its f32 accumulators (0: they sum all steps).
  /// The tensor cores round their sums toward zero: over a long reduction
  /// the error grows with the number of wgmmas into one accumulator (14x
  /// the default lowering's at K = 8192: docs/perf.md), and an f32 addition
  /// every few steps keeps it at the f32 loop's. Needs a second fragment,
  /// so the 64 x 128 warpgroup tiles only.
  int promoteSteps = 0;
  /// The blocks an SM the registers are planned for (the launch bounds'
  /// minimum): two where a block's epilogue should overlap the other's
  /// steps (few steps, small stages).
  int blocks = 1;
  /// Persistent: the blocks of the grid (at most one a tile), each taking
  /// the tiles blockIdx.x, + gridDim.x, ... in turn, its producer filling
  /// the next tile's stages while the consumers store the last one; 0 for
  /// a block a tile. Stores from the fragments, all steps summed by the
  /// tensor cores, one batch. The conv's short reductions gain (KernelBench's
  /// f16 3x3: 134 against 168 us); the f16 4096^3 matmul loses (220 against
  /// 202 us for the staged stores), so the matmul offers none (docs/perf.md).
  int64_t grid = 0;
  int bm() const { return 64 * consumers; }
  int threads() const { return 128 * (consumers + 1); }
  int stageBytes() const { return (bm() + bn) * kRowBytes; }
  /// The stages, the 1024 bytes that align them to a swizzle atom, and a
  /// full and an empty mbarrier per stage.
  int sharedBytes() const { return stages * stageBytes() + 1024 + 16 * stages; }
  /// Whether the f32 tile, rows padded by 8, fits in the stages.
  bool tileFits() const { return bm() * (bn + 8) * 4 <= stages * stageBytes(); }
  /// The registers a producer thread keeps (setmaxnreg.dec): its copies
  /// need only two pointers and offsets (writeProducerLoad).
  static constexpr int kProducerRegs = 40;
  /// The registers a thread starts with: ptxas gives a kernel that uses
  /// setmaxnreg all that its launch bounds allow, in multiples of 8 (and
  /// allocates the whole kernel within them: a warpgroup that needs more
  /// than that does not compile, whatever it asks for with setmaxnreg).
  int launchRegs() const { return 65536 / (threads() * blocks) / 8 * 8; }
  /// The registers a consumer thread gets (setmaxnreg.inc): those the
  /// block started with less the producer's, in multiples of 8, at most
  /// 232 (a larger request would wait forever for registers the block does
  /// not have).
  int consumerRegs() const {
    int perThread =
        (launchRegs() * threads() - 128 * kProducerRegs) / (128 * consumers);
    return std::min(232, perThread / 8 * 8);
  }
};

/// The producer warpgroup of a warp-specialized kernel (warpgroup 0) and
/// what the rest of the kernel takes from it. In scope for its statements:
/// `tid`, `warp`, `sbase` (the stages' shared address), `full` and `empty`
/// (their mbarriers, 8 bytes apart), `m0`, `n0` and the batch indices.
struct SpecializedProducer {
  /// Whether A's and B's tiles lie k-major in the stages (else MN-major).
  bool kMajorA, kMajorB;
  /// The steps of the k loop.
  int64_t steps;
  /// The arrivals that complete a stage's full barrier.
  int fullArrivals;
  /// Whether the kernel takes the workspace parameter.
  bool readsWorkspace = false;
  /// Bytes of shared memory its statements use after the mbarriers (at
  /// `full + 16 * stages`), beyond the tiling's.
  int sharedBytes = 0;
  /// Device functions its statements call, beyond the wgmma and mbarrier
  /// helpers.
  std::string helpers;
  /// The statements setting the block tile's first row `m0` and column
  /// `n0`; empty for the tile of (blockIdx.y, blockIdx.x).
  std::string tileOrder;
  /// The warpgroup's statements once it gave up its registers, before it
  /// returns: each step's tiles into stage step % stages, once the
  /// consumers released the step `stages` before.
  std::string text;
};

/// What the end of a warp-specialized kernel takes from its product: the
/// shape its blocks tile (the kernel's name, rows, columns, batches), the
/// statements setting the batch indices, the accumulators' first value (a C
/// expression), and the statements storing the region's outputs at one
/// element of the product (C variables `m`, `n`), its sum the f32 C
/// expression `acc`: the staged stores run them at each element of the
/// tile, the fragment stores at each accumulator.
struct SpecializedProduct {
  ProductShape shape;
  std::string batchIndices, init;
  std::function<FailureOr<std::string>(StringRef acc, unsigned &counter,
                                       std::string &why)>
      epilogueAt;
};

/// The product of contraction `c`, its stores the region's epilogue.
SpecializedProduct specializedProduct(const LinalgRegion &region,
                                      const Contraction &c);

/// The warp-specialized kernel on `producer`'s stages: each consumer
/// warpgroup waits on a stage's full barrier, issues the step's wgmmas on
/// `element` and, once the step before is done (wgmma.wait_group 1),
/// arrives on that step's empty barrier (one arrival a consumer warp),
/// which the producer waits on before refilling the stage. The producer
/// gives its registers to the consumers (setmaxnreg). `label` goes into the
/// variant's name.
FailureOr<Variant> writeSpecialized(const LinalgRegion &region,
                                    const SpecializedProduct &product,
                                    const SpecializedTiling &t,
                                    const WgmmaElement &element,
                                    const SpecializedProducer &producer,
                                    StringRef label, std::string &why);

/// Where the cp.async producer copies an operand's tile from: the
/// operand's row 0, k 0 of the block's batch (`pointer`, a typed C
/// pointer), its element strides, and the rows and reduced indices in
/// bounds (copies past them are zero-filled, naming the valid address
/// `any`).
struct ProducerSource {
  bool isA, kMajor;
  std::string pointer, any;
  int64_t strideRow, strideK;
  int64_t extent, K;
};

/// The producer warpgroup's copies of one operand's tile for step lt (C
/// variables `lt`, `k0`, `sbase` in scope): statements before the k loop
/// (`setup`) and those of each step.
struct ProducerLoad {
  std::string setup, step;
};

/// The copies of `source`'s tile, `rows` x one 128-byte step at byte offset
/// `tile` of the stage: each of the 128 threads copies the same chunks of
/// every step, so its source pointer and shared offset are set once and a
/// step only adds constants to them, sparing the one producer warp per SM
/// sub-partition the 64-bit index arithmetic of every copy.
FailureOr<ProducerLoad> writeProducerLoad(const ProducerSource &source,
                                          const WgmmaElement &element,
                                          int rows, StringRef tile,
                                          std::string &why);

/// The producer whose 128 threads copy each step's tiles of a K-deep
/// product into the stage with cp.async (`loads`: A's at stage offset `oa`,
/// B's at `ob`) and let the stage's full barrier complete when their copies
/// land (cp.async.mbarrier.arrive.noinc, one arrival a thread).
/// The `t.bm()` x `t.bn` tiles of `shape`.
int64_t tileCount(const SpecializedTiling &t, const ProductShape &shape);

/// The head of a persistent block's loop over its tiles of `shape` (tiling
/// `t`, `indent` spaces in): the steps counted over all of them (`step`),
/// each tile's first row `m0` and column `n0`; the caller closes the loop.
std::string persistentTileLoop(const SpecializedTiling &t,
                               const ProductShape &shape, int indent);

/// A persistent tiling's producer (`t.grid`) loops over its block's tiles
/// of `shape`, each tile's `setup` statements before its steps.
SpecializedProducer writeCopyProducer(const SpecializedTiling &t,
                                      const WgmmaElement &element,
                                      const ProductShape &shape, int64_t K,
                                      bool kMajorA, bool kMajorB,
                                      const ProducerLoad (&loads)[2]);

/// The warp-specialized kernel on two region inputs copied as they are
/// by a cp.async producer warpgroup (MatmulWgmmaProducer.cpp).
FailureOr<Variant> writeRegionSpecialized(const LinalgRegion &region,
                                          const Contraction &c,
                                          const SpecializedTiling &t,
                                          std::string &why);

/// The warp-specialized kernel on operands packed into the workspace
/// first (OperandPack.h): A's slices as `partsA`, B's as `partsB`, read by
/// the tensor cores as `element`; `label` names the variant. The plan runs
/// the two pack kernels, then the product (MatmulWgmmaPacked.cpp).
FailureOr<Variant> writePackedSpecialized(const LinalgRegion &region,
                                          const Contraction &c,
                                          const SpecializedTiling &t,
                                          const WgmmaElement &element,
                                          ArrayRef<PackPart> partsA,
                                          ArrayRef<PackPart> partsB,
                                          StringRef label, std::string &why);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_MATMULWGMMA_H
