"""A numpy-backed stand-in for the small part of the `torch` API that the
generated KernelBench references use (lib/Agents/TorchReference.cpp), so that
test/Agents/torch-reference.test can run them where torch is not installed.

It is strict where torch is strict and stricter where that catches a wrong
translation: tensors of two different dtypes in one arithmetic op raise (MLIR
never mixes them; torch would silently promote), torch.maximum & co. want
tensors, and prod reduces one dim. bfloat16 is float32 rounded to 8 bits of
mantissa after every op.
"""

import math as _math

import numpy as _np

from . import nn  # noqa: F401


class dtype:
    def __init__(self, name, np_type, is_float):
        self.name, self.np, self.is_floating_point = name, np_type, is_float

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", _np.float32, True)
float16 = dtype("float16", _np.float16, True)
bfloat16 = dtype("bfloat16", _np.float32, True)
float64 = dtype("float64", _np.float64, True)
int8 = dtype("int8", _np.int8, False)
int16 = dtype("int16", _np.int16, False)
int32 = dtype("int32", _np.int32, False)
int64 = dtype("int64", _np.int64, False)
bool = dtype("bool", _np.bool_, False)  # noqa: A001


def _round_bf16(a):
    bits = _np.ascontiguousarray(a, dtype=_np.float32).view(_np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(_np.uint32).view(_np.float32)
    return _np.where(_np.isnan(a), _np.float32("nan"), out)


def _make(a, dt):
    a = _np.asarray(a)
    if dt is bfloat16:
        return Tensor(_round_bf16(a.astype(_np.float32)), dt)
    return Tensor(a.astype(dt.np), dt)


def _dtype_of(a):
    for dt in (float32, float16, float64, int8, int16, int32, int64, bool):
        if a.dtype == dt.np:
            return dt
    raise TypeError("no dtype for %s" % a.dtype)


class Tensor:
    def __init__(self, a, dt):
        self.a, self.dtype = a, dt

    @property
    def shape(self):
        return tuple(self.a.shape)

    @property
    def device(self):
        return "cpu"

    def dim(self):
        return self.a.ndim

    def numpy(self):
        return self.a

    # Arithmetic: same dtypes, or a Python scalar that takes the tensor's.
    def _binary(self, other, fn, result=None):
        if isinstance(other, Tensor):
            if other.dtype is not self.dtype:
                raise TypeError("mixed dtypes %s and %s" % (self.dtype, other.dtype))
            b = other.a
        elif isinstance(other, (float, int)) and not isinstance(other, type(True)):
            if isinstance(other, float) and not self.dtype.is_floating_point:
                raise TypeError("a float scalar with an integer tensor")
            b = _np.asarray(other, dtype=self.a.dtype)
        else:
            raise TypeError("cannot combine a tensor with %r" % (other,))
        with _np.errstate(all="ignore"):
            return _make(fn(self.a, b), result or self.dtype)

    def __add__(self, o):
        return self._binary(o, _np.add)

    def __radd__(self, o):
        return self._binary(o, lambda a, b: b + a)

    def __sub__(self, o):
        return self._binary(o, _np.subtract)

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: b - a)

    def __mul__(self, o):
        return self._binary(o, _np.multiply)

    def __rmul__(self, o):
        return self._binary(o, lambda a, b: b * a)

    def __truediv__(self, o):
        if not self.dtype.is_floating_point:
            raise TypeError("true division of integers")
        return self._binary(o, _np.divide)

    def __rtruediv__(self, o):
        return self._binary(o, lambda a, b: b / a)

    def __neg__(self):
        return _make(-self.a, self.dtype)

    def __lt__(self, o):
        return self._binary(o, _np.less, bool)

    def __le__(self, o):
        return self._binary(o, _np.less_equal, bool)

    def __gt__(self, o):
        return self._binary(o, _np.greater, bool)

    def __ge__(self, o):
        return self._binary(o, _np.greater_equal, bool)

    def __eq__(self, o):
        return self._binary(o, _np.equal, bool)

    def __ne__(self, o):
        return self._binary(o, _np.not_equal, bool)

    def __and__(self, o):
        return self._binary(o, _np.bitwise_and)

    def __or__(self, o):
        return self._binary(o, _np.bitwise_or)

    def __xor__(self, o):
        return self._binary(o, _np.bitwise_xor)

    def __invert__(self):
        return _make(~self.a, self.dtype)

    __hash__ = object.__hash__

    def __getitem__(self, index):
        return Tensor(self.a[index], self.dtype)

    def to(self, dt):
        return _make(self.a, dt)

    def permute(self, *dims):
        if sorted(dims) != list(range(self.a.ndim)):
            raise ValueError("permute%r of a rank-%d tensor" % (dims, self.a.ndim))
        return Tensor(_np.transpose(self.a, dims), self.dtype)

    def reshape(self, *shape):
        return Tensor(self.a.reshape(shape), self.dtype)

    def clone(self):
        return Tensor(self.a.copy(), self.dtype)

    # Assignment into a part (ints and full slices), of the same dtype.
    def __setitem__(self, index, value):
        if not isinstance(value, Tensor) or value.dtype is not self.dtype:
            raise TypeError("assigning %r into a %s tensor" % (value, self.dtype))
        if self.a[index].shape != value.a.shape:
            raise ValueError("assigning %s into %s" % (value.a.shape, self.a[index].shape))
        self.a[index] = value.a

    def contiguous(self):
        return self

    def _dims(self, dim):
        dims = dim if isinstance(dim, tuple) else (dim,)
        for d in dims:
            if not -self.a.ndim <= d < self.a.ndim:
                raise IndexError("dim %d of a rank-%d tensor" % (d, self.a.ndim))
        return dims

    def sum(self, dim):
        out = self.a.sum(axis=self._dims(dim), dtype=_np.float64 if self.dtype.is_floating_point else _np.int64)
        return _make(out, self.dtype if self.dtype.is_floating_point else int64)

    def prod(self, dim):
        if not isinstance(dim, int):
            raise TypeError("prod takes one dim")
        return _make(self.a.prod(axis=dim), self.dtype if self.dtype.is_floating_point else int64)

    def amax(self, dim):
        return _make(self.a.max(axis=self._dims(dim)), self.dtype)

    def amin(self, dim):
        return _make(self.a.min(axis=self._dims(dim)), self.dtype)


def _t(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError("%s wants tensors, got %r" % (fn, x))
    return x


def _unary(fn):
    def apply(x):
        x = _t(x, fn.__name__)
        with _np.errstate(all="ignore"):
            return _make(fn(x.a.astype(_np.float64)) if x.dtype.is_floating_point else fn(x.a), x.dtype)

    return apply


exp = _unary(_np.exp)
exp2 = _unary(_np.exp2)
expm1 = _unary(_np.expm1)
log = _unary(_np.log)
log2 = _unary(_np.log2)
log10 = _unary(_np.log10)
log1p = _unary(_np.log1p)
tanh = _unary(_np.tanh)
sqrt = _unary(_np.sqrt)
rsqrt = _unary(lambda a: 1.0 / _np.sqrt(a))
sin, cos, tan, atan = _unary(_np.sin), _unary(_np.cos), _unary(_np.tan), _unary(_np.arctan)
sinh, cosh, asin, acos = _unary(_np.sinh), _unary(_np.cosh), _unary(_np.arcsin), _unary(_np.arccos)
erf = _unary(_np.vectorize(_math.erf, otypes=[_np.float64]))
erfc = _unary(_np.vectorize(_math.erfc, otypes=[_np.float64]))
abs = _unary(_np.abs)  # noqa: A001
floor, ceil, trunc = _unary(_np.floor), _unary(_np.ceil), _unary(_np.trunc)
round = _unary(_np.round)  # noqa: A001


def _pair(name, fn):
    def apply(a, b):
        return _t(a, name)._binary(_t(b, name), fn)

    return apply


maximum = _pair("maximum", _np.maximum)
minimum = _pair("minimum", _np.minimum)
fmax = _pair("fmax", _np.fmax)
fmin = _pair("fmin", _np.fmin)
fmod = _pair("fmod", _np.fmod)


def pow(a, b):  # noqa: A001
    return _t(a, "pow")._binary(b, _np.power)


def div(a, b, rounding_mode=None):
    ops = {"trunc": lambda x, y: _np.trunc(x / y), "floor": lambda x, y: _np.floor(x / y)}
    return _t(a, "div")._binary(b, ops[rounding_mode])


def isnan(x):
    return _make(_np.isnan(_t(x, "isnan").a), bool)


def where(c, a, b):
    if _t(c, "where").dtype is not bool:
        raise TypeError("where wants a bool condition")
    dts = {x.dtype for x in (a, b) if isinstance(x, Tensor)}
    if len(dts) != 1:
        raise TypeError("where of %r and %r" % (a, b))
    dt = dts.pop()
    av = a.a if isinstance(a, Tensor) else a
    bv = b.a if isinstance(b, Tensor) else b
    return _make(_np.where(c.a, av, bv), dt)


def broadcast_to(x, shape):
    return Tensor(_np.broadcast_to(_t(x, "broadcast_to").a, shape), x.dtype)


def einsum(spec, *xs):
    dts = {_t(x, "einsum").dtype for x in xs}
    if len(dts) != 1:
        raise TypeError("einsum of mixed dtypes")
    dt = dts.pop()
    return _make(_np.einsum(spec, *[x.a.astype(_np.float64) for x in xs]), dt)


def matmul(a, b):
    if _t(a, "matmul").dtype is not _t(b, "matmul").dtype:
        raise TypeError("matmul of mixed dtypes")
    return _make(_np.matmul(a.a.astype(_np.float64), b.a.astype(_np.float64)), a.dtype)


def cat(xs, dim):
    dts = {_t(x, "cat").dtype for x in xs}
    if len(dts) != 1:
        raise TypeError("cat of mixed dtypes")
    return _make(_np.concatenate([x.a for x in xs], axis=dim), dts.pop())


def softmax(x, dim):
    a = _t(x, "softmax").a.astype(_np.float64)
    e = _np.exp(a - a.max(axis=dim, keepdims=True))
    return _make(e / e.sum(axis=dim, keepdims=True), x.dtype)


def tensor(value, dtype):
    return _make(_np.asarray(value), dtype)


def full(shape, value, dtype):
    return _make(_np.full(shape, value), dtype)


def empty(shape, dtype, device=None):
    # NaN where a float tensor is never written: a reference that leaves a part
    # unwritten does not match its formula.
    return _make(_np.full(shape, _np.nan if dtype.is_floating_point else 0), dtype)


_rng = _np.random.default_rng(0)


def _shape(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple) else tuple(shape)


def randn(*shape, dtype=float32):
    return _make(_rng.standard_normal(_shape(shape)), dtype)


def rand(*shape, dtype=float32):
    return _make(_rng.random(_shape(shape)), dtype)


def randint(low, high, shape, dtype=int64):
    return _make(_rng.integers(low, high, tuple(shape)), dtype)
