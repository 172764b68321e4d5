//===- DType.h - Buffer element types ---------------------------*- C++ -*-===//
//
// The element types a launch plan may name, with their sizes and their .npy
// spellings. bf16 has no numpy dtype: its raw bits are stored as '<u2'.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_RUN_DTYPE_H
#define CUDA_AGENT_RUN_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mlir::cuda_agent {

enum class DType { F32, F16, BF16, F64, I1, I8, I16, I32, I64, U8 };

/// What the runner needs to know about an element type.
struct DTypeInfo {
  DType type;
  const char *name;     ///< plan spelling: "f32", "bf16", "i1", ...
  const char *npyDescr; ///< numpy descr written to .npy files: "<f4", "<u2"
  unsigned size;        ///< bytes per element
  bool isFloat;         ///< true for f32/f16/bf16/f64
};

/// Returns the type spelled `name` in a plan ("f32", "f16", "bf16", "f64",
/// "i1", "i8", "i16", "i32", "i64", "u8"), or nullopt.
std::optional<DType> parseDType(std::string_view name);

const DTypeInfo &getInfo(DType type);

/// Returns true when a .npy descr read from a file stores `type`: the
/// canonical descr, or the same with '=' (native little-endian here) or, for
/// one-byte types, any byte-order character.
bool npyDescrMatches(DType type, std::string_view descr);

/// Encodes `value` as one element of a floating-point `type` (round to
/// nearest even) into `out`, which must hold getInfo(type).size bytes.
void encodeFloat(DType type, double value, void *out);

/// Encodes `value` as one element of an integer `type` into `out`.
void encodeInt(DType type, int64_t value, void *out);

/// Decodes one element of a floating-point `type` stored at `in` (exactly;
/// every f16/bf16/f32 value is representable as a double).
double decodeFloat(DType type, const void *in);

/// Decodes one element of an integer `type` stored at `in` (sign-extended;
/// u8 and i1 are unsigned).
int64_t decodeInt(DType type, const void *in);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_RUN_DTYPE_H
