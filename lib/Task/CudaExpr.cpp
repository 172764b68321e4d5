//===- CudaExpr.cpp - linalg bodies as CUDA C statements ------------------===//

#include "cuda-agent/Task/CudaExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;

std::optional<CType> cuda_agent::getCType(Type type) {
  if (type.isF32())
    return CType{"float", "float"};
  if (type.isF16())
    return CType{"__half", "float"};
  if (type.isBF16())
    return CType{"__nv_bfloat16", "float"};
  if (type.isF64())
    return CType{"double", "double"};
  if (type.isInteger(1))
    return CType{"bool", "bool"};
  if (type.isInteger(8))
    return CType{"signed char", "int"};
  if (type.isInteger(16))
    return CType{"short", "int"};
  if (type.isInteger(32) || type.isIndex())
    return CType{"int", "int"};
  if (type.isInteger(64))
    return CType{"long long", "long long"};
  return std::nullopt;
}

std::string cuda_agent::loadAs(Type type, StringRef ref) {
  if (type.isF16())
    return ("__half2float(" + ref + ")").str();
  if (type.isBF16())
    return ("__bfloat162float(" + ref + ")").str();
  return ref.str();
}

std::string cuda_agent::storeAs(Type type, StringRef value) {
  if (type.isF16())
    return ("__float2half_rn(" + value + ")").str();
  if (type.isBF16())
    return ("__float2bfloat16_rn(" + value + ")").str();
  return ("(" + getCType(type)->storage + ")(" + value + ")").str();
}

StringRef cuda_agent::getPrelude() {
  return R"cuda(#include <cuda_fp16.h>
#include <cuda_bf16.h>

// arith.maximumf / minimumf: NaN in, NaN out (fmaxf would drop it). On
// sm_80 and later one instruction, max.NaN (min.NaN); before, a select.
__device__ __forceinline__ float ca_maximum(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fmaxf(a, b);
#endif
}
__device__ __forceinline__ float ca_minimum(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fminf(a, b);
#endif
}
__device__ __forceinline__ double ca_maximum(double a, double b) {
  return (a != a || b != b) ? __longlong_as_double(0x7ff8000000000000LL) : fmax(a, b);
}
__device__ __forceinline__ double ca_minimum(double a, double b) {
  return (a != a || b != b) ? __longlong_as_double(0x7ff8000000000000LL) : fmin(a, b);
}
// N consecutive elements moved as one aligned access (16 bytes: ld.v4).
template <typename T, int N> struct __align__(sizeof(T) * N) ca_vec { T v[N]; };
// 16 bytes read once: no L1 allocation, a 256-byte L2 prefetch.
template <typename T, int N>
__device__ __forceinline__ ca_vec<T, N> ca_load_stream(const ca_vec<T, N> *p) {
  static_assert(sizeof(ca_vec<T, N>) == 16, "16-byte vectors only");
  ca_vec<T, N> v;
  uint4 &r = *reinterpret_cast<uint4 *>(&v);
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return v;
}
)cuda";
}

std::optional<std::string> cuda_agent::spellLiteral(Attribute attr) {
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    if (f.getType().isF64())
      return llvm::formatv("__longlong_as_double(0x{0:x-16}LL)",
                           f.getValue().bitcastToAPInt().getZExtValue())
          .str();
    // f32, and f16/bf16 widened exactly to float.
    bool lost = false;
    llvm::APFloat value = f.getValue();
    value.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    return llvm::formatv("__int_as_float(0x{0:x-8})",
                         value.bitcastToAPInt().getZExtValue())
        .str();
  }
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (i.getType().isInteger(1))
      return std::string(i.getValue().isZero() ? "false" : "true");
    // An index is 64 bits (linalg.index reads as a long long).
    bool wide = i.getType().isIndex() || i.getType().getIntOrFloatBitWidth() > 32;
    return std::to_string(i.getValue().getSExtValue()) + (wide ? "LL" : "");
  }
  return std::nullopt;
}

namespace {
std::string mathName(StringRef base, Type type) {
  return type.isF64() ? base.str() : (base + "f").str();
}

std::optional<std::string> spellCmpF(arith::CmpFPredicate p, StringRef a,
                                     StringRef b) {
  std::string x = a.str(), y = b.str();
  std::string nan = "(" + x + " != " + x + " || " + y + " != " + y + ")";
  switch (p) {
  case arith::CmpFPredicate::OEQ:
    return x + " == " + y;
  case arith::CmpFPredicate::OGT:
    return x + " > " + y;
  case arith::CmpFPredicate::OGE:
    return x + " >= " + y;
  case arith::CmpFPredicate::OLT:
    return x + " < " + y;
  case arith::CmpFPredicate::OLE:
    return x + " <= " + y;
  case arith::CmpFPredicate::ONE:
    return "(" + x + " < " + y + " || " + x + " > " + y + ")";
  case arith::CmpFPredicate::ORD:
    return "!" + nan;
  case arith::CmpFPredicate::UNO:
    return nan;
  case arith::CmpFPredicate::UEQ:
    return "(" + x + " == " + y + " || " + nan + ")";
  case arith::CmpFPredicate::UGT:
    return "!(" + x + " <= " + y + ")";
  case arith::CmpFPredicate::UGE:
    return "!(" + x + " < " + y + ")";
  case arith::CmpFPredicate::ULT:
    return "!(" + x + " >= " + y + ")";
  case arith::CmpFPredicate::ULE:
    return "!(" + x + " > " + y + ")";
  case arith::CmpFPredicate::UNE:
    return x + " != " + y;
  case arith::CmpFPredicate::AlwaysTrue:
    return std::string("true");
  case arith::CmpFPredicate::AlwaysFalse:
    return std::string("false");
  }
  return std::nullopt;
}

std::optional<std::string> spellCmpI(arith::CmpIPredicate p, StringRef a,
                                     StringRef b) {
  std::string x = a.str(), y = b.str();
  auto u = [](const std::string &v) {
    return "(unsigned long long)(" + v + ")";
  };
  switch (p) {
  case arith::CmpIPredicate::eq:
    return x + " == " + y;
  case arith::CmpIPredicate::ne:
    return x + " != " + y;
  case arith::CmpIPredicate::slt:
    return x + " < " + y;
  case arith::CmpIPredicate::sle:
    return x + " <= " + y;
  case arith::CmpIPredicate::sgt:
    return x + " > " + y;
  case arith::CmpIPredicate::sge:
    return x + " >= " + y;
  case arith::CmpIPredicate::ult:
    return u(x) + " < " + u(y);
  case arith::CmpIPredicate::ule:
    return u(x) + " <= " + u(y);
  case arith::CmpIPredicate::ugt:
    return u(x) + " > " + u(y);
  case arith::CmpIPredicate::uge:
    return u(x) + " >= " + u(y);
  }
  return std::nullopt;
}
/// The C library function (its double name) that computes a float op of
/// its operands in order, or none.
std::optional<StringRef> getMathFunction(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<StringRef>>(op)
      .Case([](arith::RemFOp) { return "fmod"; })
      .Case([](arith::MaxNumFOp) { return "fmax"; })
      .Case([](arith::MinNumFOp) { return "fmin"; })
      .Case([](math::Atan2Op) { return "atan2"; })
      .Case([](math::CopySignOp) { return "copysign"; })
      .Case([](math::ExpOp) { return "exp"; })
      .Case([](math::Exp2Op) { return "exp2"; })
      .Case([](math::ExpM1Op) { return "expm1"; })
      .Case([](math::LogOp) { return "log"; })
      .Case([](math::Log2Op) { return "log2"; })
      .Case([](math::Log10Op) { return "log10"; })
      .Case([](math::Log1pOp) { return "log1p"; })
      .Case([](math::SqrtOp) { return "sqrt"; })
      .Case([](math::RsqrtOp) { return "rsqrt"; })
      .Case([](math::CbrtOp) { return "cbrt"; })
      .Case([](math::ErfOp) { return "erf"; })
      .Case([](math::ErfcOp) { return "erfc"; })
      .Case([](math::SinOp) { return "sin"; })
      .Case([](math::CosOp) { return "cos"; })
      .Case([](math::TanOp) { return "tan"; })
      .Case([](math::AsinOp) { return "asin"; })
      .Case([](math::AcosOp) { return "acos"; })
      .Case([](math::AtanOp) { return "atan"; })
      .Case([](math::SinhOp) { return "sinh"; })
      .Case([](math::CoshOp) { return "cosh"; })
      .Case([](math::TanhOp) { return "tanh"; })
      .Case([](math::AsinhOp) { return "asinh"; })
      .Case([](math::AcoshOp) { return "acosh"; })
      .Case([](math::AtanhOp) { return "atanh"; })
      .Case([](math::AbsFOp) { return "fabs"; })
      .Case([](math::FloorOp) { return "floor"; })
      .Case([](math::CeilOp) { return "ceil"; })
      .Case([](math::TruncOp) { return "trunc"; })
      // Halves away from zero, as math.round.
      .Case([](math::RoundOp) { return "round"; })
      // Halves to even: rint in the default rounding mode.
      .Case([](math::RoundEvenOp) { return "rint"; })
      .Default([](Operation *) { return std::nullopt; });
}
} // namespace

std::string StatementWriter::bind(StringRef ctype, StringRef expr) {
  std::string name = fresh();
  out += ("    const " + ctype + " " + name + " = " + expr + ";\n").str();
  return name;
}

LogicalResult StatementWriter::writeBlock(
    Block &block, llvm::DenseMap<Value, std::string> &names,
    ArrayRef<std::string> dims, Operation *skip, std::string &why) {
  for (Operation &op : block.without_terminator())
    if (&op != skip && failed(writeOp(op, names, dims, why)))
      return failure();
  return success();
}

LogicalResult
StatementWriter::writeOp(Operation &op,
                         llvm::DenseMap<Value, std::string> &names,
                         ArrayRef<std::string> dims, std::string &why) {
  if (op.getNumResults() != 1) {
    why = "cannot spell '" + op.getName().getStringRef().str() + "' in CUDA C";
    return failure();
  }
  Type type = op.getResult(0).getType();
  std::optional<CType> ctype = getCType(type);
  auto arg = [&](unsigned i) { return names.lookup(op.getOperand(i)); };
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    SmallVector<std::string> idx;
    for (Value index : extract.getIndices())
      idx.push_back(names.lookup(index));
    if (!readGathered || llvm::is_contained(idx, std::string())) {
      why = "cannot read the tensor a 'tensor.extract' gathers from here";
      return failure();
    }
    FailureOr<std::string> value =
        readGathered(extract.getTensor(), idx, why);
    if (failed(value))
      return failure();
    names[op.getResult(0)] = *value;
    return success();
  }
  for (Value operand : op.getOperands())
    if (!names.count(operand)) {
      why = "an operand of '" + op.getName().getStringRef().str() +
            "' is defined outside the region";
      return failure();
    }
  std::optional<std::string> expr =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(&op)
          .Case([&](arith::ConstantOp c) { return spellLiteral(c.getValue()); })
          .Case<arith::AddFOp, arith::AddIOp>(
              [&](auto) { return arg(0) + " + " + arg(1); })
          .Case<arith::SubFOp, arith::SubIOp>(
              [&](auto) { return arg(0) + " - " + arg(1); })
          .Case<arith::MulFOp, arith::MulIOp>(
              [&](auto) { return arg(0) + " * " + arg(1); })
          .Case([&](arith::DivFOp) {
            // By a loop-invariant or constant f32: the reciprocal, which
            // the CUDA compiler hoists or folds, times the element (within
            // 1.5 ulp of the quotient, exact for powers of two; the IEEE
            // division costs ~10 instructions each, which is what bounds
            // GELU's x / sqrt(2) over a memory-bound tensor).
            // Not where the quotient is rounded to an integer (a gather's
            // source index): there 1 ulp moves the element read.
            bool rounded = llvm::any_of(op.getUsers(), [](Operation *user) {
              return isa<math::FloorOp, math::CeilOp, math::TruncOp,
                         math::RoundOp, math::RoundEvenOp, arith::FPToSIOp,
                         arith::FPToUIOp>(user);
            });
            if (type.isF32() && !rounded &&
                (invariants.contains(arg(1)) ||
                 op.getOperand(1).getDefiningOp<arith::ConstantOp>()))
              return arg(0) + " * (1.0f / " + arg(1) + ")";
            return arg(0) + " / " + arg(1);
          })
          .Case([&](arith::DivSIOp) { return arg(0) + " / " + arg(1); })
          .Case<arith::RemSIOp>([&](auto) { return arg(0) + " % " + arg(1); })
          .Case<arith::DivUIOp, arith::RemUIOp>([&](auto) {
            std::string u = "(unsigned " + ctype->compute + ")";
            return "(" + ctype->compute + ")(" + u + arg(0) +
                   (isa<arith::DivUIOp>(op) ? " / " : " % ") + u + arg(1) +
                   ")";
          })
          .Case<arith::AndIOp>([&](auto) { return arg(0) + " & " + arg(1); })
          .Case<arith::OrIOp>([&](auto) { return arg(0) + " | " + arg(1); })
          .Case<arith::XOrIOp>([&](auto) { return arg(0) + " ^ " + arg(1); })
          .Case<arith::NegFOp>([&](auto) { return "-" + arg(0); })
          .Case<arith::MaximumFOp>([&](auto) {
            return "ca_maximum(" + arg(0) + ", " + arg(1) + ")";
          })
          .Case<arith::MinimumFOp>([&](auto) {
            return "ca_minimum(" + arg(0) + ", " + arg(1) + ")";
          })
          .Case<math::AbsIOp>([&](auto) {
            return std::string(type.isInteger(64) ? "llabs(" : "abs(") +
                   arg(0) + ")";
          })
          .Case<arith::MaxSIOp>(
              [&](auto) { return "max(" + arg(0) + ", " + arg(1) + ")"; })
          .Case<arith::MinSIOp>(
              [&](auto) { return "min(" + arg(0) + ", " + arg(1) + ")"; })
          .Case<arith::SelectOp>(
              [&](auto) { return arg(0) + " ? " + arg(1) + " : " + arg(2); })
          .Case([&](arith::CmpFOp c) {
            return spellCmpF(c.getPredicate(), arg(0), arg(1));
          })
          .Case([&](arith::CmpIOp c) {
            return spellCmpI(c.getPredicate(), arg(0), arg(1));
          })
          .Case<arith::ExtFOp>([&](auto) { return arg(0); })
          .Case<arith::TruncFOp>([&](auto) -> std::optional<std::string> {
            // Round to the narrow type, compute on in its compute type.
            if (type.isF16())
              return "__half2float(__float2half_rn(" + arg(0) + "))";
            if (type.isBF16())
              return "__bfloat162float(__float2bfloat16_rn(" + arg(0) + "))";
            return "(" + ctype->compute + ")(" + arg(0) + ")";
          })
          .Case<arith::SIToFPOp, arith::FPToSIOp, arith::ExtSIOp,
                arith::TruncIOp, arith::IndexCastOp>(
              [&](auto) -> std::optional<std::string> {
                if (type.isF16() || type.isBF16())
                  return std::string(); // not handled: rounding to half
                return "(" + ctype->compute + ")(" + arg(0) + ")";
              })
          .Case<arith::UIToFPOp, arith::ExtUIOp>(
              [&](auto) -> std::optional<std::string> {
                if (type.isF16() || type.isBF16())
                  return std::string();
                return "(" + ctype->compute + ")(unsigned long long)(" +
                       arg(0) + ")";
              })
          .Case<math::FPowIOp>([&](math::FPowIOp pow) -> std::string {
            // x^n for an integer n (torch's x ** 2): a constant n from 1
            // to 4 as products (what torch's own kernels compute), any
            // other n through pow.
            IntegerAttr n;
            if (matchPattern(pow.getRhs(), m_Constant(&n)) &&
                n.getValue().sge(1) && n.getValue().sle(4))
              return join(SmallVector<std::string>(n.getInt(), arg(0)),
                          " * ");
            return mathName("pow", type) + "(" + arg(0) + ", (" +
                   ctype->compute + ")" + arg(1) + ")";
          })
          .Case<math::PowFOp>([&](math::PowFOp pow) -> std::string {
            // x ** 2.0 (torch's norms: abs(x) ** 2) as x * x: the same
            // value for every x, NaN, infinities and zeros included, and
            // correctly rounded, where pow is a library call of many
            // instructions a memory-bound kernel pays for; any other
            // exponent through pow.
            FloatAttr exponent;
            if (matchPattern(pow.getRhs(), m_Constant(&exponent)) &&
                exponent.getValue().isExactlyValue(2.0))
              return arg(0) + " * " + arg(0);
            return mathName("pow", type) + "(" + arg(0) + ", " + arg(1) + ")";
          })
          .Case<math::FmaOp>([&](auto) {
            return mathName("fma", type) + "(" + arg(0) + ", " + arg(1) + ", " +
                   arg(2) + ")";
          })
          .Case([&](linalg::IndexOp index) -> std::optional<std::string> {
            if (index.getDim() >= dims.size())
              return std::nullopt;
            return "(int)(" + dims[index.getDim()] + ")";
          })
          .Default([&](Operation *) -> std::optional<std::string> {
            std::optional<StringRef> f = getMathFunction(&op);
            if (!f)
              return std::nullopt;
            SmallVector<std::string> args;
            for (unsigned i = 0; i < op.getNumOperands(); ++i)
              args.push_back(arg(i));
            return mathName(*f, type) + "(" + join(args, ", ") + ")";
          });
  if (!ctype || !expr || expr->empty()) {
    why = "cannot spell '" + op.getName().getStringRef().str() + "' on " +
          llvm::formatv("{0}", type).str() + " in CUDA C";
    return failure();
  }
  names[op.getResult(0)] = bind(ctype->compute, "(" + *expr + ")");
  return success();
}

std::string Combiner::combine(StringRef a, StringRef b) const {
  Type type = op->getResult(0).getType();
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<arith::AddFOp, arith::AddIOp>(
          [&](auto) { return (a + " + " + b).str(); })
      .Case<arith::MulFOp, arith::MulIOp>(
          [&](auto) { return (a + " * " + b).str(); })
      .Case<arith::MaxNumFOp, arith::MinNumFOp>([&](Operation *extremum) {
        return mathName(*getMathFunction(extremum), type) + "(" + a.str() +
               ", " + b.str() + ")";
      })
      .Case<arith::MaximumFOp>(
          [&](auto) { return ("ca_maximum(" + a + ", " + b + ")").str(); })
      .Case<arith::MinimumFOp>(
          [&](auto) { return ("ca_minimum(" + a + ", " + b + ")").str(); })
      .Case<arith::MaxSIOp>(
          [&](auto) { return ("max(" + a + ", " + b + ")").str(); })
      .Case<arith::MinSIOp>(
          [&](auto) { return ("min(" + a + ", " + b + ")").str(); });
}

FailureOr<Combiner> cuda_agent::findCombiner(Block &body,
                                                      BlockArgument acc,
                                                      std::string &why) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1) {
    why = "reductions with several results are not handled yet";
    return failure();
  }
  Operation *op = yield.getOperand(0).getDefiningOp();
  if (!op || op->getNumOperands() != 2 || !acc.hasOneUse() ||
      (op->getOperand(0) != acc && op->getOperand(1) != acc)) {
    why = "the reduction body is not `acc = combine(acc, f(inputs))`";
    return failure();
  }
  Type type = op->getResult(0).getType();
  bool isDouble = type.isF64();
  std::string inf = isDouble ? "__longlong_as_double(0x7ff0000000000000LL)"
                             : "__int_as_float(0x7f800000)";
  std::optional<std::string> identity =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case<arith::AddFOp, arith::AddIOp>(
              [&](auto) { return std::string(isDouble ? "0.0" : "0"); })
          .Case<arith::MulFOp, arith::MulIOp>(
              [&](auto) { return std::string("1"); })
          .Case<arith::MaxNumFOp, arith::MaximumFOp>(
              [&](auto) { return "-" + inf; })
          .Case<arith::MinNumFOp, arith::MinimumFOp>([&](auto) { return inf; })
          .Case<arith::MaxSIOp>([&](auto) {
            return std::string(type.isInteger(64)
                                   ? "(-0x7fffffffffffffffLL - 1)"
                                   : "(-0x7fffffff - 1)");
          })
          .Case<arith::MinSIOp>([&](auto) {
            return std::string(type.isInteger(64) ? "0x7fffffffffffffffLL"
                                                  : "0x7fffffff");
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!identity) {
    why = "the reduction combines with '" + op->getName().getStringRef().str() +
          "', which the builtin agent does not handle";
    return failure();
  }
  return Combiner{op, op->getOperand(0) == acc ? 1u : 0u, *identity};
}
