//===- RowsSplit.cpp - Few long rows, each split over several blocks ------===//
//
// A row program with few rows of many columns (fewer than 256 rows of at
// least 16384) leaves most SMs idle with a group per row. Here each row is
// cut into chunks: a `partial` kernel reduces each chunk with one block into
// the workspace. Where the row's outputs are values per row only, a
// `finish` kernel, a warp per row, combines the row's partials in chunk
// order and writes them. Where it has whole-row outputs, an `apply` kernel,
// a block per chunk again, writes the rows: each of its warps combines the
// row's partials in the same order first (a few L2 reads, and one launch
// fewer; on a norm of 268 MB both forms took the same time). The
// reductions of one pass over the row can be split so (independent ones, a
// batch norm's variance from the first pass's sums: RowMoments.cpp; a
// softmax's max and sum: OnlineSoftmax.cpp), not a second pass. Strided
// rows (a batch norm's channels) split like the others: a chunk of columns
// is a block's, read within the innermost run.
//
//===----------------------------------------------------------------------===//

#include "KernelText.h"
#include "Rows.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

LogicalResult RowKernelWriter::checkSplit() {
  // The partials hold one pass's reductions (writeReduction refuses a
  // second pass); a row in registers would gain nothing.
  if (cache) {
    why = "a split row keeps no row in registers";
    return failure();
  }
  return success();
}

void RowKernelWriter::writeChunkHeader() {
  // The partial kernel's blocks take the rows' chunks in order, each
  // reading its chunk first to last; the apply kernel's take them last
  // first, each chunk last to first, so it starts on what the partial
  // kernel read last, which is still in L2 (a row of 256 MB reads its last
  // 50 MB from L2, not HBM): the chunks read last where they outnumber the
  // SMs, the ends of all chunks where they all run at once.
  auto header = [&](StringRef row, StringRef block) {
    return llvm::formatv("  const long long row = {0};\n"
                         "  const int t = threadIdx.x;\n"
                         "  const long long begin = {1} * {2}LL;\n"
                         "  const long long end = begin + {2}LL < {3}LL ? "
                         "begin + {2}LL : {3}LL;\n",
                         row, block, chunk, rs.cols)
        .str();
  };
  chunkHeader = header("gridDim.y - 1 - blockIdx.y",
                       "(gridDim.x - 1 - blockIdx.x)");
  src += header("blockIdx.y", "blockIdx.x");
  stepLoop = llvm::formatv("#pragma unroll 4\n"
                           "  for (long long c = begin + (long long)t * {0}; "
                           "c < end; c += {1}LL) {{\n",
                           vector, step)
                 .str();
  // The thread's last step first (none where the chunk ends before the
  // thread's first column: it starts at or past the end).
  applyStepLoop =
      llvm::formatv("#pragma unroll 4\n"
                    "  for (long long c = begin + (long long)t * {0} + (end - "
                    "begin - 1 - (long long)t * {0}) / {1}LL * {1}LL; c >= "
                    "begin && c < end; c -= {1}LL) {{\n",
                    vector, step)
          .str();
}

void RowKernelWriter::beginFinish(StringRef stores) {
  src += "  if (t == 0) {\n" + stores.str() + "  }\n}\n\n";
  if (!fullOutputs.empty()) {
    // Each warp of an apply block combines its row's partials itself (a
    // few L2 reads, the same order in every warp): no finish kernel and no
    // wait for one between the passes. Block 0 of the row writes its values
    // per row; the rows' pass walks the chunk last first.
    src += kernelSignature(region, "apply", blockThreads, true) + " {\n" +
           chunkHeader + "  const int lane = t % 32;\n" + rowPrefix;
    rowValueWriter = "t == 0 && blockIdx.x == 0";
    stepLoop = applyStepLoop;
    return;
  }
  src += kernelSignature(region, "finish", 256, true) + " {\n" +
         llvm::formatv("  const long long row = (long long)blockIdx.x * 8 + "
                       "threadIdx.x / 32;\n"
                       "  const int t = threadIdx.x % 32, lane = t;\n"
                       "  if (row >= {0}LL)\n    return;\n",
                       rs.rows)
             .str() +
         rowPrefix;
}

void RowKernelWriter::writeSplitReduction(ArrayRef<PassAccumulator> accs,
                                          ArrayRef<std::string> warpCombines) {
  // Each block's partials into the workspace, an array of rows x splits per
  // reduction (doubles 8-byte aligned); a warp combines each row's partials
  // in chunk order.
  SmallVector<std::string> partials;
  std::string stores;
  for (const PassAccumulator &a : accs) {
    int64_t size = a.ctype == "double" ? 8 : 4;
    partialBytes = llvm::alignTo(partialBytes, size);
    partials.push_back("reinterpret_cast<" + a.ctype + " *>(workspace" +
                       (partialBytes ? " + " + std::to_string(partialBytes)
                                     : std::string()) +
                       ")");
    stores += llvm::formatv("    {0}[row * {1} + blockIdx.x] = {2};\n",
                            partials.back(), splits, a.acc)
                  .str();
    partialBytes += rs.rows * splits * size;
  }
  beginFinish(stores);
  for (auto [a, array, warpCombine] :
       llvm::zip(accs, partials, warpCombines))
    src += llvm::formatv("  {0} {1} = {2};\n"
                         "#pragma unroll 8\n"
                         "  for (int s = lane; s < {3}; s += 32)\n"
                         "    {1} = {4};\n",
                         a.ctype, a.acc, a.combiner.identity, splits,
                         a.combiner.combine(a.acc, array + "[row * " +
                                                       std::to_string(splits) +
                                                       " + s]"))
               .str() +
           warpCombine;
}

Variant RowKernelWriter::makeSplitVariant() const {
  Variant variant{llvm::formatv("split{0}-b{1}-v{2}{3}", splits, blockThreads,
                                vector, stream ? "-stream" : "")
                      .str(),
                  src,
                  {{"partial", {splits, rs.rows, 1}, {blockThreads, 1, 1}}},
                  partialBytes};
  if (!fullOutputs.empty())
    variant.launches.push_back(
        {"apply", {splits, rs.rows, 1}, {blockThreads, 1, 1}});
  else
    variant.launches.push_back(
        {"finish", {(rs.rows + 7) / 8, 1, 1}, {256, 1, 1}});
  return variant;
}

namespace {

/// Few long rows: each row split over several blocks.
class RowsSplitStrategy final : public Strategy {
public:
  StringRef getName() const override { return "rows-split"; }

  bool match(const LinalgRegion &region, std::string &why) const override {
    if (isElementwise(region))
      return false;
    FailureOr<RowShape> rows = analyzeRows(region, why);
    return succeeded(rows) && !rows->isInterleaved() && rows->rows < 256 &&
           rows->cols >= 16384;
  }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    std::string reason;
    RowShape rows = *analyzeRows(region, reason);
    int vector = widestVector(region, rows.innermostRun());
    // The rows' blocks fill the target (its resident blocks per SM on every
    // SM), each with at least 4 steps of work.
    int64_t blocks = target.fullOccupancyBlocks();
    int64_t splits = std::min<int64_t>((blocks + rows.rows - 1) / rows.rows,
                                       rows.cols / (256 * vector * 4));
    if (splits <= 1)
      return;
    list.add(writeRows(region, rows, {256, 256, vector, false, splits}, reason),
             reason);
    list.add(
        writeRows(region, rows,
                  {512, 512, vector, false, std::max<int64_t>(2, splits / 2)},
                  reason),
        reason);
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getRowsSplitStrategy() {
  static const RowsSplitStrategy strategy;
  return strategy;
}
