// A padded 7x7 NCHW convolution at a KernelBench-like size for the conv
// strategy's GPU figures (docs/perf.md): its 49 taps take the tap table's
// 64-bit masks. Too large for the lit tests, so staged by hand.

// Conv2d(32, 64, 7, padding=3) on 16x32x128x128.
func.func @kb_conv7x7_pad3(%x: tensor<16x32x128x128xf32>, %w: tensor<64x32x7x7xf32>) -> tensor<16x64x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<16x32x128x128xf32> to tensor<16x32x134x134xf32>
  %e = tensor.empty() : tensor<16x64x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64x128x128xf32>) -> tensor<16x64x128x128xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<16x32x134x134xf32>, tensor<64x32x7x7xf32>) outs(%f : tensor<16x64x128x128xf32>) -> tensor<16x64x128x128xf32>
  return %c : tensor<16x64x128x128xf32>
}
