// KernelBench's wide 3x3 convolution (issue 15's 64x64x256x256 -> 128) for
// the conv strategy's GPU figures (docs/perf.md); too large for the lit
// tests, so staged by hand. torch layout (NCHW, FCHW filter), f32, no
// padding. The batch-8 copy is verified against the default lowering; the
// batch-64 one against a candidate of its own (its default lowering's grid
// is past the launch limits).

// Conv2d(64, 128, 3) on 64x64x256x256.
func.func @kb_conv3x3_wide(%x: tensor<64x64x256x256xf32>, %w: tensor<128x64x3x3xf32>) -> tensor<64x128x254x254xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128x254x254xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128x254x254xf32>) -> tensor<64x128x254x254xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<64x64x256x256xf32>, tensor<128x64x3x3xf32>)
      outs(%f : tensor<64x128x254x254xf32>) -> tensor<64x128x254x254xf32>
  return %c : tensor<64x128x254x254xf32>
}

// Conv2d(64, 128, 3) on 8x64x256x256, an eighth of the batch.
func.func @kb_conv3x3_wide_b8(%x: tensor<8x64x256x256xf32>, %w: tensor<128x64x3x3xf32>) -> tensor<8x128x254x254xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128x254x254xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128x254x254xf32>) -> tensor<8x128x254x254xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x64x256x256xf32>, tensor<128x64x3x3xf32>)
      outs(%f : tensor<8x128x254x254xf32>) -> tensor<8x128x254x254xf32>
  return %c : tensor<8x128x254x254xf32>
}
