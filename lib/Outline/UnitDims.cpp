//===- UnitDims.cpp - Drop unit dimensions before outlining -----*- C++ -*-===//
//
// See UnitDims.h. Two upstream rewrites, driven as upstream drives them.
// First the rank-reducing contraction patterns
// (populateContractionOpRankReducingPatterns), applied to the named
// contractions only and to what they create: a matmul with one column is a
// matvec, with one row a vecmat, a batch_matmul of one batch a matmul. Then,
// when some generic reads a keepdim operand or some contraction was
// reduced, the unit-extent folding of generics (populateFoldUnitExtentDims*):
// one walk for the dropping patterns, which are not meant for a greedy
// driver, then the canonicalizations that fold `collapse_shape(expand_shape(
// x))` back to `x` and reshapes of fills into smaller fills. The products
// that kept their rank and the generics around them keep their shapes; those
// around a reduced contraction lose their unit dimensions with it, so the
// reshapes it leaves meet and fold.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/UnitDims.h"
#include "cuda-agent/Outline/DimensionRoles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::cuda_agent;

static bool isProduct(linalg::LinalgOp op) {
  return linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op);
}

static bool readsKeepdim(linalg::GenericOp op) {
  return llvm::any_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return llvm::any_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>);
  });
}

namespace {
/// Collects the contractions a rewrite creates and still holds at its end.
struct CreatedContractions : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (isa<linalg::ContractionOpInterface>(op))
      ops.insert(op);
  }
  void notifyOperationErased(Operation *op) override { ops.erase(op); }
  DenseSet<Operation *> ops;
};
} // namespace

/// Whether the rank-reducing patterns may rewrite `op`: not into a dot (a
/// rank-0 result has nothing to launch over), and into a matrix-vector
/// product only when the memory-bound kernels that take those can take it
/// with what the outliner fuses with it: it accumulates from a fill (a
/// product that starts from a bias keeps its rank and the matmul kernels,
/// which read the bias), and a matvec's vector is not computed by an
/// elementwise generic (a layer norm's normalization before a linear layer
/// on one row: the outliner fuses it as a prologue over the reduced
/// dimension, which the row kernels do not read).
static bool mayRankReduce(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return false;
  Value init = op.getDpsInitOperand(0)->get();
  auto type = dyn_cast<RankedTensorType>(init.getType());
  if (!type || !type.hasStaticShape() ||
      llvm::all_of(type.getShape(), [](int64_t size) { return size == 1; }))
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto unit = [&](ArrayRef<unsigned> loops) {
    return !loops.empty() &&
           llvm::all_of(loops, [&](unsigned d) { return ranges[d] == 1; });
  };
  bool toMatrixVector = unit(dims->m) || unit(dims->n);
  if (!toMatrixVector)
    return true;
  if (!init.getDefiningOp<linalg::FillOp>())
    return false;
  // A vecmat takes an elementwise epilogue: the split column reductions run
  // it in their finish launch.
  bool toVecmat = unit(dims->m) && !unit(dims->n);
  bool ofTranspose =
      isa<linalg::MatmulOp>(op) &&
      op.getDpsInputOperand(1)->get().getDefiningOp<linalg::TransposeOp>();
  if (toVecmat && !ofTranspose)
    return true;
  // A matvec (a vecmat of a transpose becomes one).
  Value vector = op.getDpsInputOperand(toVecmat ? 0 : 1)->get();
  auto producer = vector.getDefiningOp<linalg::GenericOp>();
  return !producer || producer.getNumReductionLoops() != 0;
}

namespace {
/// A vecmat of a transposed matrix is a matvec of the matrix, and the other
/// way round: `x^T (W^T)` is `W x` term for term. torch-mlir's linear layer
/// on one row transposes its weight before the matmul; the matvec reads the
/// weight's rows where they lie, and the transpose goes.
template <typename FromOpTy, typename ToOpTy>
struct ProductOfTranspose : OpRewritePattern<FromOpTy> {
  using OpRewritePattern<FromOpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(FromOpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool matrixFirst = std::is_same_v<FromOpTy, linalg::MatvecOp>;
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2)
      return rewriter.notifyMatchFailure(op, "not a product on tensors");
    Value matrix = op.getDpsInputs()[matrixFirst ? 0 : 1];
    Value vector = op.getDpsInputs()[matrixFirst ? 1 : 0];
    auto transpose = matrix.getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "the matrix is no transpose");
    Value source = transpose.getInput();
    Value init = op.getDpsInits()[0];
    SmallVector<Value, 2> inputs =
        matrixFirst ? SmallVector<Value, 2>{vector, source}
                    : SmallVector<Value, 2>{source, vector};
    rewriter.replaceOpWithNewOp<ToOpTy>(op, TypeRange{init.getType()}, inputs,
                                        ValueRange{init});
    return success();
  }
};
} // namespace

/// Rewrites the named contractions under `root` that have a unit batch, row
/// or column dimension (mayRankReduce) into their named form of lower rank,
/// between a collapse_shape of their operands and an expand_shape of their
/// result, until none is left, and a vecmat or matvec of a transpose into
/// the other one of the transpose's input. Returns the contractions it
/// created.
static DenseSet<Operation *> rankReduceContractions(Operation *root) {
  SmallVector<Operation *> contractions;
  root->walk([&](linalg::ContractionOpInterface op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op.getOperation());
    if (linalgOp && mayRankReduce(linalgOp))
      contractions.push_back(op);
  });
  CreatedContractions created;
  if (contractions.empty())
    return created.ops;
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  linalg::populateContractionOpRankReducingPatterns(patterns);
  patterns.add<ProductOfTranspose<linalg::VecmatOp, linalg::MatvecOp>,
               ProductOfTranspose<linalg::MatvecOp, linalg::VecmatOp>>(
      context);
  // Only the contractions and what the patterns create; no folding, so the
  // rest of the program is as it was.
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
      .enableFolding(false)
      .enableConstantCSE(false)
      .setListener(&created);
  (void)applyOpPatternsGreedily(contractions, std::move(patterns), config);
  return created.ops;
}

/// The reassociation (upstream's) that collapses `shape` to its dimensions
/// that are not 1, which it appends to `kept`.
static SmallVector<ReassociationIndices>
collapseUnitDims(ArrayRef<int64_t> shape, SmallVectorImpl<int64_t> &kept) {
  llvm::append_range(kept, llvm::make_filter_range(
                               shape, [](int64_t size) { return size != 1; }));
  return getReassociationIndicesForCollapse(shape, kept).value_or(
      SmallVector<ReassociationIndices>{});
}

namespace {
/// A linalg.transpose that only moves dimensions of size 1 (torch-mlir's
/// transposed weight of a linear layer with one output feature, 1xK into
/// Kx1) is a reshape: its input collapsed to the dimensions that are not 1,
/// expanded to its result's shape. Reshapes are views, and these fold with
/// those around a reduced contraction.
struct TransposeOfUnitDims : OpRewritePattern<linalg::TransposeOp> {
  TransposeOfUnitDims(MLIRContext *context,
                      std::function<bool(Operation *)> isKept)
      : OpRewritePattern(context), isKept(std::move(isKept)) {}

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (isKept(op))
      return rewriter.notifyMatchFailure(op, "a product's operand producer");
    auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto result = dyn_cast<RankedTensorType>(op.getInit().getType());
    if (!op.hasPureTensorSemantics() || !input || !result ||
        !input.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a static tensor transpose");
    if (movesDataDims(op.getPermutation(), input.getShape()))
      return rewriter.notifyMatchFailure(op, "it moves a dimension that is "
                                             "not 1");
    SmallVector<int64_t> shape, sameShape;
    SmallVector<ReassociationIndices> collapse =
        collapseUnitDims(input.getShape(), shape);
    SmallVector<ReassociationIndices> expand =
        collapseUnitDims(result.getShape(), sameShape);
    Location loc = op.getLoc();
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, input.getElementType()),
        op.getInput(), collapse);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, result, collapsed,
                                                       expand);
    return success();
  }

  std::function<bool(Operation *)> isKept;
};
} // namespace

/// Whether `reduction`, reading `value` (the result of convolution `conv` or
/// of its epilogue, which keeps its indices) through a permutation, reduces
/// over the convolution's output channels (the dimensions its filter indexes
/// and its input does not) and nothing else: the reduction the grouping may
/// fuse into the convolution's region. A pooling's window has no channels: a
/// mean over the pixels after a pooling (adaptive average pooling) is a
/// region of its own and loses its keepdim dimensions.
static bool reducesConvolutionChannels(linalg::LinalgOp conv,
                                       linalg::GenericOp reduction,
                                       Value value) {
  if (value.getType() != conv->getResult(0).getType())
    return false;
  auto iterators = reduction.getIteratorTypesArray();
  bool readsSome = false;
  for (OpOperand *read : reduction.getDpsInputOperands()) {
    if (read->get() != value)
      continue;
    if (!reducedOutputChannels(conv, reduction.getMatchingIndexingMap(read),
                               iterators))
      return false;
    readsSome = true;
  }
  return readsSome;
}

/// The products under `root` that are not in `reduced` and the generics the
/// outliner may fuse with them: the elementwise chain after a product (its
/// epilogue, up to the ops that read a keepdim value) with, after a
/// convolution, the reductions that read it (a min over the channels, which
/// the grouping fuses into the convolution's region; reductions over other
/// dimensions are not: reducesConvolutionChannels; not followed further), and
/// a product's elementwise operand producers (casts, transposes; not followed
/// further). A reshape between any two of them would split a
/// product from what it fuses. A reduction after a contraction is a region
/// of its own (a linear layer's softmax or sum), so it loses its unit
/// dimensions like any other generic and its keepdim output becomes a row.
/// What comes before a prologue (a layer norm feeding a linear layer) is not
/// part of it.
static DenseSet<Operation *>
productNeighbourhoods(Operation *root, const DenseSet<Operation *> &reduced) {
  DenseSet<Operation *> kept;
  // Each op of an epilogue with its product when that is a convolution.
  SmallVector<std::pair<Operation *, linalg::LinalgOp>> work;
  auto isElementwise = [](linalg::LinalgOp op) {
    return op.getNumReductionLoops() == 0;
  };
  root->walk([&](linalg::LinalgOp op) {
    if (!isProduct(op) || reduced.contains(op) || !kept.insert(op).second)
      return;
    work.push_back({op, linalg::isaConvolutionOpInterface(op)
                            ? op
                            : linalg::LinalgOp()});
    for (Value operand : op->getOperands())
      if (auto producer = operand.getDefiningOp<linalg::LinalgOp>())
        if (isa<linalg::GenericOp, linalg::TransposeOp>(producer) &&
            isElementwise(producer))
          kept.insert(producer);
  });
  while (!work.empty()) {
    auto [op, convolution] = work.pop_back_val();
    for (Operation *user : op->getUsers()) {
      auto generic = dyn_cast<linalg::GenericOp>(user);
      // An elementwise op that reads a keepdim value (a row's max or sum, as
      // a softmax after a linear layer reads them) waits for a reduction of
      // the epilogue: the product cannot fuse it, so it is no epilogue and
      // its unit dimensions go like any other generic's.
      if (!generic || (isElementwise(generic) && readsKeepdim(generic)) ||
          (!isElementwise(generic) &&
           (!convolution || !reducesConvolutionChannels(
                                convolution, generic, op->getResult(0)))))
        continue;
      if (kept.insert(generic).second && isElementwise(generic))
        work.push_back({generic, convolution}); // the epilogue goes on
    }
  }
  return kept;
}

LogicalResult cuda_agent::dropUnitDims(Operation *root) {
  bool keepdim = false;
  root->walk([&](linalg::GenericOp op) { keepdim |= readsKeepdim(op); });
  DenseSet<Operation *> reduced = rankReduceContractions(root);
  if (!keepdim && reduced.empty())
    return success(); // leave every other program untouched
  DenseSet<Operation *> kept = productNeighbourhoods(root, reduced);
  linalg::ControlDropUnitDims options;
  options.controlFn = [&](Operation *op) {
    SmallVector<unsigned> dims;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && !kept.contains(generic))
      dims = llvm::to_vector(llvm::seq<unsigned>(0, generic.getNumLoops()));
    // A generic of only unit loops keeps them: a rank-0 region has nothing
    // to gain and no shape to launch over.
    if (generic && llvm::all_of(generic.getStaticLoopRanges(),
                                [](int64_t range) { return range == 1; }))
      dims.clear();
    return dims;
  };
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
  patterns.add<TransposeOfUnitDims>(
      context, [&](Operation *op) { return kept.contains(op); });
  walkAndApplyPatterns(root, std::move(patterns));
  RewritePatternSet cleanup(context);
  linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(cleanup, options);
  return applyPatternsGreedily(root, std::move(cleanup));
}
