// NCHW convolutions at stride 1 along W whose output rows are whole tiles
// (W_out a multiple of the tile's rows) and whose input rows are whole
// 16-byte vectors: the 3xTF32 loader copies each tap's run of an input row
// 16 bytes at a time from the boundary before it (builtin-conv-nchw-rows.test,
// builtin-conv-nchw-rows-emulated.test). Edges: K not a step multiple,
// output channels not a tile multiple, pads on both sides of W (zero-filled
// whole vectors), uneven pads, dilation.

#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>

// KernelBench's conv2d + relu in small: 3x3 pad 1, C = 3 (K = 27), W = 64
// (the 64-row tiles copy rows; the 128-row ones keep the element gather).
func.func @nchw_rows_pad1_relu(%x: tensor<2x3x5x64xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<2x8x5x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x3x5x64xf32> to tensor<2x3x7x66xf32>
  %e = tensor.empty() : tensor<2x8x5x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x5x64xf32>) -> tensor<2x8x5x64xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x3x7x66xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<2x8x5x64xf32>) -> tensor<2x8x5x64xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x5x64xf32>) outs(%e : tensor<2x8x5x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x5x64xf32>
  return %r : tensor<2x8x5x64xf32>
}

// No pad, dilation 2: the taps at w + 0, 2, 4, the copies past the row's
// end zero-filled.
func.func @nchw_rows_dilated(%x: tensor<1x4x6x132xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x2x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x2x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x2x128xf32>) -> tensor<1x6x2x128xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x6x132xf32>, tensor<6x4x3x3xf32>) outs(%f : tensor<1x6x2x128xf32>) -> tensor<1x6x2x128xf32>
  return %c : tensor<1x6x2x128xf32>
}

// Uneven pads (1 row above and below, 2 columns left, 1 right), a 3x4
// kernel: the taps at w - 2 .. w + 1, every shift of a 16-byte vector.
func.func @nchw_rows_pad_uneven(%x: tensor<1x2x4x128xf32>, %w: tensor<5x2x3x4xf32>) -> tensor<1x5x4x128xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x128xf32> to tensor<1x2x6x131xf32>
  %e = tensor.empty() : tensor<1x5x4x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x4x128xf32>) -> tensor<1x5x4x128xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x2x6x131xf32>, tensor<5x2x3x4xf32>) outs(%f : tensor<1x5x4x128xf32>) -> tensor<1x5x4x128xf32>
  return %c : tensor<1x5x4x128xf32>
}
