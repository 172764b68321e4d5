// NCHW convolutions whose input is a zero tensor.pad, fused into the conv's
// region, read through the table of tap offsets: each entry holds the bit
// of its tap in a row's mask, each thread the mask of the taps whose
// element is inside the unpadded input at its row
// (builtin-conv-taps-padded.test, builtin-conv-taps-padded-emulated.test).
// Sizes are small and not tile multiples. Edges: rows past M, a stride,
// uneven pads with dilation, a padded channel (a bound without a row), and
// a 7x7 kernel whose 49 taps need 64-bit masks.

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#ch = affine_map<(n, f, h, w) -> (f)>

// KernelBench's conv2d + bias + relu in small: 3x3 pad 1, W = 18 (no row
// copies: W is not a multiple of 4), M = 2 x 6 x 18 = 216 rows.
func.func @taps_pad1_bias_relu(%x: tensor<2x4x6x18xf32>, %w: tensor<8x4x3x3xf32>,
                               %bias: tensor<8xf32>) -> tensor<2x8x6x18xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x6x18xf32> to tensor<2x4x8x20xf32>
  %e = tensor.empty() : tensor<2x8x6x18xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x18xf32>) -> tensor<2x8x6x18xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x4x8x20xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<2x8x6x18xf32>) -> tensor<2x8x6x18xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x8x6x18xf32>, tensor<8xf32>) outs(%e : tensor<2x8x6x18xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6x18xf32>
  return %r : tensor<2x8x6x18xf32>
}

// 3x3 stride 2 pad 1 (ResNet's downsampling): the packed im2col kernels
// first, then the table's.
func.func @taps_pad1_stride2(%x: tensor<1x5x13x13xf32>, %w: tensor<7x5x3x3xf32>) -> tensor<1x7x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x5x13x13xf32> to tensor<1x5x15x15xf32>
  %e = tensor.empty() : tensor<1x7x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x7xf32>) -> tensor<1x7x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x5x15x15xf32>, tensor<7x5x3x3xf32>) outs(%f : tensor<1x7x7x7xf32>) -> tensor<1x7x7x7xf32>
  return %c : tensor<1x7x7x7xf32>
}

// Uneven pads (1 row above and below, 2 columns left, 1 right) at dilation
// 2, and one channel padded before and after the 3 of the input: the
// channel's bound holds no row, so it is the table entry's (bit 0), the
// rows' and columns' are the mask's.
func.func @taps_pad_uneven_channels(%x: tensor<1x3x10x11xf32>, %w: tensor<6x5x3x3xf32>) -> tensor<1x6x8x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 2] high[0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x10x11xf32> to tensor<1x5x12x14xf32>
  %e = tensor.empty() : tensor<1x6x8x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x8x10xf32>) -> tensor<1x6x8x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x5x12x14xf32>, tensor<6x5x3x3xf32>) outs(%f : tensor<1x6x8x10xf32>) -> tensor<1x6x8x10xf32>
  return %c : tensor<1x6x8x10xf32>
}

// 7x7 pad 3: 49 taps whose bounds depend on the row, more than a mask's 32
// bits; the element gather and the packed kernels only.
func.func @taps_pad3_7x7(%x: tensor<1x3x12x12xf32>, %w: tensor<4x3x7x7xf32>) -> tensor<1x4x12x12xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x12x12xf32> to tensor<1x3x18x18xf32>
  %e = tensor.empty() : tensor<1x4x12x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x3x18x18xf32>, tensor<4x3x7x7xf32>) outs(%f : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
  return %c : tensor<1x4x12x12xf32>
}
