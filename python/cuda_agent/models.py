"""Small PyTorch modules in the KernelBench form: a ``Model`` class with
``get_inputs()``; the tests export them and the bench times them.

Each entry of ``MODELS`` is ``name -> (make_model, get_inputs)``; inputs are
made on ``device`` with the shapes given here (small, so that export and the
CPU-only tests stay fast). ``LARGE`` holds the same kinds of module at
KernelBench's sizes (``kb_`` names: hundreds of MB per module, for the GPU
bench; ``make()`` finds both).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import torch
import torch.nn.functional as F
from torch import nn


class LinearRelu(nn.Module):
    def __init__(self, features=256, out=512):
        super().__init__()
        self.linear = nn.Linear(features, out)

    def forward(self, x):
        return torch.relu(self.linear(x))


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class LayerNorm(nn.Module):
    def __init__(self, width=512):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(x)


class ConvRelu(nn.Module):
    def __init__(self, channels=8, filters=16):
        super().__init__()
        self.conv = nn.Conv2d(channels, filters, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Gelu(nn.Module):
    def forward(self, x):
        return nn.functional.gelu(x)


class MatmulF16(nn.Module):
    def forward(self, a, b):
        return a @ b


class MLPBlock(nn.Module):
    """A transformer MLP block: y = x + W2 gelu(W1 layernorm(x) + b1) + b2."""

    def __init__(self, width=512, hidden=2048):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class LogSoftmax(nn.Module):
    def forward(self, x):
        return torch.log_softmax(x, dim=-1)


class RMSNorm(nn.Module):
    def __init__(self, width=512, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SumKeepdim(nn.Module):
    def forward(self, x):
        return x.sum(dim=1, keepdim=True)


class MeanDim(nn.Module):
    """KernelBench level 1's mean over dim 1 (no keepdim)."""

    def forward(self, x):
        return torch.mean(x, dim=1)


class ChannelRmsNorm(nn.Module):
    """KernelBench level 1's RMSNorm: each element divided by the root mean
    square over the features (dim 1) at its position, eps 1e-5."""

    def forward(self, x):
        return x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)


class Bmm(nn.Module):
    """KernelBench level 1's batched matrix multiplication."""

    def forward(self, a, b):
        return torch.bmm(a, b)


class FlattenLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8 * 16 * 16, 64)

    def forward(self, x):
        return self.fc(torch.flatten(x, 1))


class ConcatBranches(nn.Module):
    def forward(self, a, b):
        return torch.cat([torch.relu(a), torch.sigmoid(b)], dim=1)


class DenseConcat(nn.Module):
    """A DenseNet layer's concatenation over channels: its input and new
    features of other channel counts."""

    def forward(self, x, y, z):
        return torch.cat([x, torch.relu(y * 2 + 1), torch.sigmoid(z)], dim=1)


class DenseLayerInput(nn.Module):
    """A DenseNet layer's input: the block's features so far and the last
    layer's new ones concatenated over channels, then batch-normalized (as in
    inference, by the running statistics) and rectified for the layer's
    convolution."""

    def __init__(self, channels=12):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        # Not the statistics and affine it starts with: each is checked.
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()
            self.norm.running_mean.normal_()
            self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x, f):
        norm = self.norm
        y = torch.cat([x, f], dim=1)
        return torch.relu(nn.functional.batch_norm(
            y, norm.running_mean, norm.running_var, norm.weight, norm.bias,
            training=False, eps=norm.eps))


class AttentionScores(nn.Module):
    """softmax(q k^T / sqrt(d)) over batched heads."""

    def forward(self, q, k):
        return torch.softmax(q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5, dim=-1)


class Attention(nn.Module):
    """torch's scaled dot-product attention: its softmax is guarded against rows
    that are all -inf (where(all(s == -inf), 0, p)), which the outliner rewrites
    as max(s) == -inf inside the softmax's region."""

    def forward(self, q, k, v):
        return nn.functional.scaled_dot_product_attention(q, k, v)


class GemmReluSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 256)

    def forward(self, x):
        return torch.relu(self.fc(x)).sum(dim=1)


class LinearGlu(nn.Module):
    """A linear layer into a gated linear unit: the first half of the projection
    times the sigmoid of the second (torch-mlir slices the halves)."""

    def __init__(self, features=256, out=256):
        super().__init__()
        self.linear = nn.Linear(features, 2 * out)

    def forward(self, x):
        return nn.functional.glu(self.linear(x), dim=-1)


class LinearSoftmax(nn.Module):
    """KernelBench level 2's GEMM followed by a softmax over the output row."""

    def __init__(self, features=256, out=512):
        super().__init__()
        self.linear = nn.Linear(features, out)

    def forward(self, x):
        return torch.softmax(self.linear(x), dim=1)


class LinearLogSumExp(nn.Module):
    """A GEMM followed by a logsumexp over the output row (keepdim)."""

    def __init__(self, features=256, out=512):
        super().__init__()
        self.linear = nn.Linear(features, out)

    def forward(self, x):
        return torch.logsumexp(self.linear(x), dim=1, keepdim=True)


class LinearResidual(nn.Module):
    """A square GEMM whose output is added to its input (a residual)."""

    def __init__(self, features=256):
        super().__init__()
        self.linear = nn.Linear(features, features)

    def forward(self, x):
        return x + self.linear(x)


class ConvScaleMin(nn.Module):
    """KernelBench level 2's conv, scaled, then the minimum over the channels."""

    def __init__(self, channels=8, filters=16, scale=2.0):
        super().__init__()
        self.conv = nn.Conv2d(channels, filters, 3, padding=1)
        self.scale = scale

    def forward(self, x):
        return torch.min(self.conv(x) * self.scale, dim=1, keepdim=True).values


class ConvLogSumExpBias(nn.Module):
    """KernelBench level 2's conv, then a keepdim logsumexp over the feature map plus
    a bias of shape (C, 1, 1)."""

    def __init__(self, channels=8, filters=16):
        super().__init__()
        self.conv = nn.Conv2d(channels, filters, 3)
        self.bias = nn.Parameter(torch.randn(filters, 1, 1))

    def forward(self, x):
        return torch.logsumexp(self.conv(x), dim=(2, 3), keepdim=True) + self.bias


class Conv3dLayerNormPoolGelu(nn.Module):
    """KernelBench level 2's 3-D conv, a layer norm over the last dimension, a 3-D
    average pool and GELU (torch-mlir's avg_pool3d reads the norm's output channels
    last)."""

    def __init__(self, channels=4, filters=8, width=8):
        super().__init__()
        self.conv = nn.Conv3d(channels, filters, 3)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return F.gelu(F.avg_pool3d(self.norm(self.conv(x)), 2))


class MseLoss(nn.Module):
    """KernelBench level 1's MSELoss: a mean over every element, a 0-d result."""

    def forward(self, predictions, targets):
        return nn.functional.mse_loss(predictions, targets)


class BatchNormTrain(nn.Module):
    """KernelBench level 1's BatchNorm as KernelBench runs it: in training mode,
    normalized by the batch's statistics, the running statistics updated in
    place (whatever mode the module is put in)."""

    def __init__(self, features=16):
        super().__init__()
        self.norm = nn.BatchNorm2d(features)

    def forward(self, x):
        norm = self.norm
        norm.num_batches_tracked.add_(1)
        return nn.functional.batch_norm(x, norm.running_mean, norm.running_var, norm.weight,
                                         norm.bias, training=True, momentum=norm.momentum,
                                         eps=norm.eps)


class GroupNorm(nn.Module):
    """KernelBench level 1's GroupNorm: each group of channels normalized over
    its channels and positions, then scaled and shifted per channel."""

    def __init__(self, groups=4, channels=16):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        # Not the ones and zeros it starts with: the affine is checked too.
        with torch.no_grad():
            self.norm.weight.normal_()
            self.norm.bias.normal_()

    def forward(self, x):
        return self.norm(x)


class Pool(nn.Module):
    """KernelBench level 1's pooling layers: ``nn.AvgPool2d``, ``nn.MaxPool2d`` (or
    their 1-D and 3-D forms, ``dims=1`` or ``3``) with their arguments."""

    def __init__(self, kind="avg", dims=2, **kwargs):
        super().__init__()
        layers = {("avg", 1): nn.AvgPool1d, ("max", 1): nn.MaxPool1d,
                  ("avg", 2): nn.AvgPool2d, ("max", 2): nn.MaxPool2d,
                  ("avg", 3): nn.AvgPool3d, ("max", 3): nn.MaxPool3d}
        self.pool = layers[kind, dims](**kwargs)

    def forward(self, x):
        return self.pool(x)


class ArgReduce(nn.Module):
    """KernelBench level 1's argmax / argmin over a dimension: an i64 result, the
    running extreme a second output of the same reduction."""

    def __init__(self, kind="max", dim=1):
        super().__init__()
        self.reduce = torch.argmax if kind == "max" else torch.argmin
        self.dim = dim

    def forward(self, x):
        return self.reduce(x, dim=self.dim)


class Normalize(nn.Module):
    """KernelBench level 1's norms that divide by a norm: ``"l2"`` or ``"l1"``
    over dim 1 (keepdim) or ``"fro"``, the Frobenius norm of the whole tensor."""

    def __init__(self, kind="l2"):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        if self.kind == "fro":
            return x / torch.norm(x, p="fro")
        if self.kind == "l1":
            return x / torch.sum(torch.abs(x), dim=1, keepdim=True)
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


class Loss(nn.Module):
    """KernelBench level 1's losses: ``"cosine"`` (the mean of 1 - cosine
    similarity over dim 1), ``"kl"`` (batchmean KL divergence of probability
    rows), ``"ce"`` (cross entropy of logits against class indices),
    ``"huber"`` (smooth L1), ``"hinge"`` (the mean of ``clamp(1 - a * b, 0)``,
    predictions of one column against +-1 targets, broadcast) or ``"triplet"``
    (the triplet margin loss of an anchor, a positive and a negative)."""

    def __init__(self, kind="cosine"):
        super().__init__()
        self.kind = kind

    def forward(self, a, b, c=None):
        if self.kind == "triplet":
            return F.triplet_margin_loss(a, b, c, margin=1.0)
        if self.kind == "huber":
            return F.smooth_l1_loss(a, b)
        if self.kind == "hinge":
            return torch.mean(torch.clamp(1 - a * b, min=0))
        if self.kind == "kl":
            return F.kl_div(torch.log(a), b, reduction="batchmean")
        if self.kind == "ce":
            return F.cross_entropy(a, b)
        return torch.mean(1 - F.cosine_similarity(a, b, dim=1))


class LstmOutput(nn.Module):
    """An nn.LSTM over a few time steps (KernelBench level 3's LSTMs), its output
    sequence: each step reads its slice of the input projection."""

    def __init__(self, features=64, hidden=64):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class Cumsum(nn.Module):
    """KernelBench level 1's cumsum along dim 1 (reverse=True: its reverse cumsum,
    a cumsum of the flipped rows flipped back)."""

    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = reverse

    def forward(self, x):
        if self.reverse:
            return torch.cumsum(x.flip(1), dim=1).flip(1)
        return torch.cumsum(x, dim=1)


class Reduce(nn.Module):
    """KernelBench level 1's reductions over a dimension: ``"prod"`` or
    ``"min"`` (its values)."""

    def __init__(self, kind="prod", dim=1):
        super().__init__()
        self.kind = kind
        self.dim = dim

    def forward(self, x):
        if self.kind == "min":
            return torch.min(x, dim=self.dim)[0]
        return torch.prod(x, dim=self.dim)


class MaskedCumsum(nn.Module):
    """KernelBench level 1's masked cumsum: the cumsum along dim 1 of the
    elements the boolean mask keeps."""

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=1)


class Cumprod(nn.Module):
    """KernelBench level 1's cumprod along dim 1."""

    def forward(self, x):
        return torch.cumprod(x, dim=1)


def _randn(*shape, dtype=torch.float32):
    return lambda device: torch.randn(*shape, dtype=dtype, device=device)


def _signs(*shape):
    """+-1 targets (KernelBench's hinge loss)."""
    return lambda device: torch.randint(0, 2, shape, device=device).float() * 2 - 1


def _mask(*shape):
    """A boolean mask keeping about half the elements (KernelBench's masked cumsum)."""
    return lambda device: torch.rand(*shape, device=device) > 0.5


def _classes(count, classes):
    """Class indices (KernelBench's cross entropy targets)."""
    return lambda device: torch.randint(0, classes, (count,), device=device)


def _softmax_rows(*shape):
    """Rows of probabilities (KernelBench's KL divergence inputs)."""
    return lambda device: torch.randn(*shape, device=device).softmax(-1)


MODELS: Dict[str, Tuple[Callable[[], nn.Module], List[Callable]]] = {
    "linear_relu": (LinearRelu, [_randn(128, 256)]),
    "softmax": (Softmax, [_randn(64, 1024)]),
    "layer_norm": (LayerNorm, [_randn(128, 512)]),
    "conv2d_relu": (ConvRelu, [_randn(2, 8, 16, 16)]),
    "gelu": (Gelu, [_randn(256, 1024)]),
    "matmul_f16": (MatmulF16, [_randn(128, 256, dtype=torch.float16),
                               _randn(256, 128, dtype=torch.float16)]),
    "mlp_block": (MLPBlock, [_randn(256, 512)]),
    # The shapes of test/Programs' corpus (KernelBench level 1 and 2).
    "log_softmax": (LogSoftmax, [_randn(64, 1024)]),
    "rms_norm": (RMSNorm, [_randn(128, 512)]),
    "sum_keepdim": (SumKeepdim, [_randn(16, 256, 64)]),
    "flatten_linear": (FlattenLinear, [_randn(4, 8, 16, 16)]),
    "concat_branches": (ConcatBranches, [_randn(32, 64), _randn(32, 64)]),
    "dense_concat": (DenseConcat, [_randn(2, 16, 8, 8), _randn(2, 8, 8, 8), _randn(2, 4, 8, 8)]),
    "dense_layer_input": (DenseLayerInput, [_randn(2, 8, 8, 8), _randn(2, 4, 8, 8)]),
    "attention_scores": (AttentionScores, [_randn(4, 128, 64), _randn(4, 128, 64)]),
    "attention": (Attention, [_randn(2, 4, 64, 32)] * 3),
    "gemm_relu_sum": (GemmReluSum, [_randn(128, 256)]),
    "linear_glu": (LinearGlu, [_randn(128, 256)]),
    "mse_loss": (MseLoss, [_randn(128, 512), _randn(128, 512)]),
    "lstm": (LstmOutput, [_randn(4, 4, 64)]),
    "batch_norm_train": (BatchNormTrain, [_randn(8, 16, 32, 32)]),
    "group_norm": (GroupNorm, [_randn(2, 16, 8, 8)]),
    "avg_pool": (lambda: Pool("avg", kernel_size=3, stride=2, padding=1), [_randn(2, 4, 16, 16)]),
    "max_pool": (lambda: Pool("max", kernel_size=2, stride=2, padding=1, dilation=3),
                 [_randn(2, 4, 16, 16)]),
    "avg_pool_3d": (lambda: Pool("avg", dims=3, kernel_size=3, stride=2, padding=1),
                    [_randn(2, 4, 8, 8, 8)]),
    "argmax": (ArgReduce, [_randn(4, 64, 32)]),
    "argmin": (lambda: ArgReduce("min", dim=-1), [_randn(16, 100)]),
    # Scans: torch-mlir's tm_tensor.scan replaced by a blocked scan in linalg (_scan.py);
    # 1000 is not a multiple of the block, 4000 (KernelBench's length) is.
    "cumsum": (Cumsum, [_randn(16, 1000)]),
    "cumsum_reverse": (lambda: Cumsum(reverse=True), [_randn(16, 4000)]),
    "cumprod": (Cumprod, [_randn(16, 100)]),
    "conv_logsumexp_bias": (ConvLogSumExpBias, [_randn(2, 8, 16, 16)]),
    "conv3d_layer_norm_pool": (Conv3dLayerNormPoolGelu, [_randn(2, 4, 10, 10, 10)]),
}


#: KernelBench-sized modules (level 1 and 2 shapes): the bench's "large" set.
LARGE: Dict[str, Tuple[Callable[[], nn.Module], List[Callable]]] = {
    # KernelBench level 2 Gemm + ReLU at its current size: 1024x8192 @ 8192x8192.
    "kb_linear_relu": (lambda: LinearRelu(8192, 8192), [_randn(1024, 8192)]),
    "kb_softmax": (Softmax, [_randn(4096, 16384)]),
    "kb_layer_norm": (lambda: LayerNorm(8192), [_randn(4096, 8192)]),
    "kb_gelu": (Gelu, [_randn(4096, 16384)]),
    # KernelBench's conv 3x3 64 -> 128 over 128x128 images, at an eighth of its batch
    # (at 32 the default lowering's plan needs 65536 row blocks, over CUDA's 65535).
    "kb_conv2d_relu": (lambda: ConvRelu(64, 128), [_randn(16, 64, 128, 128)]),
    # A GPT-2 medium MLP block over 2048 tokens: 1024 -> 4096 -> 1024.
    "kb_mlp_block": (lambda: MLPBlock(1024, 4096), [_randn(2048, 1024)]),
    # KernelBench level 2's GEMM shape with the row epilogues issue 14 names.
    "kb_linear_softmax": (lambda: LinearSoftmax(8192, 8192), [_randn(1024, 8192)]),
    "kb_linear_logsumexp": (lambda: LinearLogSumExp(8192, 8192), [_randn(1024, 8192)]),
    "kb_linear_residual": (lambda: LinearResidual(8192), [_randn(1024, 8192)]),
    # The same GEMM shape into a GLU: 8192 -> 2 x 4096 halves.
    "kb_linear_glu": (lambda: LinearGlu(8192, 4096), [_randn(1024, 8192)]),
    # The conv of kb_conv2d_relu, scaled, then a min over the output channels.
    "kb_conv_scale_min": (lambda: ConvScaleMin(64, 128), [_randn(16, 64, 128, 128)]),
    # KernelBench level 1's cumsum at an eighth of its 32768 x 32768 (512 MB).
    "kb_cumsum": (Cumsum, [_randn(4096, 32768)]),
    # KernelBench level 1's MSELoss at an eighth of its 32768 x 32768: one sum of every
    # element into a scalar.
    "kb_mse_loss": (MseLoss, [_randn(4096, 32768), _randn(4096, 32768)]),
    # KernelBench level 1's BatchNorm (training mode) at its size: 64 channels of
    # 16 x 256 x 256, each channel's statistics a strided row of 1M elements.
    "kb_batch_norm_train": (lambda: BatchNormTrain(64), [_randn(16, 64, 256, 256)]),
    # KernelBench level 1's GroupNorm at its size: 8 groups of 64 channels over
    # 16 x 256 x 256, each group a row of 8 x 65536 elements.
    "kb_group_norm": (lambda: GroupNorm(8, 64), [_randn(16, 64, 256, 256)]),
    # KernelBench level 1's AvgPool2d (kernel 3) and MaxPool2d (kernel 2, stride 2,
    # padding 1, dilation 3) at their sizes.
    "kb_avg_pool": (lambda: Pool("avg", kernel_size=3), [_randn(16, 64, 256, 256)]),
    "kb_max_pool": (lambda: Pool("max", kernel_size=2, stride=2, padding=1, dilation=3),
                    [_randn(16, 32, 128, 128)]),
    # KernelBench level 1's AvgPool3d (kernel 3, stride 2, padding 1) at its size.
    "kb_avg_pool_3d": (lambda: Pool("avg", dims=3, kernel_size=3, stride=2, padding=1),
                       [_randn(16, 32, 64, 64, 64)]),
    # KernelBench level 1's MaxPool3d (kernel 3, stride 2, padding 1, dilation 3).
    "kb_max_pool_3d": (lambda: Pool("max", dims=3, kernel_size=3, stride=2, padding=1,
                                    dilation=3), [_randn(16, 32, 64, 64, 64)]),
    # KernelBench level 1's L2 norm (16 x 16384) and Frobenius norm (16 x 64 x 256 x 256).
    "kb_l2_norm": (Normalize, [_randn(16, 16384)]),
    "kb_frobenius_norm": (lambda: Normalize("fro"), [_randn(16, 64, 256, 256)]),
    # KernelBench level 1's cosine similarity loss and KL divergence at 128 x 4096.
    "kb_cosine_loss": (Loss, [_randn(128, 4096), _randn(128, 4096)]),
    "kb_kl_div": (lambda: Loss("kl"), [_softmax_rows(128, 4096), _softmax_rows(128, 4096)]),
    # KernelBench level 1's cross entropy (4096 rows of 10 classes), instance norm
    # (64 features of 16 x 256 x 256), depthwise 3x3 conv (3 channels of 256 x 256) and
    # transposed 3x3 conv (32 -> 64 channels of 128 x 128).
    "kb_cross_entropy": (lambda: Loss("ce"), [_randn(4096, 10), _classes(4096, 10)]),
    "kb_instance_norm": (lambda: nn.InstanceNorm2d(64), [_randn(16, 64, 256, 256)]),
    "kb_depthwise_conv": (lambda: nn.Conv2d(3, 3, 3, groups=3), [_randn(16, 3, 256, 256)]),
    "kb_conv_transpose2d": (lambda: nn.ConvTranspose2d(32, 64, 3), [_randn(16, 32, 128, 128)]),
    # KernelBench level 1's argmax and argmin over dim 1 of 16 x 256 x 256.
    "kb_argmax": (ArgReduce, [_randn(16, 256, 256)]),
    "kb_argmin": (lambda: ArgReduce("min"), [_randn(16, 256, 256)]),
    # torch.cat of two activations of 4096 x 8192 each into 4096 x 16384: the branches
    # written in place (torch.compile fuses the cat too).
    "kb_concat_branches": (ConcatBranches, [_randn(4096, 8192), _randn(4096, 8192)]),
    # A DenseNet-121 first-block concatenation at 16 images of 56 x 56: the block's 256
    # channels and new features of 32 and 64 channels (parts of different sizes).
    "kb_dense_concat": (DenseConcat, [_randn(16, 256, 56, 56), _randn(16, 32, 56, 56),
                                      _randn(16, 64, 56, 56)]),
    # A DenseNet-121 layer's input at its first block's last layer: 224 channels so far
    # and 32 new ones over 56 x 56, batch 16.
    "kb_dense_layer_input": (lambda: DenseLayerInput(256),
                             [_randn(16, 224, 56, 56), _randn(16, 32, 56, 56)]),
    # KernelBench level 1's L1 norm (16 x 16384), Huber and triplet margin losses
    # (128 x 4096), hinge loss (128 predictions against +-1 targets), product and min
    # over dim 1 of 16 x 256 x 256, AvgPool1d (kernel 4, stride 2, padding 1) over
    # 16 x 32 x 128 and masked cumsum (128 x 4000).
    "kb_l1_norm": (lambda: Normalize("l1"), [_randn(16, 16384)]),
    "kb_huber_loss": (lambda: Loss("huber"), [_randn(128, 4096), _randn(128, 4096)]),
    "kb_triplet_loss": (lambda: Loss("triplet"),
                        [_randn(128, 4096), _randn(128, 4096), _randn(128, 4096)]),
    "kb_hinge_loss": (lambda: Loss("hinge"), [_randn(128, 1), _signs(128)]),
    "kb_prod_reduce": (Reduce, [_randn(16, 256, 256)]),
    "kb_min_reduce": (lambda: Reduce("min"), [_randn(16, 256, 256)]),
    "kb_avg_pool_1d": (lambda: Pool("avg", dims=1, kernel_size=4, stride=2, padding=1),
                       [_randn(16, 32, 128)]),
    "kb_masked_cumsum": (MaskedCumsum, [_randn(128, 4000), _mask(128, 4000)]),
    # KernelBench level 1's RMSNorm over 64 features of 16 x 256 x 256 (a reduction over
    # dim 1, strided), sum (keepdim) and mean over dim 1 of 16 x 256 x 256, batched
    # matmul (128 x 128 x 256 @ 128 x 256 x 512), reverse cumsum (128 x 4000), and its
    # 3-D conv (3 -> 64 channels, kernel 3) over 64^3 at a quarter of its batch of 16.
    "kb_rms_norm": (ChannelRmsNorm, [_randn(16, 64, 256, 256)]),
    "kb_sum_reduce": (SumKeepdim, [_randn(16, 256, 256)]),
    "kb_mean_reduce": (MeanDim, [_randn(16, 256, 256)]),
    "kb_bmm": (Bmm, [_randn(128, 128, 256), _randn(128, 256, 512)]),
    "kb_cumsum_reverse": (lambda: Cumsum(reverse=True), [_randn(128, 4000)]),
    "kb_conv3d": (lambda: nn.Conv3d(3, 64, 3), [_randn(4, 3, 64, 64, 64)]),
    # 16 heads of 512 queries and keys of 64 over a batch of 16 (f32).
    "kb_attention": (Attention, [_randn(16, 16, 512, 64)] * 3),
    # KernelBench level 2's usual shape (batch 128 of 3 x 32 x 32, 16 filters of 3x3):
    # a keepdim logsumexp over the feature map plus a (16, 1, 1) bias; and a 3-D conv
    # (16 x 32 x 32 depth, height and width), a layer norm over the last dimension, a
    # 2x2x2 average pool and GELU, at a quarter of its batch.
    "kb_conv_logsumexp_bias": (lambda: ConvLogSumExpBias(3, 16), [_randn(128, 3, 32, 32)]),
    "kb_conv3d_layer_norm_pool": (lambda: Conv3dLayerNormPoolGelu(3, 16, 30),
                                  [_randn(32, 3, 16, 32, 32)]),
    # KernelBench level 2's usual transposed conv, stride 2 (3x3, padding 1, output
    # padding 1), at 64 -> 64 channels of 64 x 64, batch 16: torch-mlir writes it as a
    # conv over the input spread onto a zero grid (three taps in four read a zero).
    "kb_conv_transpose2d_s2": (lambda: nn.ConvTranspose2d(64, 64, 3, stride=2, padding=1,
                                                          output_padding=1),
                               [_randn(16, 64, 64, 64)]),
}


def make(name: str, device="cpu", seed: int = 0):
    """``(model, inputs)`` for MODELS[name] or LARGE[name], seeded, in eval
    mode, on device."""
    make_model, inputs = MODELS[name] if name in MODELS else LARGE[name]
    torch.manual_seed(seed)
    model = make_model().eval().to(device)
    return model, [make_input(device) for make_input in inputs]
