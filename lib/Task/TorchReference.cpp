//===- TorchReference.cpp - Regions as PyTorch modules (KernelBench) ------===//
//
// Spells a region as the PyTorch program kernel models were trained on
// (KernelBench: `class Model(nn.Module)` with a `forward`, `get_inputs()`,
// `get_init_inputs()`). Matmuls, transposes, softmaxes and 2-D convolutions
// become their torch calls; every other structured op is generalized and
// written from its indexing maps: each operand is brought into the loop space
// (permute, then `None` for the loop dims it does not index), the body's
// arith and math ops become torch expressions one per line, and reductions
// reduce the body's value over the reduction dims with the combiner's torch
// reduction before the initial value is combined in. Contractions
// (a product summed over loops) become torch.einsum. What cannot be spelt
// (non-permutation maps, index arithmetic, bit casts, ...) is an error: the
// prompt then goes without the PyTorch block and keeps its C reference.
// This file holds the spelling helpers, the writer's tensor bookkeeping, its
// walk over the function (constants, fills, transposes, softmaxes, matmuls,
// reshapes; other linalg ops go to TorchWriterBody.cpp) and the module text.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/Assemblies.h"
#include "cuda-agent/Task/RegionModule.h"
#include "cuda-agent/Task/TorchReference.h"

#include "TorchWriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::cuda_agent;

namespace mlir::cuda_agent::torch_reference {

std::optional<std::string> torchDtype(Type type) {
  if (type.isF32())
    return std::string("torch.float32");
  if (type.isF16())
    return std::string("torch.float16");
  if (type.isBF16())
    return std::string("torch.bfloat16");
  if (type.isF64())
    return std::string("torch.float64");
  if (type.isInteger(1))
    return std::string("torch.bool");
  for (unsigned width : {8, 16, 32, 64})
    if (type.isSignlessInteger(width))
      return "torch.int" + std::to_string(width);
  return std::nullopt;
}

std::string tuple(ArrayRef<int64_t> values) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleave(values, os, ", ");
  if (values.size() == 1)
    os << ",";
  os << ")";
  return text;
}

std::string args(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(values, os, ", ");
  return text;
}

/// A constant as a Python literal; nullopt for what has none.
std::optional<std::string> pythonLiteral(Attribute value) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat v = f.getValue();
    if (v.isNaN())
      return std::string("float('nan')");
    if (v.isInfinity())
      return std::string(v.isNegative() ? "float('-inf')" : "float('inf')");
    // The shortest decimal that reads back to the same value of its type.
    double d = v.convertToDouble();
    std::string s;
    for (int precision = 1; precision <= 17; ++precision) {
      s = llvm::formatv("{0}", llvm::format("%.*g", precision, d)).str();
      APFloat back(v.getSemantics());
      if (auto status = back.convertFromString(s, APFloat::rmNearestTiesToEven);
          status && back.bitwiseIsEqual(v))
        break;
      else if (!status)
        llvm::consumeError(status.takeError());
    }
    if (s.find_first_of(".e") == std::string::npos)
      s += ".0";
    return s;
  }
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (i.getType().isInteger(1))
      return std::string(i.getValue().isZero() ? "False" : "True");
    return std::to_string(i.getValue().getSExtValue());
  }
  return std::nullopt;
}

std::optional<Combiner> getCombiner(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return Combiner::Add;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return Combiner::Mul;
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(op))
    return Combiner::Max;
  if (isa<arith::MinimumFOp, arith::MinSIOp>(op))
    return Combiner::Min;
  if (isa<arith::MaxNumFOp>(op))
    return Combiner::MaxNum;
  if (isa<arith::MinNumFOp>(op))
    return Combiner::MinNum;
  return std::nullopt;
}

FailureOr<std::string> TorchWriter::tensorExpr(Value v) {
  auto it = tensors.find(v);
  if (it == tensors.end()) {
    why = "a tensor that no op of the region defines";
    return failure();
  }
  if (!it->second.splat)
    return it->second.name;
  auto type = cast<RankedTensorType>(v.getType());
  std::optional<std::string> dtype = torchDtype(type.getElementType());
  if (!dtype) {
    why = "an element type torch has no dtype for";
    return failure();
  }
  return "torch.full(" + tuple(type.getShape()) + ", " + *it->second.splat +
         ", dtype=" + *dtype + ")";
}

FailureOr<SmallVector<std::string>>
TorchWriter::unsplatTensorExprs(ValueRange values, StringRef what) {
  SmallVector<std::string> exprs;
  for (Value v : values) {
    FailureOr<std::string> x = tensorExpr(v);
    if (failed(x))
      return failure();
    if (tensors.lookup(v).splat)
      return fail(("a " + what + " of a splat").str());
    exprs.push_back(*x);
  }
  return exprs;
}

void TorchWriter::define(Value v, const Twine &expr) {
  std::string name = resultNames.lookup(v);
  if (name.empty())
    name = fresh("t");
  emit(name + " = " + expr);
  tensors[v] = {name, std::nullopt};
}

std::string TorchWriter::castTo(std::string x, Type from, Type to) {
  if (from == to)
    return x;
  return x + ".to(" + *torchDtype(to) + ")";
}

FailureOr<std::string> TorchWriter::combineInit(StringRef reduced,
                                                Combiner combiner, Value init) {
  std::optional<std::string> splat;
  Attribute splatValue;
  if (auto it = tensors.find(init); it != tensors.end()) {
    splat = it->second.splat;
    splatValue = it->second.splatValue;
  }
  // A literal init that the combiner ignores.
  if (splat && splatValue) {
    using C = Combiner;
    bool identity = false;
    if (auto f = dyn_cast<FloatAttr>(splatValue)) {
      APFloat v = f.getValue();
      identity =
          (combiner == C::Add && v.isPosZero()) ||
          (combiner == C::Mul && v.isExactlyValue(1.0)) ||
          ((combiner == C::Max || combiner == C::MaxNum) && v.isInfinity() &&
           v.isNegative()) ||
          ((combiner == C::Min || combiner == C::MinNum) && v.isInfinity() &&
           !v.isNegative()) ||
          ((combiner == C::MaxNum || combiner == C::MinNum) && v.isNaN());
    } else if (auto i = dyn_cast<IntegerAttr>(splatValue)) {
      APInt v = i.getValue();
      identity = (combiner == C::Add && v.isZero()) ||
                 (combiner == C::Mul && v.isOne()) ||
                 (combiner == C::Max && v.isMinSignedValue()) ||
                 (combiner == C::Min && v.isMaxSignedValue());
    }
    if (identity)
      return reduced.str();
  }
  std::string initExpr;
  if (splat) {
    initExpr = *splat;
  } else {
    FailureOr<std::string> e = tensorExpr(init);
    if (failed(e))
      return failure();
    initExpr = *e;
  }
  std::string initTensor =
      splat ? "torch.tensor(" + *splat +
                  ", dtype=" + *torchDtype(getElementTypeOrSelf(init)) + ")"
            : initExpr;
  switch (combiner) {
  case Combiner::Add:
    return (reduced + " + " + initExpr).str();
  case Combiner::Mul:
    return (reduced + " * " + initExpr).str();
  case Combiner::Max:
    return ("torch.maximum(" + reduced + ", " + initTensor + ")").str();
  case Combiner::Min:
    return ("torch.minimum(" + reduced + ", " + initTensor + ")").str();
  case Combiner::MaxNum:
    return ("torch.fmax(" + reduced + ", " + initTensor + ")").str();
  case Combiner::MinNum:
    return ("torch.fmin(" + reduced + ", " + initTensor + ")").str();
  }
  llvm_unreachable("every combiner is handled");
}

/// A static slice: Python's slicing, a dimension it drops indexed by its
/// offset.
LogicalResult TorchWriter::writeSlice(tensor::ExtractSliceOp slice) {
  if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
      !slice.getStrides().empty())
    return fail("a tensor.extract_slice by dynamic amounts");
  FailureOr<std::string> x = tensorExpr(slice.getSource());
  if (failed(x))
    return failure();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<std::string> indices;
  for (auto [d, offset] : llvm::enumerate(slice.getStaticOffsets())) {
    int64_t size = slice.getStaticSizes()[d];
    int64_t stride = slice.getStaticStrides()[d];
    if (dropped.test(d)) {
      indices.push_back(std::to_string(offset));
      continue;
    }
    indices.push_back(llvm::formatv("{0}:{1}:{2}", offset,
                                    offset + (size - 1) * stride + 1, stride)
                          .str());
  }
  define(slice.getResult(), *x + "[" + llvm::join(indices, ", ") + "]");
  return success();
}

/// A static pad with a constant value: `nn.functional.pad`, whose amounts
/// run from the last dimension to the first.
LogicalResult TorchWriter::writePad(tensor::PadOp pad) {
  Attribute value;
  Value padding = pad.getConstantPaddingValue();
  if (!pad.getLow().empty() || !pad.getHigh().empty() || !padding ||
      !matchPattern(padding, m_Constant(&value)))
    return fail("a tensor.pad by dynamic amounts or with a value that is not "
                "a constant");
  std::optional<std::string> literal = pythonLiteral(value);
  if (!literal)
    return fail("a pad value with no Python literal");
  FailureOr<SmallVector<std::string>> x =
      unsplatTensorExprs(pad.getSource(), "pad");
  if (failed(x))
    return failure();
  SmallVector<int64_t> amounts;
  for (int64_t d = pad.getResultType().getRank() - 1; d >= 0; --d) {
    amounts.push_back(pad.getStaticLow()[d]);
    amounts.push_back(pad.getStaticHigh()[d]);
  }
  define(pad.getResult(), "nn.functional.pad(" + x->front() + ", (" + args(amounts) +
                              "), value=" + *literal + ")");
  return success();
}

/// A static concatenation: `torch.cat`.
LogicalResult TorchWriter::writeConcat(tensor::ConcatOp concat) {
  FailureOr<SmallVector<std::string>> parts =
      unsplatTensorExprs(concat.getInputs(), "concatenation");
  if (failed(parts))
    return failure();
  define(concat.getResult(), "torch.cat([" + llvm::join(*parts, ", ") +
                                 "], dim=" + std::to_string(concat.getDim()) +
                                 ")");
  return success();
}

/// A static insert_slice: the destination cloned, the source assigned to
/// its box.
LogicalResult TorchWriter::writeInsertSlice(tensor::InsertSliceOp insert) {
  if (!isAssembly(insert))
    return fail("a tensor.insert_slice by dynamic amounts, strides or one "
                "that drops dimensions");
  FailureOr<SmallVector<std::string>> x = unsplatTensorExprs(
      {insert.getDest(), insert.getSource()}, "tensor.insert_slice");
  if (failed(x))
    return failure();
  SmallVector<std::string> box;
  for (auto [offset, size] :
       llvm::zip(insert.getStaticOffsets(), insert.getStaticSizes()))
    box.push_back(llvm::formatv("{0}:{1}", offset, offset + size).str());
  std::string result = fresh("t");
  emit(result + " = " + (*x)[0] + ".clone()");
  emit(result + "[" + llvm::join(box, ", ") + "] = " + (*x)[1]);
  tensors[insert.getResult()] = {result, std::nullopt};
  return success();
}

LogicalResult TorchWriter::writeOp(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return success(); // only ever an output nobody reads
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = constant.getValue();
    bool shaped = isa<ShapedType>(constant.getType());
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (!dense.isSplat())
        return fail("a tensor constant that is not a splat");
      value = dense.getSplatValue<Attribute>();
    }
    std::optional<std::string> literal = pythonLiteral(value);
    if (!literal)
      return fail("a constant with no Python literal");
    if (shaped) {
      tensors[constant] = {"", *literal, value};
    } else {
      scalars[constant] = *literal;
      scalarValues[constant] = value;
    }
    return success();
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    auto it = scalars.find(fill.getInputs()[0]);
    if (it == scalars.end())
      return fail("a fill whose value is not a constant");
    tensors[fill.getResult(0)] = {"", it->second,
                                  scalarValues.lookup(fill.getInputs()[0])};
    return success();
  }
  auto operandExpr = [&](Value v) { return tensorExpr(v); };
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    FailureOr<std::string> x = operandExpr(transpose.getInput());
    if (failed(x))
      return failure();
    define(transpose.getResult()[0],
           *x + ".permute(" + args(transpose.getPermutation()) + ")");
    return success();
  }
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    FailureOr<std::string> x = operandExpr(softmax.getInput());
    if (failed(x))
      return failure();
    std::string expr = "torch.softmax(" + *x +
                       ", dim=" + std::to_string(softmax.getDimension()) + ")";
    define(softmax.getResult()[0],
           castTo(expr, getElementTypeOrSelf(softmax.getInput()),
                  getElementTypeOrSelf(softmax.getOutput())));
    return success();
  }
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    bool defaultMaps =
        isa<linalg::MatmulOp>(op)
            ? linalgOp.getIndexingMapsArray() ==
                  linalg::MatmulOp::getDefaultIndexingMaps(op->getContext())
            : linalgOp.getIndexingMapsArray() ==
                  linalg::BatchMatmulOp::getDefaultIndexingMaps(
                      op->getContext());
    bool isCastSigned = true;
    if (auto m = dyn_cast<linalg::MatmulOp>(op))
      isCastSigned = m.getCast() == linalg::TypeFn::cast_signed;
    if (defaultMaps && isCastSigned) {
      Value init = linalgOp.getDpsInits()[0];
      Type accType = getElementTypeOrSelf(init);
      SmallVector<std::string> terms;
      for (Value in : linalgOp.getDpsInputs()) {
        FailureOr<std::string> x = operandExpr(in);
        if (failed(x))
          return failure();
        if (tensors.lookup(in).splat)
          return fail("a matmul of a splat");
        terms.push_back(castTo(*x, getElementTypeOrSelf(in), accType));
      }
      FailureOr<std::string> total =
          combineInit("torch.matmul(" + terms[0] + ", " + terms[1] + ")",
                      Combiner::Add, init);
      if (failed(total))
        return failure();
      define(op->getResult(0), *total);
      return success();
    }
  }
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op))
    return writeConv(conv);
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return writeGeneric(g);
  if (auto named = dyn_cast<linalg::LinalgOp>(op)) {
    IRRewriter rewriter(op->getContext());
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, named);
    if (failed(g))
      return fail("cannot generalize '" + op->getName().getStringRef() + "'");
    return writeGeneric(*g);
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return writePad(pad);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return writeSlice(slice);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return writeConcat(concat);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return writeInsertSlice(insert);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    FailureOr<std::string> x = operandExpr(op->getOperand(0));
    if (failed(x))
      return failure();
    define(
        op->getResult(0),
        *x + ".reshape(" +
            args(
                cast<RankedTensorType>(op->getResult(0).getType()).getShape()) +
            ")");
    return success();
  }
  return fail("'" + op->getName().getStringRef() + "' has no torch spelling");
}

LogicalResult TorchWriter::write(std::string &out, std::string &whyOut) {
  auto finish = [&](LogicalResult result) {
    whyOut = why;
    return result;
  };
  SmallVector<std::string> inputs;
  std::string getInputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<std::string> dtype =
        type ? torchDtype(type.getElementType()) : std::nullopt;
    if (!type || !type.hasStaticShape() || !dtype)
      return finish(fail("an argument that is not a static tensor of a "
                         "torch dtype"));
    std::string name = "in" + std::to_string(i);
    inputs.push_back(name);
    tensors[arg] = {name, std::nullopt};
    std::string shape = type.getRank() == 0 ? "()" : args(type.getShape());
    if (type.getElementType().isInteger(1))
      getInputs += "    " + name + " = torch.rand(" + shape + ") < 0.5\n";
    else if (type.getElementType().isInteger())
      getInputs += "    " + name + " = torch.randint(-8, 8, " +
                   tuple(type.getShape()) + ", dtype=" + *dtype + ")\n";
    else
      getInputs += "    " + name + " = torch.randn(" + shape +
                   (type.getRank() ? ", " : "") + "dtype=" + *dtype + ")\n";
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (!isa<BlockArgument>(v) && !resultNames.count(v))
      resultNames[v] = "out" + std::to_string(i);
  for (Operation &op :
       llvm::make_early_inc_range(func.getBody().front().without_terminator()))
    if (failed(writeOp(&op)))
      return finish(failure());
  SmallVector<std::string> results;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    FailureOr<std::string> e = tensorExpr(v);
    if (failed(e))
      return finish(failure());
    if (tensors.lookup(v).splat || isa<BlockArgument>(v)) {
      // A splat or an input returned as it is: a tensor of its own.
      std::string name = "out" + std::to_string(i);
      emit(name + " = " + *e + (isa<BlockArgument>(v) ? ".clone()" : ""));
      results.push_back(name);
    } else {
      results.push_back(*e);
    }
  }
  llvm::raw_string_ostream os(out);
  os << "import torch\nimport torch.nn as nn\n\n\n"
     << "class Model(nn.Module):\n"
     << "    def __init__(self):\n"
     << "        super().__init__()\n\n"
     << "    def forward(self" << (inputs.empty() ? "" : ", ")
     << llvm::join(inputs, ", ") << "):\n";
  for (const std::string &line : lines)
    os << line << "\n";
  os << "        return " << llvm::join(results, ", ") << "\n\n\n"
     << "def get_inputs():\n"
     << getInputs << "    return [" << llvm::join(inputs, ", ") << "]\n\n\n"
     << "def get_init_inputs():\n"
     << "    return []\n";
  return finish(success());
}

} // namespace mlir::cuda_agent::torch_reference

llvm::Expected<std::string>
cuda_agent::renderTorchReference(llvm::StringRef regionMlir) {
  llvm::Expected<RegionModule> parsed = parseRegionModule(regionMlir);
  if (!parsed)
    return parsed.takeError();
  func::FuncOp func = parsed->func;
  std::string text, why;
  torch_reference::TorchWriter writer(func);
  if (failed(writer.write(text, why)))
    return llvm::createStringError("%s", why.c_str());
  return text;
}
