//===- SerialReduction.cpp - A thread per reduced output element ----------===//
//
// Any single reduction into a filled output: one thread per output element
// looping over the reduced dimensions in the reference's order (coalesced
// for reductions over outer dimensions). The fallback for reductions the row
// strategies do not take, and another candidate for those they do. For a
// reduction whose innermost loop is parallel (a sum over a middle
// dimension), the sliced form: a block covers 32 consecutive output
// elements with `slices` warps, each warp reducing one slice of the
// outermost reduced dimension, and the slices' partials are combined in
// order through shared memory: `slices` times the loads in flight. Wide,
// each thread sums `width` outputs 32 apart, so each warp load covers 32 x
// `width` consecutive elements of a row. Ahead of them, where the outputs
// are too few to fill the SMs (a vecmat, a sum over dim 0), the split
// kernels of SplitReduction.cpp, which also take an elementwise epilogue.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "KernelText.h"
#include "SplitReduction.h"
#include "Strategy.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

namespace {

/// The sliced kernel: warp s of a block reduces slice s of the outermost
/// reduced dimension (`loops` ... `close` around `step`) for the block's 32
/// output elements; warp 0 combines the fill and the slices in order.
Variant writeSlices(const LinalgRegion &region, linalg::GenericOp g,
                    const Combiner &combiner, StringRef step, StringRef loops,
                    StringRef close, int slices) {
  Value out = region.outputs[0];
  std::string ctype = getCType(elementOf(out))->compute;
  int64_t total = product(shapeOf(out));
  int threads = 32 * slices;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "reduce", threads) + " {\n";
  src += llvm::formatv("  __shared__ {0} part[{1}][32];\n"
                       "  const long long e = blockIdx.x * 32LL + threadIdx.x "
                       "% 32;\n"
                       "  const int s = threadIdx.x / 32;\n"
                       "  {0} acc = {2};\n"
                       "  if (e < {3}LL) {{\n",
                       ctype, slices, combiner.identity, total)
             .str();
  src += loops.str() + step.str() + close.str() + "  }\n";
  src += llvm::formatv(
             "  part[s][threadIdx.x % 32] = acc;\n"
             "  __syncthreads();\n"
             "  if (s == 0 && e < {0}LL) {{\n"
             "    acc = {1};\n"
             "    for (int q = 0; q < {2}; ++q)\n"
             "      acc = {3};\n"
             "    out0[e] = {4};\n"
             "  }\n}\n",
             total, region.splats.lookup(g.getDpsInitOperand(0)->get()),
             slices, combiner.combine("acc", "part[q][threadIdx.x % 32]"),
             storeAs(elementOf(out), "acc"))
             .str();
  return Variant{llvm::formatv("sliced-s{0}", slices).str(),
                 src,
                 {{"reduce", {(total + 31) / 32, 1, 1}, {threads, 1, 1}}}};
}

/// The wide sliced kernel: as writeSlices, but each thread sums `width`
/// output elements 32 apart, so a warp reads 32 * `width` consecutive
/// elements of a row per step (rows whose length is not a multiple of 4
/// floats leave every 128-byte warp load straddling a sector; wider runs
/// straddle less often) with `width` loads in flight per step. `steps[k]`
/// adds element `ek`'s term to `acck`. Out-of-range elements of the last
/// block read the last element (clamped) and are not written.
Variant writeWideSlices(const LinalgRegion &region, linalg::GenericOp g,
                        const Combiner &combiner, ArrayRef<std::string> steps,
                        StringRef loops, StringRef close, int slices) {
  Value out = region.outputs[0];
  std::string ctype = getCType(elementOf(out))->compute;
  int64_t total = product(shapeOf(out));
  int width = steps.size();
  int threads = 32 * slices;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "reduce", threads) + " {\n";
  src += llvm::formatv("  __shared__ {0} part[{1}][{2}];\n"
                       "  const long long base = blockIdx.x * {2}LL + "
                       "threadIdx.x % 32;\n"
                       "  const int s = threadIdx.x / 32;\n",
                       ctype, slices, 32 * width)
             .str();
  for (int k = 0; k < width; ++k)
    src += llvm::formatv("  const long long e{0} = base + {1}LL < {2}LL ? base "
                         "+ {1}LL : {2}LL - 1;\n"
                         "  {3} acc{0} = {4};\n",
                         k, 32 * k, total, ctype, combiner.identity)
               .str();
  src += loops.str() + llvm::join(steps, "") + close.str();
  for (int k = 0; k < width; ++k)
    src += llvm::formatv("  part[s][threadIdx.x % 32 + {0}] = acc{1};\n",
                         32 * k, k)
               .str();
  // Warp k (and k + slices, ...) combines the fill and the slices of the
  // k-th run of 32 elements, in slice order.
  src += llvm::formatv(
             "  __syncthreads();\n"
             "  for (int k = s; k < {0}; k += {1}) {{\n"
             "    const long long e = base + 32LL * k;\n"
             "    if (e >= {2}LL)\n      continue;\n"
             "    {3} acc = {4};\n"
             "    for (int q = 0; q < {1}; ++q)\n"
             "      acc = {5};\n"
             "    out0[e] = {6};\n"
             "  }\n}\n",
             width, slices, total, ctype,
             region.splats.lookup(g.getDpsInitOperand(0)->get()),
             combiner.combine("acc", "part[q][threadIdx.x % 32 + 32 * k]"),
             storeAs(elementOf(out), "acc"))
             .str();
  return Variant{llvm::formatv("sliced-s{0}-w{1}", slices, width).str(),
                 src,
                 {{"reduce",
                   {(total + 32 * width - 1) / (32 * width), 1, 1},
                   {threads, 1, 1}}}};
}

FailureOr<Variant> writeSerialReduction(const LinalgRegion &region, int threads,
                                        std::string &why, int slices = 0,
                                        int width = 1) {
  FailureOr<linalg::GenericOp> found = findFilledReduction(region, why);
  if (failed(found))
    return failure();
  // Several outputs (the sum and its f64 copy a layer norm reads) only in
  // the plain kernel, all of one shape, each read at one element.
  if (region.outputs.size() != 1 &&
      (slices || width > 1 ||
       llvm::any_of(region.outputs, [&](Value o) {
         return shapeOf(o) != shapeOf(region.outputs[0]);
       }))) {
    why = "not a single reduction into a filled output";
    return failure();
  }
  linalg::GenericOp g = *found;
  // The region's output: the reduction's, or (in the plain kernel) an
  // elementwise epilogue of it, such as an average pool's division by its
  // window, at the same element or at a permutation of it (torch's 3-D
  // pooling, between transposes to channels last and back): the thread's
  // element is the output's, readAtElement says which of the reduction's
  // elements it computes.
  Value out = region.outputs[0], reduced = g.getResult(0);
  bool epilogue = llvm::any_of(region.outputs,
                               [&](Value o) { return o != reduced; });
  if (epilogue && (slices || width > 1 ||
                   product(shapeOf(out)) != product(shapeOf(reduced)))) {
    why = "an epilogue of a reduction over other elements than its own, or "
          "in a sliced kernel";
    return failure();
  }
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation()) {
    why = "a reduction output map that is not a projected permutation";
    return failure();
  }
  ArrayRef<int64_t> outShape = shapeOf(reduced);
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<std::string> dims(ranges.size());
  // The plain kernel's offsets in 32 bits where they fit: a pooling
  // window's taps are then constant offsets of one base.
  OffsetType offsets;
  if (!slices && width == 1)
    offsets = getOffsetType(region);
  StringRef offsetType = offsets.name();
  SmallVector<std::string> outIdx = delinearize("e", shapeOf(out), offsets);
  SmallVector<std::string> idx = outIdx;
  if (epilogue) {
    FailureOr<SmallVector<std::string>> at =
        readAtElement(region, out, reduced, outIdx, why);
    if (failed(at))
      return failure();
    idx = std::move(*at);
    for (Value other : llvm::drop_begin(region.outputs)) {
      at = readAtElement(region, other, reduced, outIdx, why);
      if (failed(at))
        return failure();
      if (*at != idx) {
        why = "outputs that read the reduction at different elements";
        return failure();
      }
    }
  }
  for (unsigned k = 0; k < outMap.getNumResults(); ++k)
    dims[outMap.getDimPosition(k)] = idx[k];
  std::string loops, close;
  SmallVector<utils::IteratorType> iterators = g.getIteratorTypesArray();
  if (slices) {
    // A warp's 32 consecutive outputs must be consecutive elements of every
    // input that varies with them: the output's innermost dimension is the
    // innermost one of each input that reads it (a sum over a middle
    // dimension; a vector times a row-major matrix).
    bool contiguous = outMap.getNumResults() > 0;
    unsigned inner =
        contiguous ? outMap.getDimPosition(outMap.getNumResults() - 1) : 0;
    for (OpOperand *in : g.getDpsInputOperands()) {
      AffineMap map = g.getMatchingIndexingMap(in);
      if (contiguous && map.isProjectedPermutation() &&
          map.isFunctionOfDim(inner))
        contiguous = map.getDimPosition(map.getNumResults() - 1) == inner;
    }
    if (!contiguous) {
      why = "a sliced reduction needs its outputs contiguous in its inputs";
      return failure();
    }
  }
  bool sliced = false;
  for (auto [d, type] : llvm::enumerate(iterators)) {
    if (type != utils::IteratorType::reduction)
      continue;
    std::string var = "r" + std::to_string(d);
    dims[d] = var;
    if (slices && !sliced) {
      // The outermost reduced dimension, one slice per warp.
      int64_t slice = (ranges[d] + slices - 1) / slices;
      if (slice < 2) {
        why = "a reduced dimension too short to slice";
        return failure();
      }
      loops += llvm::formatv(
                   "#pragma unroll 8\n"
                   "    for (long long {0} = s * {1}LL; {0} < {2}LL && {0} < "
                   "(s + 1) * {1}LL; ++{0}) {{\n",
                   var, slice, ranges[d])
                   .str();
      sliced = true;
    } else {
      loops += llvm::formatv("    for ({0} {1} = 0; {1} < {2}; ++{1}) {{\n",
                             offsetType, var, ranges[d])
                   .str();
    }
    close += "    }\n";
  }
  Block &reduceBody = g.getRegion().front();
  BlockArgument accArg = reduceBody.getArgument(g.getNumDpsInputs());
  FailureOr<Combiner> combiner = findCombiner(reduceBody, accArg, why);
  if (failed(combiner))
    return failure();
  unsigned counter = 0;
  // The statements of the reduced term at the loop indices `at`, appended
  // to `text`; returns the term's C name.
  auto writeTerm = [&](ArrayRef<std::string> at,
                       std::string &text) -> FailureOr<std::string> {
    StatementWriter writer(text, counter);
    ElementEvaluator eval(region, writer);
    eval.offsets = offsets;
    llvm::DenseMap<Value, std::string> names;
    if (failed(eval.bindOperands(g, at, names, why, accArg)) ||
        failed(writer.writeBlock(reduceBody, names, at, combiner->op, why)))
      return failure();
    return names.lookup(combiner->op->getOperand(combiner->otherOperand));
  };
  std::string body;
  FailureOr<std::string> term = writeTerm(dims, body);
  if (failed(term))
    return failure();
  std::string mapped = *term;
  if (width > 1) {
    // The same term for each of the thread's elements e0, e1, ...
    SmallVector<std::string> steps;
    for (int k = 0; k < width; ++k) {
      SmallVector<std::string> at(dims);
      SmallVector<std::string> idxK =
          delinearize("e" + std::to_string(k), outShape);
      for (unsigned r = 0; r < outMap.getNumResults(); ++r)
        at[outMap.getDimPosition(r)] = idxK[r];
      std::string step;
      FailureOr<std::string> stepTerm = writeTerm(at, step);
      if (failed(stepTerm))
        return failure();
      std::string acc = "acc" + std::to_string(k);
      steps.push_back(step + "    " + acc + " = " +
                      combiner->combine(acc, *stepTerm) +
                      ";\n");
    }
    return writeWideSlices(region, g, *combiner, steps, loops, close, slices);
  }
  std::string ctype = getCType(elementOf(reduced))->compute;
  int64_t total = product(outShape);
  if (slices)
    return writeSlices(region, g, *combiner, body + "    acc = " +
                                                combiner->combine("acc", mapped) +
                                                ";\n",
                       loops, close, slices);
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, "reduce") + " {\n";
  src += llvm::formatv(
             "  for ({3} e = blockIdx.x * ({3})blockDim.x + threadIdx.x; e < "
             "{0}; e += ({3})gridDim.x * blockDim.x) {{\n"
             "    {1} acc = {2};\n",
             total, ctype, region.splats.lookup(g.getDpsInitOperand(0)->get()),
             offsetType)
             .str();
  src += loops + body + "    acc = " + combiner->combine("acc", mapped) +
         ";\n" + close;
  // The output (after its epilogue, if any) at the thread's element.
  FailureOr<std::string> stores =
      writeOutputStores(region, {std::pair(reduced, std::string("acc"))}, idx,
                        outIdx, "    ", counter, why);
  if (failed(stores))
    return failure();
  src += *stores + "  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((total + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("serial-t{0}", threads).str(),
                 src,
                 {{"reduce", {blocks, 1, 1}, {threads, 1, 1}}}};
}

/// The one indexing map of `g`'s outputs, where every output starts from a
/// fill and all are indexed alike by a projected permutation (a fold's
/// accumulators, an argmax's value and index); fails otherwise.
FailureOr<AffineMap> getFilledOutputsMap(const LinalgRegion &region,
                                         linalg::GenericOp g,
                                         std::string &why) {
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  for (OpOperand &init : g.getDpsInitsMutable()) {
    if (!region.splats.count(init.get())) {
      why = "a fold's outputs start from fills";
      return failure();
    }
    if (g.getMatchingIndexingMap(&init) != outMap) {
      why = "a fold's outputs are indexed alike";
      return failure();
    }
  }
  if (!outMap.isProjectedPermutation()) {
    why = "a reduction output map that is not a projected permutation";
    return failure();
  }
  return outMap;
}

/// A reduction into several filled outputs whose body carries them all (an
/// argmax: the running maximum and its index, `select(x > max, i, index)`):
/// no single associative combiner, so one thread per output element folds
/// the body over the reduced dimensions in the reference's order, the
/// outputs' block arguments bound to the accumulators `acc0`, `acc1`, ...
/// The same order as the reference, so the same result, ties included.
FailureOr<Variant> writeFold(const LinalgRegion &region, int threads,
                             int unroll, std::string &why) {
  linalg::GenericOp g = findSingleReduction(region);
  if (!g || g.getNumDpsInits() < 2) {
    why = "not a single reduction into several outputs";
    return failure();
  }
  FailureOr<AffineMap> found = getFilledOutputsMap(region, g, why);
  if (failed(found))
    return failure();
  AffineMap outMap = *found;
  ArrayRef<int64_t> outShape = shapeOf(g.getResult(0));
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  SmallVector<std::string> dims(ranges.size());
  SmallVector<std::string> idx = delinearize("e", outShape);
  for (unsigned k = 0; k < outMap.getNumResults(); ++k)
    dims[outMap.getDimPosition(k)] = idx[k];
  // The innermost loop unrolled `unroll` times: its loads do not depend on
  // the accumulators, so that many are in flight before the body runs on
  // the first (one thread per output leaves few threads to hide latency).
  std::string loops, close, innermost;
  for (auto [d, type] : llvm::enumerate(g.getIteratorTypesArray())) {
    if (type != utils::IteratorType::reduction)
      continue;
    dims[d] = "r" + std::to_string(d);
    loops += innermost;
    innermost =
        llvm::formatv("    for (long long {0} = 0; {0} < {1}LL; ++{0}) {{\n",
                      dims[d], ranges[d])
            .str();
    close += "    }\n";
  }
  if (unroll > 1)
    loops += llvm::formatv("#pragma unroll {0}\n", unroll).str();
  loops += innermost;
  Block &body = g.getRegion().front();
  unsigned counter = 0;
  std::string step;
  StatementWriter writer(step, counter);
  ElementEvaluator eval(region, writer);
  llvm::DenseMap<Value, std::string> names;
  if (failed(eval.bindOperands(g, dims, names, why)))
    return failure();
  std::string start, update;
  SmallVector<std::pair<Value, std::string>> accumulators;
  for (auto [k, init] : llvm::enumerate(g.getDpsInitsMutable())) {
    std::string acc = "acc" + std::to_string(k);
    Type type = elementOf(init.get());
    start += llvm::formatv("    {0} {1} = {2};\n", getCType(type)->compute,
                           acc, region.splats.lookup(init.get()))
                 .str();
    names[g.getMatchingBlockArgument(&init)] = acc;
    accumulators.emplace_back(g.getResult(k), acc);
  }
  if (failed(writer.writeBlock(body, names, dims, nullptr, why)))
    return failure();
  // Every yielded value is computed before any accumulator changes.
  for (auto [k, yielded] : llvm::enumerate(body.getTerminator()->getOperands()))
    update += llvm::formatv("      acc{0} = {1};\n", k, names.lookup(yielded))
                  .str();
  FailureOr<std::string> stores = writeOutputStores(
      region, accumulators, idx, idx, "    ", counter, why);
  if (failed(stores))
    return failure();
  int64_t total = product(outShape);
  std::string src =
      getPrelude().str() + "\n" + kernelSignature(region, "fold") + " {\n";
  src += llvm::formatv("  for (long long e = blockIdx.x * (long long)blockDim.x "
                       "+ threadIdx.x; e < {0}LL; e += (long long)gridDim.x * "
                       "blockDim.x) {{\n",
                       total)
             .str();
  src += start + loops + step + update + close + *stores + "  }\n}\n";
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((total + threads - 1) / threads, 1 << 20));
  return Variant{llvm::formatv("fold-t{0}-u{1}", threads, unroll).str(),
                 src,
                 {{"fold", {blocks, 1, 1}, {threads, 1, 1}}}};
}

/// An argmax or argmin body as torch-mlir writes it, over one reduced
/// dimension: `m' = maximumf(x, m)`, `i' = select(x > m, index, i)` (minimumf
/// and `<` for argmin), the value first, the index second.
struct ArgExtreme {
  linalg::GenericOp generic;
  unsigned reducedDim;
  bool isMax;
};

FailureOr<ArgExtreme> matchArgExtreme(const LinalgRegion &region,
                                      std::string &why) {
  why = "not an argmax or argmin body (maximumf or minimumf, cmpf ogt or "
        "olt, select of the reduced index) over one reduced dimension";
  linalg::GenericOp g = findSingleReduction(region);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 2 ||
      g.getNumReductionLoops() != 1)
    return failure();
  Block &body = g.getRegion().front();
  Value x = body.getArgument(0), m = body.getArgument(1),
        i = body.getArgument(2);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *extreme = yield.getOperand(0).getDefiningOp();
  auto select = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpFOp>()
                    : arith::CmpFOp();
  if (!extreme || !select || !cmp || select.getFalseValue() != i ||
      cmp.getLhs() != x || cmp.getRhs() != m)
    return failure();
  bool isMax = isa<arith::MaximumFOp>(extreme);
  if (!isMax && !isa<arith::MinimumFOp>(extreme))
    return failure();
  if (cmp.getPredicate() !=
      (isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT))
    return failure();
  if (!((extreme->getOperand(0) == x && extreme->getOperand(1) == m) ||
        (extreme->getOperand(0) == m && extreme->getOperand(1) == x)))
    return failure();
  auto cast = select.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>()
                    : linalg::IndexOp();
  if (!index || g.getIteratorTypesArray()[index.getDim()] !=
                    utils::IteratorType::reduction)
    return failure();
  why.clear();
  return ArgExtreme{g, unsigned(index.getDim()), isMax};
}

/// The argmax (argmin) in `slices` warps per 32 consecutive outputs: warp s
/// folds slice s of the reduced dimension from the fills, keeping the body's
/// extreme (NaN once any element is) and, up to the slice's first NaN, the
/// strict records' value and index; warp 0 combines the slices in order: a
/// slice's record is taken where it beats the running record and no earlier
/// slice had a NaN (after a NaN the reference's comparisons all fail, so its
/// index stays). The same outputs as the reference's sequential fold, ties,
/// signed zeros and NaNs included.
FailureOr<Variant> writeArgExtremeSlices(const LinalgRegion &region,
                                         int slices, std::string &why) {
  FailureOr<ArgExtreme> found = matchArgExtreme(region, why);
  if (failed(found))
    return failure();
  linalg::GenericOp g = found->generic;
  FailureOr<AffineMap> filled = getFilledOutputsMap(region, g, why);
  if (failed(filled))
    return failure();
  AffineMap outMap = *filled;
  Value value = g.getResult(0), index = g.getResult(1);
  ArrayRef<int64_t> outShape = shapeOf(value);
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  int64_t length = ranges[found->reducedDim];
  int64_t slice = (length + slices - 1) / slices;
  if (slice < 2) {
    why = "a reduced dimension too short to slice";
    return failure();
  }
  SmallVector<std::string> idx = delinearize("e", outShape);
  SmallVector<std::string> dims(ranges.size());
  for (unsigned k = 0; k < outMap.getNumResults(); ++k)
    dims[outMap.getDimPosition(k)] = idx[k];
  dims[found->reducedDim] = "r";
  unsigned counter = 0;
  std::string read;
  StatementWriter writer(read, counter);
  ElementEvaluator eval(region, writer);
  FailureOr<SmallVector<std::string>> at =
      applyIndexingMap(g.getMatchingIndexingMap(g.getDpsInputOperand(0)),
                       dims, why);
  if (failed(at))
    return failure();
  FailureOr<std::string> x =
      eval.valueAt(g.getDpsInputOperand(0)->get(), *at, why);
  if (failed(x))
    return failure();
  std::string vtype = getCType(elementOf(value))->compute;
  std::string itype = getCType(elementOf(index))->compute;
  std::string fillValue = region.splats.lookup(g.getDpsInitOperand(0)->get());
  std::string fillIndex = region.splats.lookup(g.getDpsInitOperand(1)->get());
  StringRef extreme = found->isMax ? "ca_maximum" : "ca_minimum";
  StringRef beats = found->isMax ? ">" : "<";
  int64_t total = product(outShape);
  int threads = 32 * slices;
  std::string src = getPrelude().str() + "\n" +
                    kernelSignature(region, "arg_extreme", threads) + " {\n";
  src += llvm::formatv(
             "  __shared__ {0} part_extreme[{2}][32], part_record[{2}][32];\n"
             "  __shared__ {1} part_index[{2}][32];\n"
             "  __shared__ bool part_nan[{2}][32];\n"
             "  const long long e = blockIdx.x * 32LL + threadIdx.x % 32;\n"
             "  const int s = threadIdx.x / 32;\n"
             "  {0} extreme = {3}, record = {3};\n"
             "  {1} at = {4};\n"
             "  bool nan = false;\n"
             "  if (e < {5}LL) {{\n"
             "#pragma unroll 8\n"
             "    for (long long r = s * {6}LL; r < {7}LL && r < (s + 1) * "
             "{6}LL; ++r) {{\n",
             vtype, itype, slices, fillValue, fillIndex, total, slice, length)
             .str();
  src += read;
  src += llvm::formatv("      extreme = {0}({1}, extreme);\n"
                       "      if (!nan) {{\n"
                       "        if ({1} != {1})\n"
                       "          nan = true;\n"
                       "        else if ({1} {2} record) {{\n"
                       "          record = {1};\n"
                       "          at = ({3})r;\n"
                       "        }\n"
                       "      }\n"
                       "    }\n  }\n",
                       extreme, *x, beats, itype)
             .str();
  src += "  part_extreme[s][threadIdx.x % 32] = extreme;\n"
         "  part_record[s][threadIdx.x % 32] = record;\n"
         "  part_index[s][threadIdx.x % 32] = at;\n"
         "  part_nan[s][threadIdx.x % 32] = nan;\n"
         "  __syncthreads();\n"
         "  if (s != 0 || e >= " +
         std::to_string(total) + "LL)\n    return;\n";
  src += llvm::formatv(
             "  {0} acc0 = {2}, best = {2};\n"
             "  {1} acc1 = {3};\n"
             "  bool frozen = false;\n"
             "  for (int q = 0; q < {4}; ++q) {{\n"
             "    const int t = threadIdx.x % 32;\n"
             "    acc0 = {5}(part_extreme[q][t], acc0);\n"
             "    if (!frozen && part_record[q][t] {6} best) {{\n"
             "      best = part_record[q][t];\n"
             "      acc1 = part_index[q][t];\n"
             "    }\n"
             "    frozen = frozen || part_nan[q][t];\n"
             "  }\n",
             vtype, itype, fillValue, fillIndex, slices, extreme, beats)
             .str();
  FailureOr<std::string> stores = writeOutputStores(
      region, {std::pair(value, std::string("acc0")),
               std::pair(index, std::string("acc1"))},
      idx, idx, "  ", counter, why);
  if (failed(stores))
    return failure();
  src += *stores + "}\n";
  return Variant{llvm::formatv("arg-extreme-s{0}", slices).str(),
                 src,
                 {{"arg_extreme", {(total + 31) / 32, 1, 1}, {threads, 1, 1}}}};
}

/// Any non-elementwise region with one reduction.
class SerialReductionStrategy final : public Strategy {
public:
  StringRef getName() const override { return "serial-reduction"; }

  bool match(const LinalgRegion &region, std::string &) const override {
    return !isElementwise(region);
  }
  /// Every kernel reads its terms through the evaluator, which reads a pad
  /// (an average pool's zero border) with bounds.
  bool readsPads() const override { return true; }

  void addVariants(const LinalgRegion &region, const GpuTarget &target,
                   Precision, VariantList &list) const override {
    std::string reason;
    // Over outer dimensions with few outputs: the split kernels first
    // (SplitReduction.cpp), where the outputs alone do not fill the SMs.
    // On the H200 at 1x8192 @ 8192x8192 (docs/perf.md): 128 outputs x 8
    // slices and 4 rows in flight 73.8 us, 8 rows 75.3, 16 slices 75.1,
    // 33 slices 76.7, 256 outputs x 33 slices 76.5, 512 x 66 78.0 (the
    // sliced kernel 86.0, torch 74.2); the sum over dim 0 of 8192x8192
    // 75.0, 73.8, 74.6.
    std::string splitWhy;
    for (SplitShape shape : {SplitShape{128, 4, 4}, SplitShape{128, 8, 4},
                             SplitShape{128, 4, 8}})
      if (FailureOr<Variant> v =
              writeSplitReduction(region, target, shape, splitWhy);
          succeeded(v) && llvm::none_of(list.variants, [&](const Variant &w) {
            return w.name == v->name;
          }))
        list.variants.push_back(std::move(*v));
    // Over a middle dimension: the sliced forms first (when they apply),
    // the wide ones where their blocks still fill the SMs. On the H200 at
    // 128 x 4096 x 4095 (docs/perf.md): 8 slices x 16 elements 2080 us, 4 x
    // 16 2087, 16 x 8 2166, 8 x 8 2215-2232, 16 x 4 2354, 16 x 1 2400-2516
    // and the serial kernel 2419 (torch.compile 2376-2442).
    std::string sliceWhy;
    int64_t total = region.outputs.empty()
                        ? 0
                        : product(shapeOf(region.outputs.front()));
    for (auto [slices, width] : {std::pair(8, 16), std::pair(4, 16),
                                 std::pair(16, 8), std::pair(8, 8),
                                 std::pair(16, 1)}) {
      if (width > 1 && total < int64_t(32) * width * target.smCount)
        continue;
      if (FailureOr<Variant> v =
              writeSerialReduction(region, 256, sliceWhy, slices, width);
          succeeded(v))
        list.variants.push_back(std::move(*v));
    }
    list.add(writeSerialReduction(region, 256, reason), reason);
    // Reductions into several outputs (argmax, argmin): an argmax or argmin
    // body split over 8 or 16 warps, then the fold, in blocks of 256 and,
    // where 256-thread blocks leave SMs idle, of 64, each with 16 and 1
    // loads in flight. On the H100 at KernelBench's argmax over dim 1 of
    // 16 x 256 x 256 (docs/perf.md): split over 16 warps 7.5 us, 8 warps
    // 7.8; the fold of 64 threads 18.2 us unrolled, 22.0 not (256 threads
    // 18.5, 22.5); torch eager 22.6-64.2, torch.compile 36.9-94.8.
    std::string foldWhy;
    for (int slices : {8, 16})
      if (FailureOr<Variant> v = writeArgExtremeSlices(region, slices, foldWhy);
          succeeded(v))
        list.variants.push_back(std::move(*v));
    for (int unroll : {16, 1}) {
      list.add(writeFold(region, 256, unroll, foldWhy), foldWhy);
      if (total < int64_t(256) * target.smCount)
        if (FailureOr<Variant> v = writeFold(region, 64, unroll, foldWhy);
            succeeded(v))
          list.variants.push_back(std::move(*v));
    }
  }
};

} // namespace

const Strategy &cuda_agent::builtin::getSerialReductionStrategy() {
  static const SerialReductionStrategy strategy;
  return strategy;
}
