//===- RowsCluster.cpp - A row over several blocks of one launch ----------===//
//
// A row that is too long for one block is cut into one chunk per block of a
// group of blocks: each block reduces its chunk, the blocks exchange their
// partials and combine them in rank order (every block ends with the same
// value, the same bits), and the row's later passes run in the same launch.
// Staged, each block first copies its chunk of the row's inputs into shared
// memory, so the row is read from memory once and written once; otherwise
// later passes read the chunk from memory again, mostly from L2 while the
// row is recent.
//
// The group is either a thread-block cluster (sm_90: `__cluster_dims__`, so
// a plain launch makes the clusters), whose blocks run at the same time and
// read each other's shared memory (distributed shared memory); or, with
// `exchange`, any blocks of the launch, on any chip. An exchanged row's
// blocks take their rows and chunks in the order they start, by a ticket
// counter in the workspace, and publish their partials in the workspace,
// then wait for the row's other blocks: a block waits only for blocks that
// have started or that will start once blocks of earlier rows finish, so
// the launch cannot deadlock while a row's blocks fit the GPU at once (the
// strategy offers at most a quarter of the resident blocks per row; a wait
// past two seconds traps rather than hangs). A first launch zeroes the
// counters. Not bound to a cluster's 8 or 16 SMs of one GPC, an exchanged
// row takes chunks small enough for several blocks per SM, so one block's
// loads overlap another's waits and stores.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Rows.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

/// The cluster primitives of the kernels, in PTX (sm_90): a barrier over the
/// cluster's threads (release, then acquire: shared memory writes before it
/// are visible to every block after it), and a load (f32 or f64) from the
/// shared memory of the block of rank `rank` at the address of `p` in this
/// one.
static constexpr const char *kClusterHelpers = R"(
__device__ __forceinline__ void ca_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned ca_cluster_address(const void *p, unsigned rank) {
  unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(p)), remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}
__device__ __forceinline__ float ca_cluster_load(const float *p, unsigned rank) {
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];"
               : "=f"(v) : "r"(ca_cluster_address(p, rank)) : "memory");
  return v;
}
__device__ __forceinline__ double ca_cluster_load(const double *p, unsigned rank) {
  double v;
  asm volatile("ld.shared::cluster.f64 %0, [%1];"
               : "=d"(v) : "r"(ca_cluster_address(p, rank)) : "memory");
  return v;
}
)";

/// The exchange's primitives: the wait for a counter to reach `target`
/// (acquire: the values published before the arrivals counted are visible
/// after it), trapping after two seconds, and the loads of published values
/// from L2 (no L1: other SMs wrote them).
static constexpr const char *kExchangeHelpers = R"(
__device__ __forceinline__ void ca_exchange_arrive(unsigned *counter) {
  __threadfence();
  atomicAdd(counter, 1u);
}
__device__ __forceinline__ unsigned long long ca_exchange_clock() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}
__device__ __forceinline__ void ca_exchange_wait(const unsigned *counter, unsigned target) {
  const unsigned long long start = ca_exchange_clock();
  for (;;) {
    unsigned seen;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                 : "=r"(seen) : "l"(counter) : "memory");
    if (seen >= target)
      return;
    if (ca_exchange_clock() - start > 2000000000ull)
      __trap();
    __nanosleep(64);
  }
}
// 16 bytes from global to shared memory by cp.async (no registers, no L1):
// a block's whole chunk in flight at once; then the wait for all of them.
__device__ __forceinline__ void ca_exchange_stage16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void ca_exchange_stage_wait() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}
__device__ __forceinline__ float ca_exchange_load(const float *p) { return __ldcg(p); }
__device__ __forceinline__ double ca_exchange_load(const double *p) { return __ldcg(p); }
)";

LogicalResult RowKernelWriter::checkCluster() {
  if (cache || split) {
    why = "a cluster row keeps no row in registers and is not split";
    return failure();
  }
  for (linalg::GenericOp g : region.generics)
    if (isReduction(g) && !elementOf(g.getResult(0)).isF32() &&
        !elementOf(g.getResult(0)).isF64()) {
      why = "a cluster row combines f32 and f64 reductions only";
      return failure();
    }
  return success();
}

void RowKernelWriter::writeClusterHeader() {
  // The helpers before the kernel; a cluster's shape on it, or the ticket.
  StringRef global = "extern \"C\" __global__ void ";
  size_t at = src.rfind(global.str());
  if (exchange) {
    src.insert(at, std::string(kExchangeHelpers).substr(1) + "\n");
    src += llvm::formatv(
               "  __shared__ unsigned ca_ticket;\n"
               "  if (threadIdx.x == 0)\n"
               "    ca_ticket = atomicAdd(reinterpret_cast<unsigned "
               "*>(workspace), 1u);\n"
               "  __syncthreads();\n"
               "  const long long row = ca_ticket / {0}u;\n"
               "  const long long part = ca_ticket % {0}u;\n",
               cluster)
               .str();
    // The ticket, then a counter per row.
    exchangeBytes = llvm::alignTo(4 * (1 + rs.rows), 8);
  } else {
    src.insert(at + global.size(),
               llvm::formatv("__cluster_dims__({0}, 1, 1) ", cluster).str());
    src.insert(at, std::string(kClusterHelpers).substr(1) + "\n");
    src += llvm::formatv("  const long long row = blockIdx.x / {0};\n"
                         "  const long long part = blockIdx.x % {0};\n",
                         cluster)
               .str();
  }
  src += llvm::formatv("  const int t = threadIdx.x;\n"
                       "  const long long begin = part * {0}LL;\n"
                       "  const long long end = begin + {0}LL < {1}LL ? begin "
                       "+ {0}LL : {1}LL;\n",
                       chunk, rs.cols)
             .str();
  stepLoop = llvm::formatv("#pragma unroll 4\n"
                           "  for (long long c = begin + (long long)t * {0}; "
                           "c < end; c += {1}LL) {{\n",
                           vector, step)
                 .str();
  if (!staged)
    return;
  // Each whole-row input's chunk into shared memory, read once (no L1
  // allocation), `unroll` loads in flight per thread before their stores
  // (exchanged 16-byte vectors: all of them by cp.async); every thread
  // later reads back the columns it wrote, so no barrier is needed before
  // the passes.
  int64_t steps = (chunk + step - 1) / step;
  int64_t unroll = std::min<int64_t>(8, steps);
  src += "  extern __shared__ __align__(16) unsigned char ca_smem[];\n";
  int64_t offset = 0;
  bool asyncStaged = false;
  for (auto [i, in] : llvm::enumerate(region.inputs)) {
    if (shapeOf(in) != ArrayRef<int64_t>(fullShape))
      continue;
    Type type = elementOf(in);
    std::string storage = getCType(type)->storage;
    std::string vec = llvm::formatv("ca_vec<{0}, {1}>", storage, vector).str();
    std::string array = "s" + std::to_string(i);
    stagedInputs[i] = array;
    bool sixteen = vector * type.getIntOrFloatBitWidth() == 128;
    std::string ptr = "reinterpret_cast<const " + vec + " *>(in" +
                      std::to_string(i) + " + " + rowStart + ")";
    src += llvm::formatv("  {0} *{1} = reinterpret_cast<{0} *>(ca_smem + "
                         "{2});\n",
                         storage, array, offset)
               .str();
    if (exchange && sixteen) {
      // The whole chunk in flight at once (cp.async), waited for below.
      src += llvm::formatv("  for (long long c = begin + (long long)t * {0}; "
                           "c < end; c += {1}LL)\n"
                           "    ca_exchange_stage16({2} + (c - begin), in{3} + "
                           "{4});\n",
                           vector, step, array, i, rowStart)
                 .str();
      asyncStaged = true;
    } else {
      src += llvm::formatv(
                 "  for (long long c0 = begin + (long long)t * {0}; c0 < end; "
                 "c0 += {1}LL) {{\n"
                 "    {2} w[{3}];\n"
                 "#pragma unroll\n"
                 "    for (int u = 0; u < {3}; ++u) {{\n"
                 "      const long long c = c0 + u * {4}LL;\n"
                 "      if (c < end)\n        w[u] = {5};\n"
                 "    }\n"
                 "#pragma unroll\n"
                 "    for (int u = 0; u < {3}; ++u) {{\n"
                 "      const long long c = c0 + u * {4}LL;\n"
                 "      if (c < end)\n"
                 "        *reinterpret_cast<{2} *>({6} + (c - begin)) = w[u];\n"
                 "    }\n  }\n",
                 vector, unroll * step, vec, unroll, step,
                 sixteen ? "ca_load_stream(" + ptr + ")" : "*" + ptr, array)
                 .str();
    }
    offset += llvm::alignTo(chunk * int64_t(type.getIntOrFloatBitWidth() / 8),
                            16);
  }
  if (asyncStaged)
    src += "  ca_exchange_stage_wait();\n";
  stagedBytes = offset;
}

void RowKernelWriter::writeClusterCombine(
    StringRef ctype, ArrayRef<std::string> values,
    llvm::function_ref<std::string(ArrayRef<std::string>,
                                   ArrayRef<std::string>)>
        merge) {
  // Thread 0 publishes the block's values; after the cluster barrier every
  // thread combines the blocks' values in rank order.
  std::string slot = "cl" + std::to_string(clusterCombines++);
  if (exchange)
    return writeExchangeCombine(
        SmallVector<std::string>(values.size(), ctype.str()), slot, values,
        merge);
  src += llvm::formatv("  __shared__ {0} {1}[{2}];\n  if (t == 0) {{\n", ctype,
                       slot, values.size())
             .str();
  for (auto [k, value] : llvm::enumerate(values))
    src += llvm::formatv("    {0}[{1}] = {2};\n", slot, k, value).str();
  src += "  }\n  ca_cluster_sync();\n";
  SmallVector<std::string> others;
  for (auto [k, value] : llvm::enumerate(values)) {
    src += llvm::formatv("  {0} = ca_cluster_load(&{1}[{2}], 0u);\n", value,
                         slot, k)
               .str();
    others.push_back(slot + "o" + std::to_string(k));
  }
  src += llvm::formatv("  for (unsigned r = 1; r < {0}u; ++r) {{\n", cluster)
             .str();
  for (auto [k, other] : llvm::enumerate(others))
    src +=
        llvm::formatv("    const {0} {1} = ca_cluster_load(&{2}[{3}], r);\n",
                      ctype, other, slot, k)
            .str();
  src += merge(values, others) + "  }\n";
}

void RowKernelWriter::writeExchangeCombine(
    ArrayRef<std::string> ctypes, StringRef slot, ArrayRef<std::string> values,
    llvm::function_ref<std::string(ArrayRef<std::string>,
                                   ArrayRef<std::string>)>
        merge) {
  // Thread 0 publishes the block's values (an array of rows x blocks per
  // value), arrives at the row's counter and waits for the row's other
  // blocks' arrivals at this combination (each block arrives once per
  // combination, after its wait for the one before). Then every warp
  // combines the row's values: lane l those of ranks l, l + 32, ... in
  // order, then the lanes by a butterfly of shuffles, merging only lanes
  // below the block count. Lane 0's partner at each step is the lowest lane
  // of its half, so lane 0 ends with every rank's values, combined in the
  // same order in every warp of every block of the row, and hands them to
  // its warp. (No shuffle is in divergent code.)
  std::string publish, loads, moreLoads, shuffles, broadcast;
  SmallVector<std::string> others;
  for (auto [k, value] : llvm::enumerate(values)) {
    const std::string &ctype = ctypes[k];
    int64_t size = ctype == "double" ? 8 : 4;
    exchangeBytes = llvm::alignTo(exchangeBytes, size);
    std::string at = llvm::formatv("reinterpret_cast<{0} *>(workspace + {1})"
                                   "[row * {2} + ",
                                   ctype, exchangeBytes, cluster)
                         .str();
    exchangeBytes += rs.rows * cluster * size;
    others.push_back(slot.str() + "o" + std::to_string(k));
    publish += "    " + at + "part] = " + value + ";\n";
    loads += "    " + value + " = ca_exchange_load(&" + at + "lane]);\n";
    moreLoads +=
        llvm::formatv("      const {0} {1} = ca_exchange_load(&{2}r]);\n",
                      ctype, others[k], at)
            .str();
    shuffles += llvm::formatv("    const {0} {1} = __shfl_xor_sync(0xffffffffu, "
                              "{2}, o);\n",
                              ctype, others[k], value)
                    .str();
    broadcast +=
        llvm::formatv("  {0} = __shfl_sync(0xffffffffu, {0}, 0);\n", value)
            .str();
  }
  src += "  if (t == 0) {\n" + publish +
         "    unsigned *counter = reinterpret_cast<unsigned *>(workspace) + 1 "
         "+ row;\n"
         "    ca_exchange_arrive(counter);\n" +
         llvm::formatv("    ca_exchange_wait(counter, {0}u);\n",
                       clusterCombines * cluster)
             .str() +
         "  }\n  __syncthreads();\n" +
         (clusterCombines == 1 ? "  const int lane = t % 32;\n" : "") +
         llvm::formatv("  if (lane < {0}) {{\n", cluster).str() + loads +
         llvm::formatv("    for (int r = lane + 32; r < {0}; r += 32) {{\n",
                       cluster)
             .str() +
         moreLoads + indent(merge(values, others)) + "    }\n  }\n" +
         "  for (int o = 16; o > 0; o /= 2) {\n" + shuffles +
         llvm::formatv("    if (lane < {0} && (lane ^ o) < {0}) {{\n", cluster)
             .str() +
         indent(merge(values, others)) + "    }\n  }\n" + broadcast;
}

Variant RowKernelWriter::makeClusterVariant() const {
  if (exchange) {
    // A first launch zeroes the ticket and the rows' counters.
    std::string text =
        src + "}\n\n" + kernelSignature(region, "reset", 256, true) +
        llvm::formatv(" {{\n"
                      "  const long long i = blockIdx.x * 256LL + threadIdx.x;\n"
                      "  if (i <= {0}LL)\n"
                      "    reinterpret_cast<unsigned *>(workspace)[i] = 0u;\n"
                      "}\n",
                      rs.rows)
            .str();
    return Variant{
        llvm::formatv("exchange{0}-b{1}-v{2}{3}", cluster, blockThreads,
                      vector, staged ? "-staged" : "")
            .str(),
        text,
        {{"reset", {(rs.rows + 1 + 255) / 256, 1, 1}, {256, 1, 1}},
         {"rows", {rs.rows * cluster, 1, 1}, {blockThreads, 1, 1}, stagedBytes}},
        exchangeBytes};
  }
  // No block leaves while another of its cluster may read its shared memory.
  std::string text = src;
  if (clusterCombines)
    text += "  ca_cluster_sync();\n";
  text += "}\n";
  return Variant{
      llvm::formatv("cluster{0}-b{1}-v{2}{3}", cluster, blockThreads, vector,
                    staged ? "-staged" : "")
          .str(),
      text,
      {{"rows", {rs.rows * cluster, 1, 1}, {blockThreads, 1, 1}, stagedBytes}}};
}

//===----------------------------------------------------------------------===//
// The strategy.
//===----------------------------------------------------------------------===//

namespace {

/// Whether `target` has thread-block clusters (sm_90 and later).
bool hasClusters(const GpuTarget &target) {
  StringRef chip = target.chip;
  unsigned version = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, version) &&
         version >= 90;
}

/// The bytes per column of the region's whole-row inputs (those a staged
/// block keeps its chunk of).
int64_t wholeRowBytes(const LinalgRegion &region, const RowShape &rows) {
  int64_t bytes = 0;
  SmallVector<int64_t> full = rows.fullShape();
  for (Value in : region.inputs)
    if (shapeOf(in) == ArrayRef<int64_t>(full))
      bytes += elementOf(in).getIntOrFloatBitWidth() / 8;
  return bytes;
}

/// Whether the row kernels can split the region's rows over blocks
/// (RowsSplit.cpp): one reduction, or a softmax's max and sum.
bool isSplittable(const LinalgRegion &region) {
  SmallVector<linalg::GenericOp> reductions;
  for (linalg::GenericOp g : region.generics)
    if (isReduction(g))
      reductions.push_back(g);
  if (reductions.size() == 1)
    return true;
  if (reductions.size() != 2)
    return false;
  Block &body = reductions[0].getRegion().front();
  std::string why;
  FailureOr<Combiner> maxOf = findCombiner(
      body, body.getArgument(reductions[0].getNumDpsInputs()), why);
  return succeeded(maxOf) &&
         findExpSum(region, reductions[0], *maxOf) == reductions[1];
}

/// Long rows on sm_90, a row over a cluster. Streamed: few long rows that
/// the split cannot take (layer norm's two reductions), 8 blocks per row,
/// the later passes from L2; ahead of the other row strategies. Staged: the
/// chunks in shared memory, after the block-per-row kernels (on the H200 at
/// 4096 x 393216 one 192 KB block per SM runs its load, passes and stores
/// one after the other, and a block per row was faster).
class RowsClusterStrategy final : public Strategy {
public:
  explicit RowsClusterStrategy(bool staged) : staged(staged) {}

  StringRef getName() const override {
    return staged ? "rows-cluster-staged" : "rows-cluster";
  }

  bool match(const LinalgRegion &region, std::string &why) const override {
    if (isElementwise(region))
      return false;
    FailureOr<RowShape> rows = analyzeRows(region, why);
    if (failed(rows) || rows->isInterleaved() || rows->cols < 16384)
      return false;
    return staged ||
           (rows->rows < 256 && rows->cols >= 65536 && !isSplittable(region));
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    if (!hasClusters(target))
      return;
    std::string reason;
    RowShape rows = *analyzeRows(region, reason);
    int vector = widestVector(region, rows.innermostRun());
    auto add = [&](int cluster, int threads) {
      list.add(writeRows(
                   region, rows,
                   {threads, threads, vector, false, 1, false, cluster, staged},
                   reason),
               reason);
    };
    if (!staged) {
      add(8, 512);
      add(8, 1024);
      return;
    }
    int64_t columnBytes = wholeRowBytes(region, rows);
    // The fewest blocks per row (at most 8, the portable cluster size)
    // whose chunks fit shared memory (less 4 KB for the reductions' own)
    // and whose clusters fill the SMs.
    int64_t limit = target.maxSharedBytesPerBlock - 4096;
    auto stagedBytes = [&](int blocks) {
      int64_t chunk = chunkColumns(rows.cols, blocks, vector);
      return chunk * columnBytes + 16 * 4;
    };
    for (int c : {2, 4, 8})
      if (columnBytes && stagedBytes(c) <= limit &&
          (rows.rows * c >= target.smCount || c == 8)) {
        add(c, 1024);
        add(c, 512);
        return;
      }
  }

private:
  bool staged;
};

/// Rows too long for a block's registers (256 KB of whole-row inputs or
/// more: at 64 per thread a 1024-thread block caches 256 KB, one block per
/// SM, slower than reading the row twice), staged in the shared memory of blocks that exchange their
/// reductions through the workspace: chunks of about 96, 64 and 40 KB (two,
/// three and five blocks per SM), where a row's blocks are at most a quarter
/// of those resident at once and all rows' blocks at least two per SM (few
/// rows are the split's); 1024-thread blocks and 512-thread ones of 64 KB
/// were slower on the H100. Ahead of the block-per-row kernels, which read
/// such a row from memory twice (on the H100 at 4096 x 393216, a softmax in
/// 4794 against 6594 us).
class RowsExchangeStrategy final : public Strategy {
public:
  StringRef getName() const override { return "rows-exchange"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    if (isElementwise(region))
      return false;
    FailureOr<RowShape> rows = analyzeRows(region, why);
    return succeeded(rows) && !rows->isInterleaved() &&
           rows->cols * wholeRowBytes(region, *rows) >= 256 * 1024;
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    std::string reason;
    RowShape rows = *analyzeRows(region, reason);
    int vector = widestVector(region, rows.innermostRun());
    int64_t columnBytes = wholeRowBytes(region, rows);
    for (auto [budget, threads] :
         {std::pair<int64_t, int>{96 * 1024, 512}, {64 * 1024, 256},
          {40 * 1024, 256}}) {
      int64_t blocks = (rows.cols * columnBytes + budget - 1) / budget;
      int64_t chunk = chunkColumns(rows.cols, blocks, vector);
      int64_t perSm = std::min<int64_t>(
          target.maxSharedBytesPerBlock / (chunk * columnBytes + 64),
          2048 / threads);
      if (blocks < 2 || blocks * 4 > perSm * target.smCount ||
          rows.rows * blocks < 2 * target.smCount)
        continue;
      list.add(writeRows(region, rows,
                         {threads, threads, vector, false, 1, false,
                          int(blocks), /*staged=*/true, /*exchange=*/true},
                         reason),
               reason);
    }
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getRowsExchangeStrategy() {
  static const RowsExchangeStrategy strategy;
  return strategy;
}

const Strategy &cuda_agent::builtin::getRowsClusterStrategy() {
  static const RowsClusterStrategy strategy(/*staged=*/false);
  return strategy;
}

const Strategy &cuda_agent::builtin::getRowsClusterStagedStrategy() {
  static const RowsClusterStrategy strategy(/*staged=*/true);
  return strategy;
}
