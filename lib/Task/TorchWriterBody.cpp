//===- TorchWriterBody.cpp - Structured ops as PyTorch -------------------===//
//
// TorchWriter's per-op writers for structured ops. A generic is written from
// its indexing maps: each operand is brought into the loop space (permute,
// then `None` for the loop dims it does not index), the body's arith and
// math ops become torch expressions one per line, and reductions reduce the
// body's value over the reduction dims with the combiner's torch reduction
// before the initial value is combined in. Contractions (a product summed
// over loops) become torch.einsum, 2-D NHWC convolutions
// torch.nn.functional.conv2d. What cannot be spelt (non-permutation maps,
// index arithmetic, bit casts, ...) is an error with the reason.
//
//===----------------------------------------------------------------------===//

#include "TorchWriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::cuda_agent::torch_reference {

/// The torch spelling of a comparison; `a` and `b` are atoms.
static std::optional<std::string> comparison(Operation &op, StringRef a,
                                             StringRef b) {
  auto bin = [&](StringRef sym) { return (a + " " + sym + " " + b).str(); };
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    switch (c.getPredicate()) {
    case P::OEQ:
      return bin("==");
    case P::OGT:
      return bin(">");
    case P::OGE:
      return bin(">=");
    case P::OLT:
      return bin("<");
    case P::OLE:
      return bin("<=");
    case P::ONE:
      return "(" + bin("<") + ") | (" + bin(">") + ")";
    case P::UNE:
      return bin("!=");
    case P::UEQ:
      return "~((" + bin("<") + ") | (" + bin(">") + "))";
    case P::UGT:
      return "~(" + bin("<=") + ")";
    case P::UGE:
      return "~(" + bin("<") + ")";
    case P::ULT:
      return "~(" + bin(">=") + ")";
    case P::ULE:
      return "~(" + bin(">") + ")";
    case P::ORD:
      return ("~(torch.isnan(" + a + ") | torch.isnan(" + b + "))").str();
    case P::UNO:
      return ("torch.isnan(" + a + ") | torch.isnan(" + b + ")").str();
    default:
      return std::nullopt;
    }
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    switch (c.getPredicate()) {
    case P::eq:
      return bin("==");
    case P::ne:
      return bin("!=");
    case P::sgt:
      return bin(">");
    case P::sge:
      return bin(">=");
    case P::slt:
      return bin("<");
    case P::sle:
      return bin("<=");
    default:
      return std::nullopt; // unsigned: torch has no unsigned int32
    }
  }
  return std::nullopt;
}

FailureOr<LoopValue> TorchWriter::writeBodyOp(
    Operation &op, llvm::DenseMap<Value, LoopValue> &values, unsigned rank) {
  LoopValue result;
  result.dims = llvm::SmallBitVector(rank);
  result.python = true;
  result.type = op.getNumResults() ? op.getResult(0).getType() : Type();
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    std::optional<std::string> literal = pythonLiteral(constant.getValue());
    if (!literal) {
      why = "a constant with no Python literal";
      return failure();
    }
    result.expr = *literal;
    return result;
  }
  SmallVector<LoopValue> operands;
  for (Value v : op.getOperands()) {
    auto it = values.find(v);
    if (it == values.end()) {
      if (auto s = scalars.find(v); s != scalars.end()) {
        operands.push_back(
            {s->second, llvm::SmallBitVector(rank), true, v.getType()});
        continue;
      }
      why = "'" + op.getName().getStringRef().str() +
            "' reads a value from outside the body that is not a constant";
      return failure();
    }
    operands.push_back(it->second);
  }
  for (const LoopValue &o : operands) {
    result.dims |= o.dims;
    result.python = result.python && o.python;
  }
  std::optional<std::string> dtype = torchDtype(result.type);
  if (!dtype) {
    why = "'" + op.getName().getStringRef().str() +
          "' has a result type torch has no dtype for";
    return failure();
  }
  // A Python scalar as a 0-d tensor, for torch functions that want tensors.
  auto tensor = [&](const LoopValue &v) {
    if (!v.python)
      return v.expr;
    return "torch.tensor(" + v.expr + ", dtype=" + *torchDtype(v.type) + ")";
  };
  auto a = [&](unsigned i) { return operands[i].expr; };
  std::string expr;
  bool functional = false; // a torch function: the result is a tensor
  auto call = [&](StringRef fn, ArrayRef<unsigned> which) {
    functional = true;
    std::string text = ("torch." + fn + "(").str();
    for (auto [k, i] : llvm::enumerate(which))
      text += (k ? ", " : "") + tensor(operands[i]);
    return text + ")";
  };
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    expr = a(0) + " + " + a(1);
  else if (isa<arith::SubFOp, arith::SubIOp>(op))
    expr = a(0) + " - " + a(1);
  else if (isa<arith::MulFOp, arith::MulIOp>(op))
    expr = a(0) + " * " + a(1);
  else if (isa<arith::DivFOp>(op))
    expr = a(0) + " / " + a(1);
  else if (isa<arith::DivSIOp, arith::FloorDivSIOp>(op)) {
    expr = call("div", {0, 1});
    expr.insert(expr.size() - 1, isa<arith::DivSIOp>(op)
                                     ? ", rounding_mode='trunc'"
                                     : ", rounding_mode='floor'");
  } else if (isa<arith::RemFOp, arith::RemSIOp>(op))
    expr = call("fmod", {0, 1});
  else if (isa<arith::NegFOp>(op))
    expr = "-" + a(0);
  else if (isa<arith::AndIOp>(op))
    expr = a(0) + " & " + a(1);
  else if (isa<arith::OrIOp>(op))
    expr = a(0) + " | " + a(1);
  else if (isa<arith::XOrIOp>(op))
    expr = a(0) + " ^ " + a(1);
  else if (isa<arith::MaximumFOp, arith::MaxSIOp>(op))
    expr = call("maximum", {0, 1});
  else if (isa<arith::MinimumFOp, arith::MinSIOp>(op))
    expr = call("minimum", {0, 1});
  else if (isa<arith::MaxNumFOp>(op))
    expr = call("fmax", {0, 1});
  else if (isa<arith::MinNumFOp>(op))
    expr = call("fmin", {0, 1});
  else if (isa<arith::SelectOp>(op))
    expr = call("where", {0, 1, 2});
  else if (isa<arith::CmpFOp, arith::CmpIOp>(op)) {
    std::optional<std::string> text = comparison(op, a(0), a(1));
    if (!text) {
      why = "an unsigned or constant comparison predicate";
      return failure();
    }
    if (result.python) {
      why = "a comparison of two constants";
      return failure();
    }
    expr = *text;
  } else if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
                 arith::FPToSIOp, arith::ExtSIOp, arith::TruncIOp>(op) ||
             (isa<arith::ExtUIOp, arith::UIToFPOp>(op) &&
              op.getOperand(0).getType().isInteger(1))) {
    if (isa<arith::ExtSIOp>(op) && op.getOperand(0).getType().isInteger(1)) {
      why = "a sign-extended i1";
      return failure();
    }
    functional = true;
    expr = operands[0].python
               ? tensor({operands[0].expr, {}, true, result.type})
               : a(0) + ".to(" + *dtype + ")";
  } else if (isa<math::FmaOp>(op))
    expr = a(0) + " * " + a(1) + " + " + a(2);
  else if (isa<math::PowFOp>(op))
    expr = call("pow", {0, 1});
  else {
    static const std::pair<StringRef, StringRef> kUnary[] = {
        {"math.exp", "exp"},     {"math.exp2", "exp2"},
        {"math.expm1", "expm1"}, {"math.log", "log"},
        {"math.log2", "log2"},   {"math.log10", "log10"},
        {"math.log1p", "log1p"}, {"math.tanh", "tanh"},
        {"math.sqrt", "sqrt"},   {"math.rsqrt", "rsqrt"},
        {"math.sin", "sin"},     {"math.cos", "cos"},
        {"math.tan", "tan"},     {"math.atan", "atan"},
        {"math.erf", "erf"},     {"math.absf", "abs"},
        {"math.absi", "abs"},    {"math.floor", "floor"},
        {"math.ceil", "ceil"},   {"math.roundeven", "round"},
        {"math.trunc", "trunc"}, {"math.sinh", "sinh"},
        {"math.cosh", "cosh"},   {"math.asin", "asin"},
        {"math.acos", "acos"},   {"math.erfc", "erfc"}};
    StringRef name = op.getName().getStringRef();
    for (auto [mlirName, torchName] : kUnary)
      if (name == mlirName && op.getNumOperands() == 1)
        expr = call(torchName, {0});
    if (expr.empty()) {
      why = "'" + name.str() + "' has no torch spelling here";
      return failure();
    }
  }
  if (functional)
    result.python = false;
  std::string name = fresh("v");
  emit(name + " = " + expr);
  result.expr = name;
  return result;
}

FailureOr<bool> TorchWriter::writeContraction(linalg::GenericOp g) {
  // out[...] += a[...] * b[...] (each maybe widened first), summed over the
  // reduction loops: an einsum.
  if (g.getNumDpsInits() != 1 || g.getNumDpsInputs() != 2)
    return false;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getOperand(0).getDefiningOp();
  BlockArgument acc = body.getArgument(2);
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add) || !acc.hasOneUse())
    return false;
  Value product = add->getOperand(0) == acc   ? add->getOperand(1)
                  : add->getOperand(1) == acc ? add->getOperand(0)
                                              : Value();
  Operation *mul = product ? product.getDefiningOp() : nullptr;
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      body.getOperations().size() > 6)
    return false;
  SmallVector<unsigned> order;
  for (Value factor : mul->getOperands()) {
    if (Operation *ext = factor.getDefiningOp()) {
      if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::SIToFPOp>(ext))
        return false;
      factor = ext->getOperand(0);
    }
    auto arg = dyn_cast<BlockArgument>(factor);
    if (!arg || arg.getArgNumber() >= 2)
      return false;
    order.push_back(arg.getArgNumber());
  }
  if (order[0] == order[1])
    return false;
  // Every op of the body is one of: the casts, the product, the sum, yield.
  for (Operation &op : body)
    if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::SIToFPOp, arith::MulFOp,
             arith::MulIOp, arith::AddFOp, arith::AddIOp, linalg::YieldOp>(op))
      return false;
  auto letters = [](AffineMap map) {
    std::string text;
    for (AffineExpr e : map.getResults())
      text += char('a' + cast<AffineDimExpr>(e).getPosition());
    return text;
  };
  Type accType = body.getArgument(2).getType();
  SmallVector<std::string> terms;
  std::string spec;
  for (unsigned i : {0u, 1u}) {
    OpOperand *operand = g.getDpsInputOperand(i);
    FailureOr<std::string> e = tensorExpr(operand->get());
    if (failed(e))
      return failure();
    if (tensors.lookup(operand->get()).splat)
      return false;
    terms.push_back(castTo(*e, getElementTypeOrSelf(operand->get()), accType));
    spec += (i ? "," : "") + letters(g.getMatchingIndexingMap(operand));
  }
  OpOperand *init = g.getDpsInitOperand(0);
  spec += "->" + letters(g.getMatchingIndexingMap(init));
  std::string reduced =
      "torch.einsum(\"" + spec + "\", " + terms[0] + ", " + terms[1] + ")";
  FailureOr<std::string> total =
      combineInit(reduced, Combiner::Add, init->get());
  if (failed(total))
    return failure();
  define(g->getResult(0), *total);
  return true;
}

LogicalResult TorchWriter::writeGeneric(linalg::GenericOp g) {
  unsigned rank = g.getNumLoops();
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  for (OpOperand &operand : g->getOpOperands()) {
    AffineMap map = g.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return fail("an indexing map that is not a projected permutation (" +
                  llvm::formatv("{0}", g.getMatchingIndexingMap(&operand))
                      .str() +
                  ")");
  }
  if (!g.getRegion().front().getOps<linalg::IndexOp>().empty())
    return fail("a body that reads its loop indices (linalg.index)");
  if (g.getNumReductionLoops() > 0) {
    FailureOr<bool> done = writeContraction(g);
    if (failed(done))
      return failure();
    if (*done)
      return success();
  }
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  bool reduction = g.getNumReductionLoops() > 0;
  // The loop dims each tensor dim is.
  auto resultDims = [](AffineMap map) {
    SmallVector<unsigned> dims;
    for (AffineExpr e : map.getResults())
      dims.push_back(cast<AffineDimExpr>(e).getPosition());
    return dims;
  };
  llvm::DenseMap<Value, LoopValue> values;
  // An operand in the loop space: permuted into loop order, then `None`
  // for the dims it does not index (leading ones broadcast by themselves).
  auto intoLoopSpace = [&](OpOperand &operand,
                           Value source) -> FailureOr<LoopValue> {
    LoopValue v;
    v.dims = llvm::SmallBitVector(rank);
    v.type = getElementTypeOrSelf(source);
    auto it = tensors.find(source);
    if (it == tensors.end())
      return fail("an operand no op of the region defines");
    if (it->second.splat) {
      v.expr = *it->second.splat;
      v.python = true;
      return v;
    }
    SmallVector<unsigned> dims = resultDims(g.getMatchingIndexingMap(&operand));
    SmallVector<int64_t> perm(dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
      perm[i] = i;
    llvm::sort(perm, [&](int64_t x, int64_t y) { return dims[x] < dims[y]; });
    v.expr = it->second.name;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      v.expr += ".permute(" + args(perm) + ")";
    for (unsigned d : dims)
      v.dims.set(d);
    SmallVector<std::string> index;
    for (unsigned d = 0; d < rank; ++d)
      index.push_back(v.dims.test(d) ? ":" : "None");
    while (!index.empty() && index.front() == "None")
      index.erase(index.begin());
    while (!index.empty() && index.back() == ":")
      index.pop_back();
    if (!index.empty())
      v.expr += "[" + llvm::join(index, ", ") + "]";
    return v;
  };
  // The combiners of a reduction: the op that folds each output's block
  // argument into the yielded value.
  SmallVector<Operation *> combiners(g.getNumDpsInits(), nullptr);
  for (OpOperand &operand : g->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (!g.isDpsInit(&operand)) {
      if (arg.use_empty())
        continue;
      FailureOr<LoopValue> v = intoLoopSpace(operand, operand.get());
      if (failed(v))
        return failure();
      values[arg] = *v;
      continue;
    }
    unsigned r = operand.getOperandNumber() - g.getNumDpsInputs();
    if (!reduction) {
      if (arg.use_empty())
        continue;
      // An output read by a parallel body: its initial value, an input.
      FailureOr<LoopValue> v = intoLoopSpace(operand, operand.get());
      if (failed(v))
        return failure();
      values[arg] = *v;
      continue;
    }
    Operation *combiner = yield.getOperand(r).getDefiningOp();
    if (!arg.hasOneUse() || !combiner || *arg.user_begin() != combiner ||
        !getCombiner(combiner) || !combiner->getResult(0).hasOneUse())
      return fail("a reduction whose accumulator is not folded in by one "
                  "add, mul, max or min that is yielded");
    combiners[r] = combiner;
  }
  for (Operation &op : body.without_terminator()) {
    if (llvm::is_contained(combiners, &op))
      continue;
    FailureOr<LoopValue> v = writeBodyOp(op, values, rank);
    if (failed(v))
      return failure();
    values[op.getResult(0)] = *v;
  }
  auto full = [&](const LoopValue &v) {
    if (v.dims.all())
      return v.expr;
    if (v.python)
      return "torch.full(" + tuple(ranges) + ", " + v.expr +
             ", dtype=" + *torchDtype(v.type) + ")";
    return "torch.broadcast_to(" + v.expr + ", " + tuple(ranges) + ")";
  };
  auto valueOf = [&](Value v) -> FailureOr<LoopValue> {
    if (auto it = values.find(v); it != values.end())
      return it->second;
    if (auto s = scalars.find(v); s != scalars.end())
      return LoopValue{s->second, llvm::SmallBitVector(rank), true,
                       v.getType()};
    return fail("a yielded value from outside the body");
  };
  for (auto [r, yielded] : llvm::enumerate(yield.getOperands())) {
    OpOperand *init = g.getDpsInitOperand(r);
    AffineMap outMap = g.getMatchingIndexingMap(init);
    SmallVector<unsigned> outDims = resultDims(outMap);
    if (!reduction) {
      FailureOr<LoopValue> v = valueOf(yielded);
      if (failed(v))
        return failure();
      std::string expr = full(*v);
      if (!llvm::equal(outDims, llvm::seq<unsigned>(0, outDims.size())))
        expr += ".permute(" + args(llvm::to_vector_of<int64_t>(outDims)) + ")";
      // The body's last line computed the result: it names it.
      std::string prefix = "        " + expr + " = ";
      if (expr == v->expr && yielded.hasOneUse() && !lines.empty() &&
          StringRef(lines.back()).starts_with(prefix)) {
        std::string rhs = lines.back().substr(prefix.size());
        lines.pop_back();
        if (expr == "v" + std::to_string(counters["v"] - 1))
          --counters["v"]; // the name is given back
        define(g->getResult(r), rhs);
        continue;
      }
      define(g->getResult(r), expr);
      continue;
    }
    Operation *combiner = combiners[r];
    BlockArgument acc = body.getArgument(init->getOperandNumber());
    Value term = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                : combiner->getOperand(0);
    FailureOr<LoopValue> v = valueOf(term);
    if (failed(v))
      return failure();
    SmallVector<int64_t> reduced, kept;
    for (unsigned d = 0; d < rank; ++d)
      (g.getIteratorTypesArray()[d] == utils::IteratorType::reduction ? reduced
                                                                      : kept)
          .push_back(d);
    if (outDims.size() != kept.size())
      return fail("a reduction whose output does not index every parallel "
                  "loop");
    std::string dim =
        reduced.size() == 1 ? std::to_string(reduced[0]) : tuple(reduced);
    std::string expr = full(*v);
    Combiner kind = *getCombiner(combiner);
    if (kind == Combiner::Add)
      expr += ".sum(dim=" + dim + ")";
    else if (kind == Combiner::Max || kind == Combiner::MaxNum)
      expr += ".amax(dim=" + dim + ")";
    else if (kind == Combiner::Min || kind == Combiner::MinNum)
      expr += ".amin(dim=" + dim + ")";
    else
      // torch.prod takes one dim at a time: the last first.
      for (int64_t d : llvm::reverse(reduced))
        expr += ".prod(dim=" + std::to_string(d) + ")";
    Type accType = acc.getType();
    if (accType.isInteger() && isa<arith::AddIOp, arith::MulIOp>(combiner))
      expr += ".to(" + *torchDtype(accType) + ")"; // torch sums ints as int64
    // The kept dims in loop order, then in the output's order.
    SmallVector<int64_t> perm;
    for (unsigned d : outDims)
      perm.push_back(llvm::find(kept, d) - kept.begin());
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      expr += ".permute(" + args(perm) + ")";
    FailureOr<std::string> total =
        combineInit(expr, *getCombiner(combiner), init->get());
    if (failed(total))
      return failure();
    define(g->getResult(r), *total);
  }
  return success();
}

LogicalResult TorchWriter::writeConv(linalg::Conv2DNhwcHwcfOp conv) {
  auto vec = [](DenseIntElementsAttr attr) {
    SmallVector<int64_t> v;
    for (const APInt &x : attr.getValues<APInt>())
      v.push_back(x.getSExtValue());
    return v;
  };
  FailureOr<std::string> x = tensorExpr(conv.getInputs()[0]);
  FailureOr<std::string> w = tensorExpr(conv.getInputs()[1]);
  if (failed(x) || failed(w))
    return failure();
  Value init = conv.getOutputs()[0];
  Type accType = getElementTypeOrSelf(init);
  std::string expr =
      "torch.nn.functional.conv2d(" +
      castTo(*x + ".permute(0, 3, 1, 2)",
             getElementTypeOrSelf(conv.getInputs()[0]), accType) +
      ", " +
      castTo(*w + ".permute(3, 2, 0, 1)",
             getElementTypeOrSelf(conv.getInputs()[1]), accType) +
      ", stride=" + tuple(vec(conv.getStrides())) +
      ", dilation=" + tuple(vec(conv.getDilations())) + ").permute(0, 2, 3, 1)";
  FailureOr<std::string> total = combineInit(expr, Combiner::Add, init);
  if (failed(total))
    return failure();
  define(conv.getResult(0), *total);
  return success();
}

} // namespace mlir::cuda_agent::torch_reference
