// f16/bf16 NHWC convolutions for the conv strategy's warp-specialized wgmma
// kernels (builtin-conv-wgmma.test): channels in whole 64-element steps, a
// zero pad fused, a stride, bf16, an output-channel count that is not a
// tile multiple, and the im2col rows not whole tiles; sizes are small.

#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>

// f16 3x3 over a pre-padded input, bias + relu fused, 64 output channels.
func.func @f16_bias_relu(%x: tensor<2x10x10x64xf16>, %w: tensor<3x3x64x64xf16>,
                         %bias: tensor<64xf32>) -> tensor<2x8x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x64xf16>, tensor<3x3x64x64xf16>)
      outs(%f : tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #ch, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x8x8x64xf32>, tensor<64xf32>) outs(%e : tensor<2x8x8x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x64xf32>
  return %r : tensor<2x8x8x64xf32>
}

// f16 padded by 1 (the pad fused, read from its source), 128 output
// channels, 3 x 7 x 7 = 147 rows: not whole 128-row tiles.
func.func @f16_pad(%x: tensor<3x7x7x128xf16>, %w: tensor<3x3x128x128xf16>) -> tensor<3x7x7x128xf32> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<3x7x7x128xf16> to tensor<3x9x9x128xf16>
  %e = tensor.empty() : tensor<3x7x7x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x7x7x128xf32>) -> tensor<3x7x7x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<3x9x9x128xf16>, tensor<3x3x128x128xf16>)
      outs(%f : tensor<3x7x7x128xf32>) -> tensor<3x7x7x128xf32>
  return %c : tensor<3x7x7x128xf32>
}

// bf16, stride 2 and dilation 2, 96 output channels (B's columns not whole
// 128-column tiles), bf16 result.
func.func @bf16_strided(%x: tensor<2x13x13x64xbf16>, %w: tensor<3x3x64x96xbf16>) -> tensor<2x5x5x96xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<2x5x5x96xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<2x5x5x96xbf16>) -> tensor<2x5x5x96xbf16>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x13x13x64xbf16>, tensor<3x3x64x96xbf16>)
      outs(%f : tensor<2x5x5x96xbf16>) -> tensor<2x5x5x96xbf16>
  return %c : tensor<2x5x5x96xbf16>
}

// f16 with 32 channels: not whole 64-element steps, so mma.sync alone.
func.func @f16_narrow(%x: tensor<2x10x10x32xf16>, %w: tensor<3x3x32x64xf16>) -> tensor<2x8x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x32xf16>, tensor<3x3x32x64xf16>)
      outs(%f : tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32>
  return %c : tensor<2x8x8x64xf32>
}
