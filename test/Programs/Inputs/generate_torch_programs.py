"""Regenerates the torch-mlir programs of the corpus (test/Programs/torch-*.mlir).

Run by hand, not by CI (it needs torch, torch-mlir and the cuda_agent package, whose
export_program it exports with; the outputs are checked in):

    python3 test/Programs/Inputs/generate_torch_programs.py [NAME ...]

Each PyTorch module below is exported with torch-mlir's FX importer to linalg on tensors
(`cuda_agent.export_program(..., params="constants")`), exactly as torch-mlir prints it, and written as a lit test: the same RUN lines as the
hand-written programs (default lowering, --agent-lower with an empty database, the
whole-program bundle with and without outlining). Modules with parameters are exported twice:
with the parameters as constants (`dense_resource` weights in the file) and with the
parameters as function arguments (`-args`). Beside every small program,
`Inputs/torch/<name>.npz` holds seeded inputs (`in0`, `in1`, ...) and the module's outputs
(`out0`, ...) computed by PyTorch in float64 from the same inputs; `check_cpu_reference.py`
checks each program's CPU reference against them. Programs at KernelBench shapes (`-kb`) carry
no data: the checker computes their reference with NumPy.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
# torch-mlir's FX importer with the package's decompositions (the scans as linalg;
# torch-mlir's own is tm_tensor.scan), the weights as constants, and the buffers the
# module writes back named.
from cuda_agent import export_program

PROGRAMS_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = PROGRAMS_DIR / "Inputs" / "torch"

RUN_LINES = """\
// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
"""


class LinearReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 32)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class LogSoftmax(nn.Module):
    def forward(self, x):
        return torch.log_softmax(x, dim=-1)


class LayerNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(64)

    def forward(self, x):
        return self.norm(x)


class Gelu(nn.Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.RMSNorm(64, eps=1e-6)

    def forward(self, x):
        return self.norm(x)


class Conv2dReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, kernel_size=3, padding=1, bias=True)

    def forward(self, x):
        return torch.relu(self.conv(x))


class MaxPool(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, kernel_size=2)


class AvgPool(nn.Module):
    """KernelBench level 1's AvgPool2d: a window sum, then a division by the
    window (one serial-reduction kernel with its epilogue)."""

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1)


class AvgPool3d(nn.Module):
    """KernelBench level 1's AvgPool3d: torch-mlir pools channels last between two
    transposes; the division reads the sums at a permutation of its element."""

    def forward(self, x):
        return F.avg_pool3d(x, kernel_size=3, stride=2, padding=1)


class MaxPool1d(nn.Module):
    """KernelBench level 1's MaxPool1d, with a stride other than its window."""

    def forward(self, x):
        return F.max_pool1d(x, kernel_size=4, stride=2)


class GemmSigmoidSum(nn.Module):
    """KernelBench level 2's Gemm + Sigmoid + Sum: a keepdim sum after a linear
    layer, a row region of its own (its unit dimension dropped)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 16)

    def forward(self, x):
        return torch.sigmoid(self.fc(x)).sum(dim=1, keepdim=True)


class MaxValues(nn.Module):
    """torch.max over a dim: the index result is computed and dropped."""

    def forward(self, x):
        return torch.max(x, dim=1).values


class Argmax(nn.Module):
    """torch.argmax over a middle dim: the i64 index is the result, the running
    maximum a second output the body carries (a two-output reduction)."""

    def forward(self, x):
        return torch.argmax(x, dim=1)


class Argmin(nn.Module):
    def forward(self, x):
        return torch.argmin(x, dim=-1)


class Amax(nn.Module):
    def forward(self, x):
        return torch.amax(x, dim=-1, keepdim=True)


class MlpBlock(nn.Module):
    """A transformer MLP block: pre-norm, up projection, GELU, down projection, residual."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up = nn.Linear(32, 128)
        self.down = nn.Linear(128, 32)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class MeanVarKeepdim(nn.Module):
    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-5)


class MatmulF16(nn.Module):
    def forward(self, a, b):
        return a @ b


class LinearGlu(nn.Module):
    """A gated linear unit: the projection's first half times the sigmoid of its second."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 64)

    def forward(self, x):
        return F.glu(self.fc(x), dim=-1)


class ConcatSliceView(nn.Module):
    def forward(self, x):
        y = torch.cat([torch.relu(x[:, :8]), torch.exp(x[:, 8:])], dim=1)
        return y.view(4, 2, 16).sum(dim=1)


class MseLoss(nn.Module):
    """KernelBench level 1's MSELoss: the mean of squared differences, a scalar."""

    def forward(self, predictions, targets):
        return F.mse_loss(predictions, targets)


class SmoothL1Loss(nn.Module):
    """KernelBench level 1's HuberLoss (smooth L1), a scalar."""

    def forward(self, predictions, targets):
        return F.smooth_l1_loss(predictions, targets)


class HingeLoss(nn.Module):
    """KernelBench level 1's hinge loss: predictions of one column against a
    vector of targets, broadcast to a square, clamped and averaged."""

    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


class Prod(nn.Module):
    """KernelBench level 1's product reduction over dim 1."""

    def forward(self, x):
        return torch.prod(x, dim=1)


class L1Norm(nn.Module):
    """KernelBench level 1's L1 norm: each row divided by its sum of absolute
    values (keepdim)."""

    def forward(self, x):
        return x / torch.sum(torch.abs(x), dim=1, keepdim=True)


class Cumsum(nn.Module):
    """KernelBench level 1's cumsum, as a blocked scan (cuda_agent's decomposition)."""

    def forward(self, x):
        return torch.cumsum(x, dim=1)


class Cumprod(nn.Module):
    """KernelBench level 1's cumprod, as a blocked scan."""

    def forward(self, x):
        return torch.cumprod(x, dim=1)


class BatchNormTrain(nn.Module):
    """KernelBench level 1's BatchNorm as KernelBench runs it, in training mode: the
    batch's statistics, and the running ones (and the batch count) updated in place,
    which torch-mlir returns as the program's first results."""

    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(8)

    def forward(self, x):
        norm = self.norm
        norm.num_batches_tracked.add_(1)
        return F.batch_norm(x, norm.running_mean, norm.running_var, norm.weight, norm.bias,
                            training=True, momentum=norm.momentum, eps=norm.eps)


# name -> (module factory, input shapes, dtype, KernelBench shape: no data file)
class GroupNorm(nn.Module):
    """KernelBench level 1's GroupNorm: groups of channels normalized, then an
    affine per channel (cuda_agent's decomposition: one row region)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.GroupNorm(4, 16)
        # Not the ones and zeros it starts with: the affine is checked too.
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()

    def forward(self, x):
        return self.norm(x)


class TokenEmbedding(nn.Module):
    """A language model's input: token embeddings (a gather that torch-mlir writes with
    bounds assertions in its body), scaled and normalized."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(50, 32)
        self.norm = nn.LayerNorm(32)

    def forward(self, tokens):
        return self.norm(self.embedding(tokens) * 4.0)


class BmmTransposeSoftmax(nn.Module):
    """A batched product whose result is transposed before a softmax (attention
    weights laid out for the next product): the transpose becomes the product's
    output map."""

    def forward(self, a, b):
        return torch.bmm(a, b).transpose(1, 2).softmax(dim=-1)


class SqueezeExcitation(nn.Module):
    """A squeeze-and-excitation block: channel means, two linear layers, and the
    input scaled by the sigmoid's channel weights (the last product's result
    broadcast over the pixels: a region of its own after the product's)."""

    def __init__(self):
        super().__init__()
        self.reduce = nn.Linear(16, 4)
        self.expand = nn.Linear(4, 16)

    def forward(self, x):
        w = torch.sigmoid(self.expand(torch.relu(self.reduce(x.mean((2, 3))))))
        return x * w[:, :, None, None]


class PoolThenMean(nn.Module):
    """A CNN's head: max pooling, then adaptive average pooling to 1x1, flattened
    (the mean over the pixels is a row region of its own)."""

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.max_pool2d(x, 3, 2, 1), 1).flatten(1)


class Attention(nn.Module):
    """torch's scaled dot-product attention as torch-mlir writes it: q and k scaled,
    two batched products, and between them the softmax with its guard,
    `where(all(s == -inf), 0, p)` (an i1 reduction that the outliner rewrites as
    max(s) == -inf, so the guard joins the softmax's region). `causal` adds the
    lower-triangular mask (an i1 constant of the plan); a fourth input is a boolean
    mask (`Mask`)."""

    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v, mask=None):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.causal)


class MultiheadAttention(nn.Module):
    """nn.MultiheadAttention (batch first, 4 heads, self-attention): the input
    projection, the heads split by reshapes and transposes, the attention (one region of
    kind `attention`), the heads merged and the output projection."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class GemmGroupNormSwish(nn.Module):
    """KernelBench level 2's Gemm + GroupNorm + Swish + Multiply + Swish."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 16)
        self.norm = nn.GroupNorm(4, 16)
        self.weight = nn.Parameter(torch.randn(16))

    def forward(self, x):
        x = self.norm(self.fc(x))
        x = x * torch.sigmoid(x) * self.weight
        return x * torch.sigmoid(x)


class ConvTransposePoolMeanTanh(nn.Module):
    """KernelBench level 2's ConvTranspose2d + MaxPool + Hardtanh + Mean + Tanh."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1)

    def forward(self, x):
        x = F.hardtanh(F.max_pool2d(self.conv(x), 2, 2), -1, 1)
        return torch.tanh(x.mean(dim=(2, 3), keepdim=True))


class ConvTransposeStrided(nn.Module):
    """A strided transposed conv (torch-mlir: a conv over the input spread onto a zero
    grid), then an activation, split by the outliner into one conv per output phase
    (TransposedConvolutions.h): 3-D at stride 2 with output padding, 1-D at stride 3
    with a padding that leaves some phases fewer taps; dilated filters, 2-D at stride 2
    and dilation 2 (gcd 2: the phases of one parity take every tap, dilation 1, the
    others only the bias), 1-D at stride 3 and dilation 2 (gcd 1: every third tap,
    dilation 2)."""

    def __init__(self, conv, activation=torch.relu):
        super().__init__()
        self.conv = conv
        self.activation = activation

    def forward(self, x):
        return self.activation(self.conv(x))


class ConvTransposeBiasClamp(nn.Module):
    """KernelBench level 2's ConvTranspose2d + BiasAdd + Clamp + Scaling + Clamp + Divide at
    stride 2: the elementwise epilogue, its (C, 1, 1) bias among its operands, is applied by
    each output phase of the split conv to its own part."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.bias = nn.Parameter(torch.randn(6, 1, 1))

    def forward(self, x):
        x = torch.clamp(self.conv(x) + self.bias, min=0.0, max=1.0) * 2.0
        return torch.clamp(x, min=0.0, max=1.0) / 2.0


class Indices(tuple):
    """An input of int64 indices in [0, high) instead of normal floats: a shape, then
    `high`."""

    def __new__(cls, shape, high):
        value = super().__new__(cls, shape)
        value.high = high
        return value


class Mask(tuple):
    """A boolean input of this shape (an attention mask): each key attended or not at
    random, and every key of row 3 masked, where the attention's guard gives zeros."""


def make_input(shape, dtype, gen):
    if isinstance(shape, Indices):
        return torch.randint(0, shape.high, tuple(shape), generator=gen)
    if isinstance(shape, Mask):
        mask = torch.rand(tuple(shape), generator=gen) > 0.5
        mask[..., 3, :] = False
        return mask
    return torch.randn(shape, generator=gen).to(dtype)


class LogSumExpSpatial(nn.Module):
    """KernelBench level 2's logsumexp over a feature map's spatial dimensions: torch
    takes the max over (2, 3) as two chained max reductions, which the outliner merges
    (ChainedExtrema.h), so the logsumexp is one row region."""

    def forward(self, x):
        return torch.relu(torch.logsumexp(x, dim=(2, 3)))


class LogSumExpSpatialBias(nn.Module):
    """KernelBench level 2's keepdim logsumexp over (2, 3) plus a bias of shape (C, 1, 1):
    the bias is read per row by its channel, a projection of the row's indices."""

    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(6, 1, 1))

    def forward(self, x):
        return torch.logsumexp(x, dim=(2, 3), keepdim=True) + self.bias


class LayerNormAvgPool3d(nn.Module):
    """KernelBench level 2's LayerNorm + AvgPool3d + GELU: torch-mlir moves the layer
    norm's output channels last for avg_pool3d, a transpose that joins the norm's row
    region, which stores its rows through the permutation."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return F.gelu(F.avg_pool3d(self.norm(x), 2))


class Upsample(nn.Module):
    """KernelBench level 2's Conv2d + Upsample + activation: torch-mlir spells the
    interpolation as a gather (a generic whose body computes each source index and reads
    the conv's output with tensor.extract), which joins the activation's region and reads
    that output as an input. Bilinear is four gathers weighted by per-column and per-row
    fractions."""

    def __init__(self, mode):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.mode = mode

    def forward(self, x):
        y = F.interpolate(self.conv(x), scale_factor=2, mode=self.mode)
        return torch.tanh(y) + 1.0 if self.mode == "nearest" else torch.relu(y)


class ReplicatePadConv(nn.Module):
    """A convolution over a replicate-padded input (padding_mode="replicate"): the pad
    is gathers of clamped indices, one per padded dimension."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="replicate")

    def forward(self, x):
        return torch.relu(self.conv(x))


PROGRAMS = {
    "linear-relu": (LinearReLU, [(8, 64)], torch.float32, False),
    "softmax": (Softmax, [(16, 100)], torch.float32, False),
    "log-softmax": (LogSoftmax, [(16, 100)], torch.float32, False),
    "layer-norm": (LayerNorm, [(32, 64)], torch.float32, False),
    "gelu": (Gelu, [(16, 128)], torch.float32, False),
    "gelu-tanh": (lambda: Gelu("tanh"), [(16, 128)], torch.float32, False),
    "rms-norm": (RMSNorm, [(4, 8, 64)], torch.float32, False),
    "conv2d-relu": (Conv2dReLU, [(1, 4, 8, 8)], torch.float32, False),
    "maxpool": (MaxPool, [(1, 4, 8, 8)], torch.float32, False),
    "avgpool": (AvgPool, [(2, 4, 9, 9)], torch.float32, False),
    "avgpool3d": (AvgPool3d, [(2, 5, 6, 6, 6)], torch.float32, False),
    "maxpool1d": (MaxPool1d, [(2, 4, 33)], torch.float32, False),
    "max-values": (MaxValues, [(16, 32)], torch.float32, False),
    "argmax": (Argmax, [(4, 24, 8)], torch.float32, False),
    "argmin": (Argmin, [(16, 40)], torch.float32, False),
    "amax-keepdim": (Amax, [(16, 32)], torch.float32, False),
    "mlp-block": (MlpBlock, [(16, 32)], torch.float32, False),
    "gemm-sigmoid-sum": (GemmSigmoidSum, [(8, 32)], torch.float32, False),
    "mean-var-keepdim": (MeanVarKeepdim, [(8, 64)], torch.float32, False),
    "matmul-f16": (MatmulF16, [(32, 64), (64, 48)], torch.float16, False),
    "concat-slice-view": (ConcatSliceView, [(8, 16)], torch.float32, False),
    "linear-glu": (LinearGlu, [(8, 16)], torch.float32, False),
    "mse-loss": (MseLoss, [(16, 64), (16, 64)], torch.float32, False),
    "smooth-l1-loss": (SmoothL1Loss, [(16, 64), (16, 64)], torch.float32, False),
    "hinge-loss": (HingeLoss, [(16, 1), (16,)], torch.float32, False),
    "prod": (Prod, [(4, 12, 8)], torch.float32, False),
    "l1-norm": (L1Norm, [(8, 256)], torch.float32, False),
    # 100 is not a whole number of blocks (a pad, two levels); 1100 needs three levels.
    "group-norm": (GroupNorm, [(2, 16, 8, 8)], torch.float32, False),
    "cumsum": (Cumsum, [(8, 100)], torch.float32, False),
    "cumsum-3-levels": (Cumsum, [(2, 1100)], torch.float32, False),
    # Three levels of whole blocks (as KernelBench's 32768), each level's totals read
    # in place (no slice copied) and shifted by a pad of a slice.
    "cumsum-whole-blocks": (Cumsum, [(2, 4096)], torch.float32, False),
    "cumprod": (Cumprod, [(8, 40)], torch.float32, False),
    "batch-norm-train": (BatchNormTrain, [(4, 8, 6, 6)], torch.float32, False),
    "bmm-transpose-softmax": (BmmTransposeSoftmax, [(2, 16, 24), (2, 24, 12)], torch.float32,
                              False),
    "pool-then-mean": (PoolThenMean, [(2, 8, 16, 16)], torch.float32, False),
    "squeeze-excitation": (SqueezeExcitation, [(2, 16, 8, 8)], torch.float32, False),
    "token-embedding": (TokenEmbedding, [Indices((4, 8), 50)], torch.float32, False),
    "attention": (Attention, [(2, 4, 16, 8)] * 3, torch.float32, False),
    "attention-causal": (lambda: Attention(causal=True), [(2, 4, 16, 8)] * 3, torch.float32,
                         False),
    "attention-masked": (Attention, [(2, 4, 16, 8)] * 3 + [Mask((2, 4, 16, 16))],
                         torch.float32, False),
    "multihead-attention": (MultiheadAttention, [(2, 16, 32)], torch.float32, False),
    "gemm-groupnorm-swish": (GemmGroupNormSwish, [(8, 32)], torch.float32, False),
    "logsumexp-spatial": (LogSumExpSpatial, [(2, 6, 5, 7)], torch.float32, False),
    "logsumexp-spatial-bias": (LogSumExpSpatialBias, [(2, 6, 5, 7)], torch.float32, False),
    "layernorm-avgpool3d": (LayerNormAvgPool3d, [(2, 4, 6, 6, 8)], torch.float32, False),
    "convtranspose3d-s2": (lambda: ConvTransposeStrided(
        nn.ConvTranspose3d(4, 6, 3, stride=2, padding=1, output_padding=1)),
        [(2, 4, 3, 4, 5)], torch.float32, False),
    "convtranspose1d-s3": (lambda: ConvTransposeStrided(
        nn.ConvTranspose1d(4, 6, 5, stride=3, padding=2, output_padding=2)),
        [(2, 4, 7)], torch.float32, False),
    "convtranspose2d-dilated": (lambda: ConvTransposeStrided(
        nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, dilation=2), torch.sigmoid),
        [(2, 4, 5, 6)], torch.float32, False),
    "convtranspose1d-dilated": (lambda: ConvTransposeStrided(
        nn.ConvTranspose1d(4, 6, 5, stride=3, padding=1, dilation=2), torch.sigmoid),
        [(2, 4, 7)], torch.float32, False),
    "convtranspose2d-bias-clamp": (ConvTransposeBiasClamp, [(2, 4, 5, 5)], torch.float32, False),
    "upsample-nearest-tanh": (lambda: Upsample("nearest"), [(2, 3, 7, 6)], torch.float32,
                              False),
    "upsample-bilinear-relu": (lambda: Upsample("bilinear"), [(2, 3, 7, 6)], torch.float32,
                               False),
    "replicate-pad-conv": (ReplicatePadConv, [(2, 3, 6, 5)], torch.float32, False),
    "convtranspose-pool-mean-tanh": (ConvTransposePoolMeanTanh, [(2, 4, 6, 6)], torch.float32,
                                     False),
    # KernelBench level 1 at its own shapes (no parameters, so the file stays small).
    "softmax-kb": (Softmax, [(16, 16384)], torch.float32, True),
    "gelu-kb": (Gelu, [(16, 16384)], torch.float32, True),
}


class ParamsAsArguments(nn.Module):
    """`inner` with its parameters as extra forward arguments, after the inputs."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.names = [name for name, _ in inner.named_parameters()]

    def forward(self, *args):
        count = len(args) - len(self.names)
        params = dict(zip(self.names, args[count:]))
        return torch.func.functional_call(self.inner, params, args[:count])


def reference_outputs(module: nn.Module, args, updates):
    """The program's results computed by PyTorch in float64: the buffers the module
    writes (`updates`, export_program's, in their order), then the forward's results."""
    double = copy.deepcopy(module).double()
    with torch.no_grad():
        result = double(*[a.double() if a.is_floating_point() else a for a in args])
    buffers = dict(double.named_buffers())
    return [buffers[name] for _, name in updates] + list(
        result if isinstance(result, tuple) else (result,))


def function_name(name: str) -> str:
    return "torch_" + name.replace("-", "_")


def write_program(name: str, text: str, torch_line: str, has_constants: bool):
    fn = function_name(name)
    checks = [
        "",
        "// Lowered fully to LLVM by the default lowering alone and by --agent-lower",
        "// with an empty database (every region keeps its default lowering).",
        f"// LLVM-LABEL: llvm.func @{fn}(",
        "// LLVM: gpu.launch_func",
        "// LLVM: llvm.call @mgpuStreamSynchronize",
        f"// AGENT-LABEL: llvm.func @{fn}(",
        f"// AGENT: llvm.call @{fn}_region0(",
        "",
    ]
    if has_constants:
        checks += [
            "// The weights (or, with the parameters as arguments, the buffers) are constant",
            "// buffers of the bundle, uploaded from their data files, never host data.",
            '// PLAN: "data": "const0.bin"',
            '// PLAN: "role": "constant"',
            '// PLAN: "launches"',
            '// OUTLINED: "role": "constant"',
            '// OUTLINED: "launches"',
        ]
    elif "arith.constant dense<" in text:
        checks += [
            "// A splat tensor constant (a scan's identity) is a constant buffer when the",
            "// program is not outlined; the outliner folds it into the regions that read it.",
            '// PLAN: "role": "constant"',
            '// PLAN: "launches"',
            '// OUTLINED-NOT: "role": "constant"',
            '// OUTLINED: "launches"',
        ]
    else:
        checks += ['// PLAN-NOT: "role": "constant"', '// PLAN: "launches"',
                   '// OUTLINED: "launches"']
    header = RUN_LINES + f"// torch: {torch_line}\n// Generated by Inputs/generate_torch_programs.py with torch-mlir; do not edit.\n"
    (PROGRAMS_DIR / f"torch-{name}.mlir").write_text(header + text.rstrip() + "\n" + "\n".join(checks) + "\n")


def main(selected):
    torch.manual_seed(0)
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for name, (factory, shapes, dtype, kernelbench) in PROGRAMS.items():
        if selected and name not in selected:
            continue
        module = factory().eval()
        gen = torch.Generator().manual_seed(0)
        inputs = [make_input(shape, dtype, gen) for shape in shapes]
        params = [p.detach().to(dtype) for p in module.parameters()]
        if dtype != torch.float32:
            module = module.to(dtype)
        shape_text = ", ".join("x".join(map(str, s)) for s in shapes)
        torch_line = f"{module.__class__.__name__} on {shape_text} {str(dtype).replace('torch.', '')}"
        variants = [(name, module, inputs, bool(params))]
        if params:
            # Buffers (a BatchNorm's running statistics) stay constants of the program.
            variants.append((f"{name}-args", ParamsAsArguments(module), inputs + params,
                             any(True for _ in module.buffers())))
        for variant, exported_module, args, has_constants in variants:
            fn = function_name(variant)
            exported = export_program(exported_module, *args, params="constants",
                                      func_name=fn)
            text = exported.text
            suffix = " (parameters as arguments)" if variant.endswith("-args") else (
                " (parameters as constants)" if has_constants else "")
            write_program(variant, text, torch_line + suffix, has_constants)
            if not kernelbench:
                outputs = reference_outputs(exported_module, args, exported.updates)
                np.savez(DATA_DIR / f"torch-{variant}.npz",
                         **{f"in{i}": a.numpy() for i, a in enumerate(args)},
                         **{f"out{i}": o.numpy() for i, o in enumerate(outputs)})
            print(f"torch-{variant}: written")


if __name__ == "__main__":
    main(sys.argv[1:])
