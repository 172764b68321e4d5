// Unpadded NCHW convolutions whose im2col rows are neither NHWC channels
// nor runs of input rows (a stride along W, or output rows that are not
// whole tiles): the 3xTF32 kernels read their im2col tiles through a table
// of tap offsets (taps-*) or from the im2col matrix packed into the
// workspace (packed-*) (builtin-conv-taps.test, builtin-conv-packed.test,
// builtin-conv-im2col-emulated.test). Sizes are small and not tile
// multiples.

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#ch = affine_map<(n, f, h, w) -> (f)>

// AlexNet's first layer in small: 11x11 stride 4 over 3 channels (K = 363),
// 96 output channels (the 128 x 96 tile), M = 3 x 5 x 5 = 75 rows; bias +
// relu fused.
func.func @im2col_stride4_f96(%x: tensor<3x3x27x27xf32>, %w: tensor<96x3x11x11xf32>,
                              %bias: tensor<96xf32>) -> tensor<3x96x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x96x5x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x96x5x5xf32>) -> tensor<3x96x5x5xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>}
      ins(%x, %w : tensor<3x3x27x27xf32>, tensor<96x3x11x11xf32>)
      outs(%f : tensor<3x96x5x5xf32>) -> tensor<3x96x5x5xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<3x96x5x5xf32>, tensor<96xf32>) outs(%e : tensor<3x96x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<3x96x5x5xf32>
  return %r : tensor<3x96x5x5xf32>
}

// KernelBench's 3x3 without pad in small: stride 1, W_out = 16 (not a
// multiple of the tiles' rows, so no row copies), K = 36.
func.func @im2col_3x3_rows_split(%x: tensor<2x4x6x18xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x16xf32>) -> tensor<2x8x4x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x4x6x18xf32>, tensor<8x4x3x3xf32>)
      outs(%f : tensor<2x8x4x16xf32>) -> tensor<2x8x4x16xf32>
  return %c : tensor<2x8x4x16xf32>
}
