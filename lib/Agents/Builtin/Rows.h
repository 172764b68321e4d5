//===- Rows.h - Row programs: reductions over trailing dimensions -*- C++
//-*-===//
//
// The `rows` regions: reductions over trailing dimensions with any
// elementwise producers and consumers over the same rows (softmax,
// layernorm, row sums). A group of threads (a warp or a block) covers a row:
// the row's inputs kept in registers when they fit, warp shuffles and a
// block reduction, one read of the row and one write. Few long rows are
// split over several blocks (RowsSplit.cpp). RowAnalysis.cpp recognizes
// row programs; RowKernelWriter writes one variant, its pieces spread over
// Rows.cpp (the row kernel),
// RowsSplit.cpp (the split's partial, finish and apply kernels),
// RowsCluster.cpp (a row over the blocks of an sm_90 thread-block cluster)
// and OnlineSoftmax.cpp (a softmax's max and sum in one pass).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_ROWS_H
#define CUDA_AGENT_AGENTS_BUILTIN_ROWS_H

#include "ElementEvaluator.h"
#include "Strategy.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cuda_agent::builtin {

/// How a row program splits its loops: the parallel loops make the rows, the
/// reduced ones the columns. Mostly the rows are the leading loops and the
/// columns the trailing ones, so a row is one run of memory. Where the reduced
/// loops are not the trailing ones (a batch norm's statistics over n, h and w
/// for each channel c), the row is strided: its columns are the reduced
/// loops' positions in order; with the last loop a column, consecutive
/// columns stay consecutive in memory within the innermost run; with the
/// last loop a row (a batch norm over (n, c): a reduction down the columns
/// of a matrix), consecutive rows are consecutive in memory (interleaved),
/// and a thread takes a row.
struct RowShape {
  SmallVector<int64_t> rowDims, colDims;
  /// The loops of the rows and of the columns, each in loop order.
  SmallVector<unsigned> rowLoops, colLoops;
  int64_t rows = 0, cols = 0;
  /// Whether the rows are the leading loops (each row one run of memory).
  bool isTrailing() const;
  /// Whether the innermost loop is a row's (consecutive rows consecutive in
  /// memory, a row's columns apart).
  bool isInterleaved() const;
  /// The loops' shape (a whole-row tensor's).
  SmallVector<int64_t> fullShape() const;
  /// The loop indices of row `row` (rowDims order) and column `col`
  /// (colDims order) in loop order.
  SmallVector<std::string> loopIndices(ArrayRef<std::string> row,
                                       ArrayRef<std::string> col) const;
  /// The offset, in a tensor of the loops' shape, of column `c` of row
  /// `row` (C expressions).
  std::string offsetOf(StringRef row, StringRef c) const;
  /// The consecutive columns in memory from a column that is a multiple of
  /// this (the innermost run of column loops; 1 when interleaved).
  int64_t innermostRun() const;
  /// Generics that compute one value per column for the row passes to read
  /// (the activation of a matrix-vector product's vector): inlined where
  /// they are read, like those over the whole rows.
  llvm::SmallPtrSet<Operation *, 4> perColumn;
};

/// Checks that the region is a row program and returns its row split.
FailureOr<RowShape> analyzeRows(const LinalgRegion &region, std::string &why);

/// Whether nothing computed per row is in `g`'s backward slice within the
/// region (no reduction, no generic over the rows only): `g` can be
/// computed in any pass over the row.
bool readsNothingPerRow(linalg::GenericOp g, const RowShape &rs);

/// Whether a region output holds whole rows (else one value per row).
bool isWholeRows(Value out, const RowShape &rs);

/// Where region output `out` is a transpose of whole rows computed in the
/// region (torch-mlir moves a layer norm's output channels last for a 3-D
/// pooling), that transpose: the row kernels compute the rows and store
/// each element where the transpose puts it. Else null.
linalg::GenericOp getTransposedRows(Value out, const RowShape &rs);

/// The add combiner of `g` when it is a reduction that sums its one input
/// (its body adds the input's element to the accumulator), else failure.
FailureOr<Combiner> sumOfInput(linalg::GenericOp g);

/// For a max reduction `max` of a row tensor X, the reduction that sums
/// exp(X - max) over the same rows (softmax's denominator), if the region has
/// one: a sum whose one input is produced by a generic that only subtracts
/// the row's max from X and exponentiates. Online softmax computes both in
/// one pass over X.
linalg::GenericOp findExpSum(const LinalgRegion &region, linalg::GenericOp max,
                             const Combiner &maxOf);

/// How a row program covers its rows: a group of `group` threads per row (a
/// warp, or the whole block), `vector` consecutive columns per thread and
/// step, the row's full inputs kept in registers when `cache`, and read as
/// read-once data (no L1 allocation, 256-byte L2 prefetch) when `stream`.
/// With `splits` > 1 (one reduction, or a softmax's max and sum), each row is
/// cut into `splits` chunks: a `partial` kernel reduces each chunk with one
/// block into the workspace; for values per row only, a `finish` kernel, a
/// warp per row, combines the chunks in order and writes them; for
/// whole-row outputs an `apply` kernel, a block per chunk again, each of its
/// warps combining the row's chunks so, writes the rows. With `cluster` > 1
/// (sm_90), each row is cut into `cluster` chunks over the blocks of one
/// thread-block cluster, a block per chunk: the blocks combine their
/// reductions through distributed shared memory in one launch, and the
/// row's later passes read the chunk from shared memory when `staged` (the
/// row read from memory once), else from memory again (mostly L2). With `exchange` as well, the `cluster`
/// blocks of a row are any blocks of the launch, on any chip: each block
/// takes the next ticket of a counter in the workspace (its row and chunk),
/// and the blocks of a row exchange their reductions through the workspace,
/// each waiting until all have published (RowsCluster.cpp).
struct RowPlan {
  int group, blockThreads, vector;
  bool cache = false;
  int64_t splits = 1;
  bool stream = false;
  int cluster = 1;
  bool staged = false;
  bool exchange = false;
};

/// The columns of each chunk of a row of `cols` columns cut into `chunks`
/// (whole vectors of `vector`; the last chunk may be shorter).
int64_t chunkColumns(int64_t cols, int64_t chunks, int vector);

/// The variant `plan` gives for the row program `rs` of `region`.
FailureOr<Variant> writeRows(const LinalgRegion &region, const RowShape &rs,
                             const RowPlan &plan, std::string &why);

/// Each thread's value of one reduction in a pass: its combiner, C type and
/// accumulator.
struct PassAccumulator {
  Combiner combiner;
  std::string ctype, acc;
};

/// Writes one row-program variant, piece by piece, into one source.
class RowKernelWriter {
public:
  RowKernelWriter(const LinalgRegion &region, const RowShape &rs,
                  const RowPlan &plan, std::string &why);

  FailureOr<Variant> write();

private:
  /// Per-element statements of one pass: (evaluator, lane, indices, why).
  using EmitFn = llvm::function_ref<LogicalResult(
      ElementEvaluator &, int, ArrayRef<std::string>, std::string &)>;

  // Rows.cpp: the row kernel.
  /// The first lines of a row kernel (a group per row) and its step loop.
  void writeRowHeader();
  /// The row's full inputs loaded into registers (cache).
  void writeCachedInputs();
  /// One pass over the row's columns: `emit` writes the per-element
  /// statements; `capture` names whole-row tensors to keep in registers.
  FailureOr<std::string>
  writePass(EmitFn emit, const llvm::DenseMap<Value, std::string> &known,
            ArrayRef<Value> capture = {});
  /// Statements for values of one per row, which every thread computes,
  /// with inputs read at `row`.
  FailureOr<std::string>
  writePerRow(llvm::function_ref<LogicalResult(ElementEvaluator &)> emit);
  /// A generic over the rows only: one value per row.
  LogicalResult writePerRowGeneric(linalg::GenericOp g);
  /// A reduction over the row, with the later ones that read nothing
  /// computed per row: one pass, then each across the group.
  LogicalResult writeReduction(linalg::GenericOp g);
  /// Reduction `g`'s value, its thread values `acc` already combined across
  /// the row (combineAcross): the fill's value combined once.
  void writeReducedValue(linalg::GenericOp g, const Combiner &combiner,
                         const std::string &ctype, const std::string &acc);
  /// One pass's thread values, each combined across the group (and, split,
  /// across the row's chunks; in a cluster, across its blocks): every thread
  /// ends with the row's values in the accumulators.
  void combineAcross(ArrayRef<PassAccumulator> accs);
  /// The statements combining `a`'s thread values across a warp (shuffles).
  std::string warpCombineOf(const PassAccumulator &a) const;
  /// The statements combining `a`'s thread values across the group: the
  /// warp's, then (a group of several warps) the warps' partials through a
  /// shared array of its own.
  std::string combineInGroup(const PassAccumulator &a);
  /// The outputs of one value per row, from `rowValueWriter`.
  LogicalResult writePerRowOutputs();
  /// The whole-row outputs in a last pass.
  LogicalResult writeWholeRowOutputs();
  /// The variant of a row kernel.
  Variant makeRowsVariant() const;

  // OnlineSoftmax.cpp.
  /// A softmax's max and sum of exponentials in one pass over the row.
  LogicalResult writeOnlineSoftmax(linalg::GenericOp max, linalg::GenericOp sum,
                                   const Combiner &maxOf, StringRef m,
                                   unsigned n);
  /// The same over a chunk staged in shared memory whose blocks exchange
  /// through the workspace: the block's max, then its exponentials written
  /// over the chunk and their sum, then one exchange of the pair (false: x
  /// is not a staged input).
  FailureOr<bool> writeStagedSoftmax(linalg::GenericOp max,
                                     linalg::GenericOp sum,
                                     const Combiner &maxOf, StringRef m,
                                     StringRef s, unsigned n);

  // RowMoments.cpp: centered second moments from the first pass.
  /// The reductions of `sum((a - m)^2)` form in f64, `m` a value per row
  /// (a batch norm's variance): `moments`, with the first pass's
  /// accumulators of `a` and `a * a`; a reduction of the pass (`passSums`:
  /// each with its accumulator) that sums `a` already is `a`'s.
  void findCenteredMoments(
      linalg::GenericOp first,
      ArrayRef<std::pair<linalg::GenericOp, std::string>> passSums);
  /// Each moment's `a` and `a * a` at the element `idx` of the first pass,
  /// added to their accumulators.
  LogicalResult accumulateMoments(ElementEvaluator &eval,
                                  ArrayRef<std::string> idx, std::string &why);
  /// The moments' accumulators, combined across the row with the first
  /// pass's.
  void addMomentAccumulators(SmallVectorImpl<PassAccumulator> &accs) const;
  /// The moment `g` from its sums, once its `m` is known.
  LogicalResult writeCenteredMoment(linalg::GenericOp g);

  // RowsCluster.cpp: a row over the blocks of a thread-block cluster.
  /// Whether the region fits a cluster kernel (reductions in f32).
  LogicalResult checkCluster();
  /// The first lines of a kernel over a cluster block's chunk of its row,
  /// its step loop and (staged) the chunk's inputs copied to shared memory.
  void writeClusterHeader();
  /// Combines each thread's `values` (of C type `ctype`: the block's, the
  /// same in every thread) with the other blocks' of the cluster in rank
  /// order, through distributed shared memory; `merge(into, other)` writes
  /// one combination of `other`'s values into `into`'s.
  void writeClusterCombine(
      StringRef ctype, ArrayRef<std::string> values,
      llvm::function_ref<std::string(ArrayRef<std::string>,
                                     ArrayRef<std::string>)>
          merge);
  /// writeClusterCombine() where the blocks exchange through the workspace
  /// (exchange), each value of its own C type (`ctypes`): one wait for all
  /// of them; `slot` names the combination's temporaries.
  void writeExchangeCombine(
      ArrayRef<std::string> ctypes, StringRef slot, ArrayRef<std::string> values,
      llvm::function_ref<std::string(ArrayRef<std::string>,
                                     ArrayRef<std::string>)>
          merge);
  /// The variant of a cluster row.
  Variant makeClusterVariant() const;

  // RowsSplit.cpp: the split row's partial, finish and apply kernels.
  /// Whether the region can be split (one reduction or a softmax's pair).
  LogicalResult checkSplit();
  /// The first lines of a kernel over a block's chunk of its row, and its
  /// step loop.
  void writeChunkHeader();
  /// Ends the partial kernel with thread 0's `stores` and starts the
  /// kernel that combines each row's partials (the finish kernel, or the
  /// apply kernel where the row has whole-row outputs) with the values per
  /// row the partial computed before. Its `lane` combines them.
  void beginFinish(StringRef stores);
  /// The pass's partials into the workspace (an array of rows x splits
  /// each) and the next kernel's combination of each row's partials, then
  /// across its warp (`warpCombines`).
  void writeSplitReduction(ArrayRef<PassAccumulator> accs,
                           ArrayRef<std::string> warpCombines);
  /// The variant of a split row.
  Variant makeSplitVariant() const;

  const LinalgRegion &region;
  const RowShape &rs;
  int group, blockThreads, vector;
  bool cache;
  int64_t splits;
  bool stream;
  int cluster;
  bool staged;
  bool exchange;
  std::string &why;

  int64_t step, per;
  bool split;
  /// A chunk of whole vectors per block (split).
  int64_t chunk;
  int rowsPerBlock;
  /// The partials' part of the workspace.
  int64_t partialBytes = 0;
  /// Block-wide combinations written so far (names their shared arrays).
  unsigned blockCombines = 0;
  /// A cluster block's dynamic shared memory (staged chunks).
  int64_t stagedBytes = 0;
  /// Cross-block combinations written so far (cluster).
  unsigned clusterCombines = 0;
  /// The exchange's workspace: the ticket and a counter per row, then each
  /// combination's values, an array of rows x blocks per value.
  int64_t exchangeBytes = 0;
  /// The source written so far.
  std::string src;
  SmallVector<std::string> rowIdx;
  /// Each thread's steps over the row: `vector` consecutive columns from c.
  std::string stepLoop;
  /// A block's chunk of its row (the partial and apply kernels of a split).
  std::string chunkHeader;
  /// The apply kernel's steps over its chunk: stepLoop's, last first.
  std::string applyStepLoop;
  std::string rowStart;
  /// The statements of the values per row computed before the reduction,
  /// which the finish kernel computes again.
  std::string rowPrefix;
  unsigned counter = 0;
  SmallVector<int64_t> fullShape;
  /// Whole-row tensors a reduction pass computed and later passes read
  /// again (softmax's exponentials): kept in registers when the inputs are.
  llvm::DenseMap<Value, std::string> cachedTensors;
  llvm::DenseMap<Value, std::string> known;
  /// The whole-row inputs a cluster block keeps its chunk of in shared
  /// memory (staged): input number to its array.
  llvm::DenseMap<unsigned, std::string> stagedInputs;
  /// Whole-row tensors a pass wrote over a staged chunk, each read back as
  /// (array, factor): its element times the factor, a value per row (a
  /// softmax's exponentials against the block's own max, rescaled to the
  /// row's).
  llvm::DenseMap<Value, std::pair<std::string, std::string>> stagedTensors;
  unsigned reductions = 0;
  /// Reductions computed in an earlier reduction's pass: a softmax's sum
  /// with its max (online softmax), an independent reduction with the one
  /// before it.
  llvm::SmallPtrSet<Operation *, 2> computedEarlier;
  /// A centered second moment sum((a - m)^2) of the row: `a` and `m`, and
  /// the accumulators of a and a * a in the first pass.
  struct CenteredMoment {
    Value a, m;
    Combiner add;
    std::string sum, squares;
    /// Whether `sum` is a reduction of the pass's (not accumulated here).
    bool passSum = false;
  };
  llvm::MapVector<Operation *, CenteredMoment> moments;
  /// Which thread writes a value per row.
  std::string rowValueWriter = "t == 0";
  /// The outputs that are whole rows (written in the last pass; a split
  /// row's apply kernel).
  SmallVector<unsigned> fullOutputs;
};

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_ROWS_H
