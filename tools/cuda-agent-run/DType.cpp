//===- DType.cpp - Buffer element types -------------------------*- C++ -*-===//
//
// The element-type table and the host-side encoders used to generate inputs:
// f32 -> f16 and f32 -> bf16 conversions with round-to-nearest-even, written
// out here because the runner links nothing but the C++ runtime.
//
//===----------------------------------------------------------------------===//

#include "DType.h"

#include <cmath>
#include <cstring>

using namespace mlir::cuda_agent;

static const DTypeInfo kTypes[] = {
    {DType::F32, "f32", "<f4", 4, true},  {DType::F16, "f16", "<f2", 2, true},
    {DType::BF16, "bf16", "<u2", 2, true}, {DType::F64, "f64", "<f8", 8, true},
    {DType::I1, "i1", "|b1", 1, false},   {DType::I8, "i8", "|i1", 1, false},
    {DType::I16, "i16", "<i2", 2, false}, {DType::I32, "i32", "<i4", 4, false},
    {DType::I64, "i64", "<i8", 8, false}, {DType::U8, "u8", "|u1", 1, false},
};

std::optional<DType> mlir::cuda_agent::parseDType(std::string_view name) {
  for (const DTypeInfo &info : kTypes)
    if (name == info.name)
      return info.type;
  return std::nullopt;
}

const DTypeInfo &mlir::cuda_agent::getInfo(DType type) {
  for (const DTypeInfo &info : kTypes)
    if (info.type == type)
      return info;
  __builtin_unreachable();
}

bool mlir::cuda_agent::npyDescrMatches(DType type, std::string_view descr) {
  const DTypeInfo &info = getInfo(type);
  std::string_view canonical = info.npyDescr;
  if (descr.size() != canonical.size() || descr.empty())
    return false;
  // Byte order does not matter for one byte; '=' is little-endian on x86-64.
  bool orderOk = descr[0] == canonical[0] || descr[0] == '=' || info.size == 1;
  return orderOk && descr.substr(1) == canonical.substr(1);
}

static uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

static uint16_t floatToHalf(float f) {
  uint32_t bits = floatBits(f);
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t abs = bits & 0x7fffffff;
  if (abs >= 0x7f800000) // Inf or NaN (keep NaN quiet)
    return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
  if (abs >= 0x477ff000) // >= 65520 rounds to Inf
    return sign | 0x7c00;
  if (abs < 0x38800000) // below 2^-14: a half subnormal, unit 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(std::fabs(f) * 0x1p24f));
  // Rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
}

static uint16_t floatToBFloat16(float f) {
  uint32_t bits = floatBits(f);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

static float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

static float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
  if (exponent == 0x1f) // Inf or NaN
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

void mlir::cuda_agent::encodeFloat(DType type, double value, void *out) {
  float f = static_cast<float>(value);
  uint16_t half;
  switch (type) {
  case DType::F32:
    std::memcpy(out, &f, 4);
    return;
  case DType::F64:
    std::memcpy(out, &value, 8);
    return;
  case DType::F16:
    half = floatToHalf(f);
    std::memcpy(out, &half, 2);
    return;
  case DType::BF16:
    half = floatToBFloat16(f);
    std::memcpy(out, &half, 2);
    return;
  default:
    encodeInt(type, static_cast<int64_t>(value), out);
  }
}

void mlir::cuda_agent::encodeInt(DType type, int64_t value, void *out) {
  if (getInfo(type).isFloat)
    return encodeFloat(type, static_cast<double>(value), out);
  // Little-endian: the low bytes of the 64-bit value are the narrow value.
  if (type == DType::I1)
    value = value != 0;
  std::memcpy(out, &value, getInfo(type).size);
}

double mlir::cuda_agent::decodeFloat(DType type, const void *in) {
  uint16_t half;
  float f;
  double d;
  switch (type) {
  case DType::F32:
    std::memcpy(&f, in, 4);
    return f;
  case DType::F64:
    std::memcpy(&d, in, 8);
    return d;
  case DType::F16:
    std::memcpy(&half, in, 2);
    return halfToFloat(half);
  case DType::BF16:
    std::memcpy(&half, in, 2);
    return bitsToFloat(uint32_t(half) << 16);
  default:
    return double(decodeInt(type, in));
  }
}

int64_t mlir::cuda_agent::decodeInt(DType type, const void *in) {
  switch (type) {
  case DType::I1:
  case DType::U8:
    return *static_cast<const uint8_t *>(in);
  case DType::I8:
    return *static_cast<const int8_t *>(in);
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, in, 2);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, in, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, in, 8);
    return v;
  }
  default:
    return static_cast<int64_t>(decodeFloat(type, in));
  }
}
