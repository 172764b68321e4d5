//===- ElementEvaluator.cpp - Region values at one element ----------------===//
//
// Inlines a region's elementwise producers at one element of a consumer:
// each generic's body is written once per element (memoized by its loop
// indices), its operands read through their indexing maps.
//
// A `tensor.pad` of a region input (only in regions whose strategy reads
// pads) is read with bounds: its source at the index less the low padding
// where that is inside, else the pad value.
//
//===----------------------------------------------------------------------===//

#include "ElementEvaluator.h"
#include "cuda-agent/Outline/Assemblies.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

FailureOr<SmallVector<std::string>>
cuda_agent::builtin::readAtElement(const LinalgRegion &region, Value out,
                                   Value read, ArrayRef<std::string> idx,
                                   std::string &why) {
  std::string scratch;
  unsigned counter = 0;
  StatementWriter writer(scratch, counter);
  ElementEvaluator eval(region, writer);
  eval.probed[read] = "acc";
  if (failed(eval.valueAt(out, idx, why)))
    return failure();
  auto at = eval.probedAt.find(read);
  if (at == eval.probedAt.end()) {
    why = "an output that does not read the reduction";
    return failure();
  }
  return at->second;
}

std::string cuda_agent::builtin::indexInPart(const std::string &index,
                                             int64_t offset) {
  return offset == 0 ? index
                     : "(" + index + " - " + std::to_string(offset) + ")";
}

FailureOr<std::string> ElementEvaluator::valueAt(Value tensor,
                                                 ArrayRef<std::string> idx,
                                                 std::string &why) {
  if (auto it = known.find(tensor); it != known.end())
    return it->second;
  if (auto it = probed.find(tensor); it != probed.end()) {
    auto [at, first] = probedAt.try_emplace(tensor, idx.begin(), idx.end());
    if (!first && ArrayRef<std::string>(at->second) != idx) {
      why = "a reduced value is read at two elements of its own";
      return failure();
    }
    return it->second;
  }
  if (auto it = knownAt.find(tensor);
      it != knownAt.end() && ArrayRef<std::string>(it->second.first) == idx)
    return it->second.second;
  if (auto it = region.splats.find(tensor); it != region.splats.end())
    return it->second;
  if (auto arg = dyn_cast<BlockArgument>(tensor)) {
    // A rank-0 input (a linear layer's bias of one feature, its unit
    // dimension dropped) is one value everywhere.
    if (shapeOf(tensor).empty())
      return loadElement(arg.getArgNumber(), "0");
    return loadInput(arg.getArgNumber(), idx);
  }
  if (auto it = region.pads.find(tensor); it != region.pads.end())
    return padValueAt(it->second, idx, why);
  if (isAssembly(tensor.getDefiningOp())) {
    auto part = partOf.find(tensor);
    if (part == partOf.end()) {
      why = "an assembled tensor (a concatenation, an insert_slice) read "
            "where its part is known only at run time";
      return failure();
    }
    if (!llvm::equal(idx, writtenAt)) {
      why = "an assembled tensor (a concatenation, an insert_slice) read at "
            "another element than the one written";
      return failure();
    }
    AssemblyPart in = getAssemblyParts(tensor.getDefiningOp())[part->second];
    SmallVector<std::string> at;
    for (auto [index, offset] : llvm::zip(idx, in.offsets))
      at.push_back(indexInPart(index, offset));
    return valueAt(in.source, at, why);
  }
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  if (!generic || isReduction(generic)) {
    why = "a reduced value is read at an element outside its row";
    return failure();
  }
  unsigned resultNumber = cast<OpResult>(tensor).getResultNumber();
  AffineMap outMap =
      generic.getIndexingMapMatchingResult(cast<OpResult>(tensor));
  if (!outMap.isPermutation()) {
    why = "an output indexing map that is not a permutation";
    return failure();
  }
  SmallVector<std::string> dims(outMap.getNumDims());
  for (unsigned i = 0; i < outMap.getNumResults(); ++i)
    dims[outMap.getDimPosition(i)] = idx[i];
  FailureOr<SmallVector<std::string>> results = evaluate(generic, dims, why);
  if (failed(results))
    return failure();
  return (*results)[resultNumber];
}

FailureOr<std::string> ElementEvaluator::padValueAt(const RegionPad &pad,
                                                    ArrayRef<std::string> idx,
                                                    std::string &why) {
  SmallVector<std::string> at = padSourceIndex(pad, idx);
  SmallVector<std::string> inside = padBoundsConds(pad, at);
  if (inside.empty())
    return valueAt(pad.source, at, why);
  // Outside the source the read is of its first element (always there), so
  // the load needs no branch; the select takes the pad value instead. A
  // scalar read of an input selects its offset, once, so a window's taps
  // stay constant offsets of one base; other reads take the indices.
  std::string in = writer.bind("bool", llvm::join(inside, " && "));
  FailureOr<std::string> value;
  if (scalarReads && readsInput(pad.source)) {
    value = loadElement(cast<BlockArgument>(pad.source).getArgNumber(),
                        "(" + in + " ? " +
                            linearize(at, shapeOf(pad.source), offsets.name()) +
                            " : 0)");
  } else {
    for (size_t d = 0; d < at.size(); ++d)
      if (pad.low[d] != 0 || pad.high[d] != 0)
        at[d] = "(" + in + " ? " + at[d] + " : 0)";
    value = valueAt(pad.source, at, why);
  }
  if (failed(value))
    return failure();
  return writer.bind(getCType(elementOf(pad.source))->compute,
                     in + " ? " + *value + " : " + pad.value);
}

SmallVector<std::string>
cuda_agent::builtin::padSourceIndex(const RegionPad &pad,
                                    ArrayRef<std::string> idx) {
  SmallVector<std::string> at;
  for (auto [d, index] : llvm::enumerate(idx))
    at.push_back(pad.low[d] == 0 ? index
                                 : "(" + index + " - " +
                                       std::to_string(pad.low[d]) + ")");
  return at;
}

SmallVector<std::string>
cuda_agent::builtin::padBoundsConds(const RegionPad &pad,
                                    ArrayRef<std::string> at) {
  ArrayRef<int64_t> shape = shapeOf(pad.source);
  SmallVector<std::string> conds;
  for (auto [d, index] : llvm::enumerate(at))
    if (pad.low[d] != 0 || pad.high[d] != 0)
      conds.push_back("(unsigned long long)(" + index + ") < " +
                      std::to_string(shape[d]) + "ULL");
  return conds;
}

LogicalResult
ElementEvaluator::bindOperands(linalg::GenericOp generic,
                               ArrayRef<std::string> dims,
                               llvm::DenseMap<Value, std::string> &names,
                               std::string &why, Value skipArg) {
  Block &body = generic.getRegion().front();
  for (OpOperand &operand : generic->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (arg == skipArg || arg.use_empty())
      continue;
    FailureOr<SmallVector<std::string>> idx =
        applyIndexingMap(generic.getMatchingIndexingMap(&operand), dims, why);
    if (failed(idx))
      return failure();
    FailureOr<std::string> value = valueAt(operand.get(), *idx, why);
    if (failed(value))
      return failure();
    names[arg] = *value;
  }
  // Constants from outside the body.
  for (auto &[value, literal] : region.scalars)
    names[value] = literal;
  return success();
}

FailureOr<SmallVector<std::string>>
ElementEvaluator::evaluate(linalg::GenericOp generic,
                           ArrayRef<std::string> dims, std::string &why) {
  std::string key =
      std::to_string(reinterpret_cast<uintptr_t>(generic.getOperation())) +
      "@" + join(dims, "|");
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  llvm::DenseMap<Value, std::string> names;
  if (failed(bindOperands(generic, dims, names, why)))
    return failure();
  Block &body = generic.getRegion().front();
  // A gather reads any element: an input by a scalar read at it (not the
  // kernel's reader, which knows the element written), anything else by
  // its value there.
  StatementWriter::GatherReader outer = std::move(writer.readGathered);
  writer.readGathered = [this](Value tensor, ArrayRef<std::string> idx,
                               std::string &why) -> FailureOr<std::string> {
    if (readsInput(tensor) && !shapeOf(tensor).empty())
      return loadAt(cast<BlockArgument>(tensor).getArgNumber(), idx);
    return valueAt(tensor, idx, why);
  };
  LogicalResult written = writer.writeBlock(body, names, dims, nullptr, why);
  writer.readGathered = std::move(outer);
  if (failed(written))
    return failure();
  SmallVector<std::string> results;
  for (Value yielded : body.getTerminator()->getOperands())
    results.push_back(names.lookup(yielded));
  memo[key] = results;
  return results;
}
