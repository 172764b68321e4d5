//===- TorchWriter.h - Regions as PyTorch modules, private -----*- C++ -*-===//
//
// What the two halves of the PyTorch reference writer share: TorchWriter
// (one region's function spelt line by line as a KernelBench module), the
// values it tracks (tensors of the function body, values of a generic's body
// in the loop space), the combiners of reductions and the small spelling
// helpers (dtypes, tuples, Python literals). TorchReference.cpp walks the
// function and writes the module; TorchWriterBody.cpp writes the structured
// ops (generics, their bodies, contractions, convolutions).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_LIB_TASK_TORCHWRITER_H
#define CUDA_AGENT_LIB_TASK_TORCHWRITER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::cuda_agent::torch_reference {

/// The torch dtype of an element type; nullopt for what torch has none of.
std::optional<std::string> torchDtype(Type type);

/// `values` as a Python tuple: `(a, b)`, `(a,)` for one, `()` for none.
std::string tuple(ArrayRef<int64_t> values);

/// `values` as call arguments: `a, b`.
std::string args(ArrayRef<int64_t> values);

/// A constant as a Python literal; nullopt for what has none.
std::optional<std::string> pythonLiteral(Attribute value);

/// How a reduction folds its accumulator.
enum class Combiner { Add, Mul, Max, Min, MaxNum, MinNum };

/// The combiner `op` is, if it is one.
std::optional<Combiner> getCombiner(Operation *op);

/// A value of a generic's body in the loop space: an expression whose
/// shape broadcasts to the loop ranges, the loop dims it varies along, and
/// whether it is a plain Python scalar (a constant, or arithmetic on them).
struct LoopValue {
  std::string expr;
  llvm::SmallBitVector dims;
  bool python = false;
  Type type;
};

/// A tensor of the function body: a Python variable, or a splat (a fill or
/// a splat constant) kept as its literal until something needs the tensor.
struct TensorValue {
  std::string name;
  std::optional<std::string> splat;
  Attribute splatValue = {};
};

/// Writes one region's function as a KernelBench PyTorch module.
class TorchWriter {
public:
  TorchWriter(func::FuncOp func) : func(func) {}

  LogicalResult write(std::string &out, std::string &why);

private:
  LogicalResult fail(const Twine &message) {
    why = message.str();
    return failure();
  }
  std::string fresh(StringRef prefix) {
    return (prefix + Twine(counters[prefix]++)).str();
  }
  void emit(const Twine &line) { lines.push_back("        " + line.str()); }

  /// The tensor `v` as a Python expression (a splat becomes torch.full).
  FailureOr<std::string> tensorExpr(Value v);
  /// The tensors `values` as Python expressions, none of them a splat
  /// (torch.full would be on the CPU beside the inputs); `what` names the
  /// op in the reason.
  FailureOr<SmallVector<std::string>> unsplatTensorExprs(ValueRange values,
                                                         StringRef what);
  /// Names the result `v` of an op as `expr`.
  void define(Value v, const Twine &expr);
  /// `x` cast to the element type of `to` when `from` differs.
  std::string castTo(std::string x, Type from, Type to);

  LogicalResult writeOp(Operation *op);
  LogicalResult writeGeneric(linalg::GenericOp g);
  FailureOr<bool> writeContraction(linalg::GenericOp g);
  LogicalResult writeConv(linalg::Conv2DNhwcHwcfOp conv);
  LogicalResult writePad(tensor::PadOp pad);
  LogicalResult writeSlice(tensor::ExtractSliceOp slice);
  LogicalResult writeConcat(tensor::ConcatOp concat);
  LogicalResult writeInsertSlice(tensor::InsertSliceOp insert);
  FailureOr<LoopValue> writeBodyOp(Operation &op,
                                   llvm::DenseMap<Value, LoopValue> &values,
                                   unsigned rank);
  /// `init` combined into `reduced` by the combiner `kind`, skipping the
  /// combiner's identity.
  FailureOr<std::string> combineInit(StringRef reduced, Combiner combiner,
                                     Value init);

  func::FuncOp func;
  std::vector<std::string> lines;
  llvm::DenseMap<Value, TensorValue> tensors;
  llvm::DenseMap<Value, std::string> scalars; // function-level constants
  llvm::DenseMap<Value, Attribute> scalarValues;
  llvm::DenseMap<Value, std::string> resultNames;
  llvm::StringMap<unsigned> counters;
  std::string why;
};

} // namespace mlir::cuda_agent::torch_reference

#endif // CUDA_AGENT_LIB_TASK_TORCHWRITER_H
