//===- TransposedConvolutions.cpp - A strided transposed conv by phases ---===//
//
// See TransposedConvolutions.h. Along one spatial dimension, with the grid
// G holding x[i] at offset + s i (x of n elements) and zeros elsewhere, a
// filter of K taps and O outputs: the outputs of phase p are o = p + s q
// for q < Q = ceil((O - p) / s); they read G at p + s q + k, which holds
// an element of x only for k = k0 + s t (t < T = ceil((K - k0) / s)), and
// that element is x[q + t + c] with c = (p + k0 - offset) / s. So phase
// p is a stride-1 convolution of x[c, c + Q + T - 1) (what lies outside x
// a zero pad) with the taps k0, k0 + s, ... of the filter. A phase with no
// tap or no element of x is its part of the convolution's init.
//
// A filter of dilation d reads G at p + s q + d k: the taps that land on x
// are those with d k = offset - p (mod s), none unless g = gcd(d, s)
// divides offset - p, else k = k0 + (s / g) t, which read x[q + c + (d / g)
// t] with c = (p + d k0 - offset) / s: a stride-1 convolution of dilation
// d / g with every (s / g)-th tap from k0.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/TransposedConvolutions.h"
#include "cuda-agent/Outline/DeadProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace {

/// One spatial dimension of a phase: where its outputs start and how many
/// there are, its taps, and the window of x they read.
struct PhaseDim {
  int64_t phase = 0, outputs = 0, firstTap = 0, taps = 0;
  /// Taps apart in the filter, and the phase convolution's dilation.
  int64_t tapStep = 1, dilation = 1;
  /// The window of x read, [start, start + length), and the part of it
  /// inside x, [begin, end): zeros are padded before and after that.
  int64_t start = 0, length = 0, begin = 0, end = 0;
  int64_t low() const { return begin - start; }
  int64_t high() const { return start + length - end; }
  /// Whether the phase multiplies anything but zeros.
  bool reads() const { return taps > 0 && begin < end; }
};

/// The spatial dimensions of a convolution over a zero grid.
struct GridShape {
  SmallVector<int64_t> offsets, strides, dilations, inputs, filter, outputs;
};

} // namespace

/// Whether every element of `attr` (a convolution's strides or dilations)
/// is 1.
static bool isAllOnes(DenseIntElementsAttr attr) {
  return attr && llvm::all_of(attr.getValues<int64_t>(),
                              [](int64_t v) { return v == 1; });
}

/// The phase `p` of one spatial dimension `d`.
static PhaseDim getPhaseDim(const GridShape &g, unsigned d, int64_t p) {
  PhaseDim pd;
  int64_t s = g.strides[d], off = g.offsets[d], K = g.filter[d];
  int64_t dil = g.dilations[d], gcd = std::gcd(dil, s);
  pd.phase = p;
  pd.outputs = p < g.outputs[d] ? (g.outputs[d] - p + s - 1) / s : 0;
  pd.tapStep = s / gcd;
  pd.dilation = dil / gcd;
  // The first tap k0 with d k0 = offset - p (mod s), if any: one of the
  // first s / g.
  pd.firstTap = K;
  for (int64_t k = 0; k < pd.tapStep && pd.firstTap == K; ++k)
    if (((dil * k - (off - p)) % s + s) % s == 0)
      pd.firstTap = k;
  pd.taps = pd.firstTap < K ? (K - pd.firstTap + pd.tapStep - 1) / pd.tapStep
                            : 0;
  if (pd.taps == 0)
    return pd;
  // Exact: p + d k0 - offset is a multiple of s.
  pd.start = (p + dil * pd.firstTap - off) / s;
  pd.length = pd.outputs + pd.dilation * (pd.taps - 1);
  pd.begin = std::max<int64_t>(0, pd.start);
  pd.end = std::min(g.inputs[d], pd.start + pd.length);
  return pd;
}

/// The zero-fill grid `conv` reads and its shape, if its input is one.
static FailureOr<std::pair<tensor::InsertSliceOp, GridShape>>
matchGrid(linalg::LinalgOp conv) {
  auto strides = conv->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = conv->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!isAllOnes(strides) || !conv.hasPureTensorSemantics() ||
      conv->getNumResults() != 1)
    return failure();
  auto insert =
      conv.getDpsInputOperand(0)->get().getDefiningOp<tensor::InsertSliceOp>();
  if (!insert || ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
      ShapedType::isDynamicShape(insert.getStaticSizes()) ||
      ShapedType::isDynamicShape(insert.getStaticStrides()))
    return failure();
  auto fill = insert.getDest().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return failure();
  auto x = cast<RankedTensorType>(insert.getSource().getType());
  auto w = cast<RankedTensorType>(conv.getDpsInputOperand(1)->get().getType());
  auto out = cast<RankedTensorType>(conv->getResult(0).getType());
  if (!x.hasStaticShape() || !w.hasStaticShape() || !out.hasStaticShape() ||
      x.getRank() != insert.getType().getRank())
    return failure();
  ArrayRef<int64_t> offsets = insert.getStaticOffsets();
  ArrayRef<int64_t> steps = insert.getStaticStrides();
  GridShape g;
  bool strided = false;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    // Whole along the batch and the channels.
    if (d < 2) {
      if (offsets[d] != 0 || steps[d] != 1 ||
          x.getDimSize(d) != insert.getType().getDimSize(d))
        return failure();
      continue;
    }
    if (steps[d] < 1)
      return failure();
    strided |= steps[d] > 1;
    g.offsets.push_back(offsets[d]);
    g.strides.push_back(steps[d]);
    g.dilations.push_back(dilations ? dilations.getValues<int64_t>()[d - 2]
                                    : 1);
    g.inputs.push_back(x.getDimSize(d));
    g.filter.push_back(w.getDimSize(d));
    g.outputs.push_back(out.getDimSize(d));
  }
  if (!strided)
    return failure();
  return std::make_pair(insert, g);
}

/// A static slice of `source`: `sizes` from `offsets`, every `strides`.
static Value sliceOf(OpBuilder &b, Location loc, Value source,
                     ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(source.getType());
  if (llvm::equal(sizes, type.getShape()))
    return source;
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(sizes, type.getElementType()), source,
      ValueRange{}, ValueRange{}, ValueRange{}, offsets, sizes, strides);
}

/// The part of the convolution's init `init` at the phase's outputs: a
/// broadcast (a bias) or fill of the part's shape where `init` is one, so
/// the whole init is never made; else a strided slice of it.
static Value initOf(OpBuilder &b, Location loc, Value init,
                    ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                    ArrayRef<int64_t> strides) {
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>()) {
    ArrayRef<int64_t> dims = broadcast.getDimensions();
    // The phase's part of the input broadcast: whole where it is not
    // strided, else the phase's elements of it.
    SmallVector<int64_t> inOffsets, inSizes, inStrides;
    for (int64_t d = 0, e = sizes.size(); d < e; ++d) {
      if (llvm::is_contained(dims, d))
        continue;
      inOffsets.push_back(offsets[d]);
      inSizes.push_back(sizes[d]);
      inStrides.push_back(strides[d]);
    }
    Value input = sliceOf(b, loc, broadcast.getInput(), inOffsets, inSizes,
                          inStrides);
    Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
    return linalg::BroadcastOp::create(b, loc, input, empty, dims)
        .getResult()[0];
  }
  return sliceOf(b, loc, init, offsets, sizes, strides);
}

/// Whether each result of `map` is a loop or a constant 0 (torch-mlir reads
/// a bias of shape (C, 1, 1) at `(n, c, h, w) -> (c, 0, 0)`).
static bool isProjection(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return isa<AffineDimExpr>(e) || (c && c.getValue() == 0);
  });
}

/// The elementwise epilogue of a convolution's result `value`: the chain of
/// generics, each over the result's shape, all-parallel, writing its one
/// result at the identity, reading the chain's last value (and nothing
/// else reading it) at the identity and its other operands by projections
/// of the loops (a bias per channel, another tensor of the shape). Each
/// phase applies it to its own part, so the epilogue joins the phase's
/// convolution region.
static SmallVector<linalg::GenericOp> findEpilogue(Value value) {
  SmallVector<linalg::GenericOp> chain;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
  while (!value.use_empty()) {
    auto g = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
    if (!g || llvm::any_of(value.getUsers(),
                           [&](Operation *user) { return user != g; }) ||
        g.getNumResults() != 1 || g.getNumReductionLoops() != 0 ||
        !g.hasPureTensorSemantics() || g.getStaticLoopRanges() != shape)
      break;
    bool ok = true;
    for (OpOperand &operand : g->getOpOperands()) {
      AffineMap map = g.getMatchingIndexingMap(&operand);
      bool chained = operand.get() == value;
      ok &= chained || g.isDpsInit(&operand) ? map.isIdentity()
                                             : isProjection(map);
      ok &= !(chained && g.isDpsInit(&operand));
    }
    if (!ok)
      break;
    chain.push_back(g);
    value = g.getResult(0);
  }
  return chain;
}

/// The phase `dims` of `conv` (over the grid of `x`) into `part`, its init:
/// a stride-1 convolution of the window of x (zero-padded where it leaves
/// x) with the phase's taps of the filter.
static Value convolvePhase(OpBuilder &b, Location loc, linalg::LinalgOp conv,
                           Value x, ArrayRef<PhaseDim> dims,
                           const GridShape &g, Value part) {
  Value w = conv.getDpsInputOperand(1)->get();
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  Type xElement = xType.getElementType();
  int64_t N = xType.getDimSize(0), C = xType.getDimSize(1);
  SmallVector<int64_t> xOffsets{0, 0}, xSizes{N, C}, padded{N, C};
  SmallVector<int64_t> ones(2 + dims.size(), 1);
  SmallVector<int64_t> wOffsets{0, 0};
  SmallVector<int64_t> wSizes{wType.getDimSize(0), wType.getDimSize(1)};
  SmallVector<int64_t> wStrides{1, 1};
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)),
      high(2, b.getIndexAttr(0));
  bool pads = false;
  for (auto [d, pd] : llvm::enumerate(dims)) {
    xOffsets.push_back(pd.begin);
    xSizes.push_back(pd.end - pd.begin);
    low.push_back(b.getIndexAttr(pd.low()));
    high.push_back(b.getIndexAttr(pd.high()));
    padded.push_back(pd.length);
    pads |= pd.low() > 0 || pd.high() > 0;
    wOffsets.push_back(pd.firstTap);
    wSizes.push_back(pd.taps);
    wStrides.push_back(pd.tapStep);
  }
  Value window = sliceOf(b, loc, x, xOffsets, xSizes, ones);
  if (pads) {
    Value zero = arith::ConstantOp::create(b, loc, xElement,
                                           b.getZeroAttr(xElement));
    window = tensor::PadOp::create(
        b, loc, RankedTensorType::get(padded, xElement), window, low, high,
        zero);
  }
  Value taps = sliceOf(b, loc, w, wOffsets, wSizes, wStrides);
  Operation *phase =
      clone(b, conv, TypeRange{part.getType()}, ValueRange{window, taps, part});
  SmallVector<int64_t> dilations =
      llvm::map_to_vector(dims, [](const PhaseDim &pd) { return pd.dilation; });
  phase->setAttr("dilations", b.getI64VectorAttr(dilations));
  // The maps the clone memoized are the original's dilation's.
  phase->removeAttr(linalg::LinalgDialect::kMemoizedIndexingMapsAttrName);
  return phase->getResult(0);
}

/// `epilogue` applied to `part`, the phase of the convolution's result
/// `convResult` at `offsets`, `sizes` and `strides`: each generic cloned
/// over the part, its other operands sliced to the phase where the loops
/// read them.
static Value applyEpilogue(OpBuilder &b, Location loc,
                           ArrayRef<linalg::GenericOp> epilogue,
                           Value convResult, Value part,
                           ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                           ArrayRef<int64_t> strides) {
  Value chained = convResult;
  for (linalg::GenericOp op : epilogue) {
    SmallVector<Value> operands;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (v == chained) {
        operands.push_back(part);
        continue;
      }
      auto type = cast<RankedTensorType>(v.getType());
      if (op.isDpsInit(&operand) && v.getDefiningOp<tensor::EmptyOp>()) {
        operands.push_back(
            tensor::EmptyOp::create(b, loc, sizes, type.getElementType()));
        continue;
      }
      SmallVector<int64_t> vOffsets, vSizes, vStrides;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [r, e] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(e);
        // A constant 0, a batch or channel loop: all of it.
        if (!loop || loop.getPosition() < 2) {
          vOffsets.push_back(0);
          vSizes.push_back(type.getDimSize(r));
          vStrides.push_back(1);
          continue;
        }
        vOffsets.push_back(offsets[loop.getPosition()]);
        vSizes.push_back(sizes[loop.getPosition()]);
        vStrides.push_back(strides[loop.getPosition()]);
      }
      operands.push_back(sliceOf(b, loc, v, vOffsets, vSizes, vStrides));
    }
    Type type = RankedTensorType::get(
        sizes,
        cast<RankedTensorType>(op.getResult(0).getType()).getElementType());
    part = clone(b, op, TypeRange{type}, operands)->getResult(0);
    chained = op.getResult(0);
  }
  return part;
}

/// Rewrites `conv` over the grid `insert` by phases.
static void splitByPhases(linalg::LinalgOp conv, tensor::InsertSliceOp insert,
                          const GridShape &g) {
  SmallVector<linalg::GenericOp> epilogue = findEpilogue(conv->getResult(0));
  // Before the epilogue's last op: everything it reads is defined there.
  IRRewriter b(epilogue.empty() ? conv.getOperation()
                                : epilogue.back().getOperation());
  Location loc = conv.getLoc();
  Value x = insert.getSource(), init = conv.getDpsInitOperand(0)->get();
  auto outType = cast<RankedTensorType>(conv->getResult(0).getType());
  Value last = epilogue.empty() ? conv->getResult(0)
                                : epilogue.back()->getResult(0);
  Value result = tensor::EmptyOp::create(
      b, loc, outType.getShape(),
      cast<RankedTensorType>(last.getType()).getElementType());
  unsigned spatial = g.strides.size();
  // Every phase, the last spatial dimension's fastest.
  SmallVector<int64_t> phase(spatial, 0);
  while (true) {
    SmallVector<PhaseDim> dims;
    SmallVector<int64_t> outOffsets{0, 0}, outStrides{1, 1};
    SmallVector<int64_t> outSizes{outType.getDimSize(0),
                                  outType.getDimSize(1)};
    bool empty = false, reads = true;
    for (unsigned d = 0; d < spatial; ++d) {
      PhaseDim pd = getPhaseDim(g, d, phase[d]);
      outOffsets.push_back(pd.phase);
      outSizes.push_back(pd.outputs);
      outStrides.push_back(g.strides[d]);
      empty |= pd.outputs == 0;
      reads &= pd.reads();
      dims.push_back(pd);
    }
    if (!empty) {
      Value part = initOf(b, loc, init, outOffsets, outSizes, outStrides);
      if (reads)
        part = convolvePhase(b, loc, conv, x, dims, g, part);
      part = applyEpilogue(b, loc, epilogue, conv->getResult(0), part,
                           outOffsets, outSizes, outStrides);
      result = tensor::InsertSliceOp::create(b, loc, part, result, ValueRange{},
                                             ValueRange{}, ValueRange{},
                                             outOffsets, outSizes, outStrides);
    }
    // The next phase.
    int d = int(spatial) - 1;
    while (d >= 0 && ++phase[d] == g.strides[d])
      phase[d--] = 0;
    if (d < 0)
      break;
  }
  last.replaceAllUsesWith(result);
  for (linalg::GenericOp op : llvm::reverse(epilogue))
    b.eraseOp(op);
  b.eraseOp(conv);
  // The grid and the whole init, where nothing else reads them.
  eraseDeadProducers(b, {insert.getResult(), init});
}

unsigned cuda_agent::splitTransposedConvolutions(Operation *root) {
  SmallVector<linalg::LinalgOp> convs;
  root->walk([&](linalg::LinalgOp op) {
    if (isa<linalg::Conv1DNcwFcwOp, linalg::Conv2DNchwFchwOp,
            linalg::Conv3DNcdhwFcdhwOp>(op.getOperation()))
      convs.push_back(op);
  });
  unsigned split = 0;
  for (linalg::LinalgOp conv : convs) {
    auto grid = matchGrid(conv);
    if (failed(grid))
      continue;
    splitByPhases(conv, grid->first, grid->second);
    ++split;
  }
  return split;
}
