// Regions with a tensor.pad that no builtin strategy writes yet: each keeps
// its default lowering, with the reason (builtin-conv-pad.test). The conv
// strategy reads pads, only those of its own operands, and the elementwise
// strategy those of elementwise regions (elementwise_reads.mlir); the matmul
// and row strategies read none.

#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>

// A conv whose residual is a pad: the conv strategy reads only its own
// operands' pads.
func.func @conv_padded_residual(%x: tensor<1x10x10x4xf32>, %w: tensor<3x3x4x8xf32>,
                                %res: tensor<1x6x6x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %q = tensor.pad %res low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %q : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// A matrix product whose left operand is padded: the matmul strategy does
// not read pads.
func.func @padded_matmul(%a: tensor<6x8xf32>, %b: tensor<10x12xf32>) -> tensor<6x12xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<6x8xf32> to tensor<6x10xf32>
  %e = tensor.empty() : tensor<6x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x12xf32>) -> tensor<6x12xf32>
  %m = linalg.matmul ins(%p, %b : tensor<6x10xf32>, tensor<10x12xf32>) outs(%f : tensor<6x12xf32>) -> tensor<6x12xf32>
  return %m : tensor<6x12xf32>
}
