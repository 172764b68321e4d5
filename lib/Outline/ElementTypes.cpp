//===- ElementTypes.cpp - Element type spellings -----------------------------===//
//
// See ElementTypes.h.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/ElementTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::string cuda_agent::getDtypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  for (unsigned width : {1u, 8u, 16u, 32u, 64u})
    if (type.isSignlessInteger(width))
      return "i" + std::to_string(width);
  return "";
}

Type cuda_agent::parseDtypeName(MLIRContext *ctx, StringRef dtype) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("f32", b.getF32Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("f64", b.getF64Type())
      .Case("i1", b.getI1Type())
      .Cases("i8", "u8", b.getI8Type())
      .Case("i16", b.getI16Type())
      .Case("i32", b.getI32Type())
      .Case("i64", b.getI64Type())
      .Default(Type());
}

bool cuda_agent::isRegionElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16() || type.isF64() ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

StringRef cuda_agent::getRegionElementTypesText() {
  return "f32, f16, bf16, f64, i32 and i64";
}
