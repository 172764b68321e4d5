//===- CReference.cpp - Regions as plain C loop nests ---------------------===//
//
// Spells a region as the C loop nests a model reads in its prompt: one loop
// per linalg loop over row-major arrays, temporaries as static arrays,
// outputs that start from a value filled first, and each body written
// statement by statement (CudaExpr.h), f16/bf16 computed in float.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Task/CReference.h"
#include "cuda-agent/Outline/Assemblies.h"
#include "cuda-agent/Task/CudaExpr.h"
#include "cuda-agent/Task/LinalgRegion.h"
#include "cuda-agent/Task/RegionModule.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;

/// Appends to `text` the loops over a box of `sizes` (indices `prefix`0,
/// `prefix`1, ...) around the statement `statement` writes of the indices.
static void writeBoxLoops(
    std::string &text, StringRef prefix, ArrayRef<int64_t> sizes,
    llvm::function_ref<std::string(ArrayRef<std::string>)> statement) {
  SmallVector<std::string> idx;
  std::string indent = "  ";
  for (auto [d, size] : llvm::enumerate(sizes)) {
    idx.push_back((prefix + Twine(d)).str());
    text += indent + llvm::formatv("for (long long {0} = 0; {0} < {1}; "
                                   "++{0}) {{\n",
                                   idx.back(), size)
                         .str();
    indent += "  ";
  }
  text += indent + statement(idx) + "\n";
  for (size_t d = sizes.size(); d > 0; --d) {
    indent.resize(indent.size() - 2);
    text += indent + "}\n";
  }
}

llvm::Expected<std::string>
cuda_agent::renderCReference(llvm::StringRef regionMlir) {
  llvm::Expected<RegionModule> parsed = parseRegionModule(regionMlir);
  if (!parsed)
    return parsed.takeError();
  func::FuncOp func = parsed->func;
  LinalgRegion region;
  std::string why;
  if (failed(readLinalgRegion(func, region, why, /*allowContractions=*/true,
                              /*allowPads=*/true)))
    return llvm::createStringError("%s", why.c_str());

  // Where each tensor lives: inN, outN, a local array tN, or a splat value.
  llvm::DenseMap<Value, std::string> arrays;
  for (auto [i, in] : llvm::enumerate(region.inputs))
    arrays[in] = "in" + std::to_string(i);
  for (auto [o, out] : llvm::enumerate(region.outputs))
    if (!arrays.count(out))
      arrays[out] = "out" + std::to_string(o);
  // The element at `offset` of `v`: its splat value, or a read of its array.
  auto readAt = [&](Value v, const std::string &offset) {
    return region.splats.count(v)
               ? region.splats.lookup(v)
               : loadAs(elementOf(v), arrays.lookup(v) + "[" + offset + "]");
  };
  // A host-style reference: the kernels' parameters, no __global__.
  std::string text = "void region(" + renderParameters(region) + ") {\n";
  unsigned counter = 0, temps = 0;
  // Pads (of region arguments) are temporaries: the pad value everywhere,
  // then the source copied inside.
  for (auto padOp : func.getBody().front().getOps<tensor::PadOp>()) {
    const RegionPad &pad = region.pads.find(padOp.getResult())->second;
    Value result = padOp.getResult();
    std::string name = "t" + std::to_string(temps++);
    arrays[result] = name;
    int64_t n = product(shapeOf(result));
    text += "  static " + getCType(elementOf(result))->storage + " " + name +
            "[" + std::to_string(n) + "];\n";
    text += llvm::formatv("  for (long long i = 0; i < {0}; ++i)\n"
                          "    {1}[i] = {2};\n",
                          n, name, storeAs(elementOf(result), pad.value))
                .str();
    ArrayRef<int64_t> sourceShape = shapeOf(pad.source);
    ArrayRef<int64_t> resultShape = shapeOf(result);
    writeBoxLoops(text, "p", sourceShape, [&](ArrayRef<std::string> idx) {
      SmallVector<std::string> resultIdx, inside;
      for (auto [d, i] : llvm::enumerate(idx)) {
        resultIdx.push_back(i + " + " + std::to_string(pad.low[d]));
        // Negative amounts (the pad of a slice): parts of the source are
        // not in the padded tensor.
        if (pad.low[d] < 0 || pad.high[d] < 0)
          inside.push_back("(unsigned long long)(" + resultIdx.back() +
                           ") < " + std::to_string(resultShape[d]) + "ULL");
      }
      return (inside.empty() ? "" : "if (" + llvm::join(inside, " && ") + ") ") +
             name + "[" + linearize(resultIdx, resultShape) +
             "] = " + arrays.lookup(pad.source) + "[" +
             linearize(idx, sourceShape) + "];";
    });
  }
  auto access = [&](Value v, AffineMap map,
                    ArrayRef<std::string> dims) -> FailureOr<std::string> {
    if (auto it = region.splats.find(v); it != region.splats.end())
      return it->second;
    FailureOr<SmallVector<std::string>> idx = applyIndexingMap(map, dims, why);
    if (failed(idx))
      return failure();
    return arrays.lookup(v) + "[" + linearize(*idx, shapeOf(v)) + "]";
  };
  // A local array for each result that is no output.
  auto declare = [&](Value result) {
    if (arrays.count(result))
      return;
    std::string name = "t" + std::to_string(temps++);
    text += "  static " + getCType(elementOf(result))->storage + " " + name +
            "[" + std::to_string(product(shapeOf(result))) + "];\n";
    arrays[result] = name;
  };
  auto writeGeneric = [&](linalg::GenericOp g) -> LogicalResult {
    for (Value result : g.getResults())
      declare(result);
    Block &body = g.getRegion().front();
    // Outputs that start from a value (a fill, another tensor) get it first.
    for (OpOperand &init : g.getDpsInitsMutable()) {
      BlockArgument arg = body.getArgument(init.getOperandNumber());
      Value result = g.getTiedOpResult(&init);
      if (arg.use_empty())
        continue;
      int64_t n = product(shapeOf(result));
      std::string from = readAt(init.get(), "i");
      text += llvm::formatv("  for (long long i = 0; i < {0}; ++i)\n"
                            "    {1}[i] = {2};\n",
                            n, arrays.lookup(result),
                            storeAs(elementOf(result), from))
                  .str();
    }
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<std::string> dims;
    std::string indent = "  ";
    for (auto [d, range] : llvm::enumerate(ranges)) {
      dims.push_back("d" + std::to_string(d));
      text +=
          indent + llvm::formatv("for (long long d{0} = 0; d{0} < {1}; ++d{0})"
                                 " {{  // {2}\n",
                                 d, range,
                                 stringifyEnum(g.getIteratorTypesArray()[d]))
                       .str();
      indent += "  ";
    }
    llvm::DenseMap<Value, std::string> names;
    std::string stmts;
    StatementWriter writer(stmts, counter);
    for (OpOperand &operand : g->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      Value source =
          g.isDpsInit(&operand) ? g.getTiedOpResult(&operand) : operand.get();
      FailureOr<std::string> ref =
          access(source, g.getMatchingIndexingMap(&operand), dims);
      if (failed(ref))
        return failure();
      names[arg] =
          region.splats.count(source) ? *ref : loadAs(elementOf(source), *ref);
    }
    for (auto &[value, literal] : region.scalars)
      names[value] = literal;
    if (failed(writer.writeBlock(body, names, dims, nullptr, why)))
      return failure();
    for (auto [r, yielded] :
         llvm::enumerate(body.getTerminator()->getOperands())) {
      OpResult result = g->getResult(r);
      FailureOr<std::string> ref =
          access(result, g.getIndexingMapMatchingResult(result), dims);
      if (failed(ref))
        return failure();
      stmts += "    " + *ref + " = " +
               storeAs(elementOf(result), names.lookup(yielded)) + ";\n";
    }
    // Re-indent the statements under the loops.
    for (StringRef line : llvm::split(StringRef(stmts).rtrim('\n'), '\n'))
      text += indent + line.ltrim().str() + "\n";
    for (size_t d = ranges.size(); d > 0; --d) {
      indent.resize(indent.size() - 2);
      text += indent + "}\n";
    }
    return success();
  };
  // Assembled tensors (Assemblies.h): each part copied into its box, the
  // last first, so that earlier parts win where boxes overlap (an
  // insert_slice's source over its destination).
  auto writeAssembly = [&](Operation *assembly) {
    Value result = assembly->getResult(0);
    declare(result);
    SmallVector<AssemblyPart> parts = getAssemblyParts(assembly);
    for (const AssemblyPart &part : llvm::reverse(parts))
      writeBoxLoops(text, "c", part.sizes, [&](ArrayRef<std::string> idx) {
        SmallVector<std::string> to;
        for (auto [i, offset] : llvm::zip(idx, part.offsets))
          to.push_back(offset != 0 ? i + " + " + std::to_string(offset) : i);
        return arrays.lookup(result) + "[" + linearize(to, shapeOf(result)) +
               "] = " +
               storeAs(elementOf(result),
                       readAt(part.source, linearize(idx, part.sizes))) +
               ";";
      });
  };
  // The region's ops in program order: a generic may read an assembly.
  SmallVector<Operation *> ops(region.assemblies);
  for (linalg::GenericOp g : region.generics)
    ops.push_back(g);
  llvm::sort(ops, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  for (Operation *op : ops) {
    if (auto g = dyn_cast<linalg::GenericOp>(op)) {
      if (failed(writeGeneric(g)))
        return llvm::createStringError("%s", why.c_str());
    } else {
      writeAssembly(op);
    }
  }
  text += "}\n";
  return text;
}
