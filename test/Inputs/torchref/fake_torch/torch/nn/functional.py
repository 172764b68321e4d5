"""torch.nn.functional of the numpy stand-in: conv2d (NCHW, OIHW, no padding) and a
constant pad."""

import numpy as _np


def conv2d(x, w, stride=(1, 1), dilation=(1, 1)):
    import torch

    if x.dtype is not w.dtype:
        raise TypeError("conv2d of mixed dtypes")
    n, c, h, wd = x.shape
    o, c2, kh, kw = w.shape
    if c != c2:
        raise ValueError("conv2d: %d input channels, weights for %d" % (c, c2))
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    xa, wa = x.a.astype(_np.float64), w.a.astype(_np.float64)
    out = _np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xa[:, :, i * dilation[0]:, j * dilation[1]:][:, :, : oh * stride[0] : stride[0], : ow * stride[1] : stride[1]]
            out += _np.einsum("nchw,oc->nohw", patch, wa[:, :, i, j])
    return torch._make(out, x.dtype)


def pad(x, amounts, value=0.0):
    """A constant pad: `amounts` run (before, after) from the last dimension to the first."""
    import torch

    widths = [(0, 0)] * x.dim()
    for i in range(len(amounts) // 2):
        widths[x.dim() - 1 - i] = (amounts[2 * i], amounts[2 * i + 1])
    return torch._make(_np.pad(x.a, widths, constant_values=value), x.dtype)
