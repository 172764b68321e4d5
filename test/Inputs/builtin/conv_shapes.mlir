// Convolutions of the conv strategy's tests (builtin-conv.test,
// builtin-conv-emulated.test): both layouts, strides, dilation, a 1x1, an
// AlexNet-like 11x11 stride 4 over 3 channels, fused epilogues, f16 in with
// f32 accumulation, depthwise (the direct kernel). Sizes are small and not
// tile multiples.

#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>

// NHWC 3x3 over a pre-padded input, bias + relu fused.
func.func @nhwc_bias_relu(%x: tensor<2x10x10x8xf32>, %w: tensor<3x3x8x12xf32>,
                          %bias: tensor<12xf32>) -> tensor<2x8x8x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x12xf32>) -> tensor<2x8x8x12xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x8xf32>, tensor<3x3x8x12xf32>)
      outs(%f : tensor<2x8x8x12xf32>) -> tensor<2x8x8x12xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #ch, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x8x8x12xf32>, tensor<12xf32>) outs(%e : tensor<2x8x8x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x12xf32>
  return %r : tensor<2x8x8x12xf32>
}

// NCHW 3x3 stride 2.
func.func @nchw_stride2(%x: tensor<1x5x13x13xf32>, %w: tensor<7x5x3x3xf32>) -> tensor<1x7x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x6x6xf32>) -> tensor<1x7x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x13x13xf32>, tensor<7x5x3x3xf32>)
      outs(%f : tensor<1x7x6x6xf32>) -> tensor<1x7x6x6xf32>
  return %c : tensor<1x7x6x6xf32>
}

// AlexNet's first layer in small: 11x11 stride 4 over 3 channels, NCHW.
func.func @alexnet_like(%x: tensor<2x3x31x31xf32>, %w: tensor<10x3x11x11xf32>) -> tensor<2x10x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x10x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x10x6x6xf32>) -> tensor<2x10x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>}
      ins(%x, %w : tensor<2x3x31x31xf32>, tensor<10x3x11x11xf32>)
      outs(%f : tensor<2x10x6x6xf32>) -> tensor<2x10x6x6xf32>
  return %c : tensor<2x10x6x6xf32>
}

// A 1x1 convolution (a plain GEMM over N*H*W rows), scaled.
func.func @pointwise_scaled(%x: tensor<3x7x7x20xf32>, %w: tensor<1x1x20x24xf32>) -> tensor<3x7x7x24xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<3x7x7x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x7x7x24xf32>) -> tensor<3x7x7x24xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<3x7x7x20xf32>, tensor<1x1x20x24xf32>)
      outs(%f : tensor<3x7x7x24xf32>) -> tensor<3x7x7x24xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<3x7x7x24xf32>) outs(%e : tensor<3x7x7x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %half : f32
    linalg.yield %s : f32
  } -> tensor<3x7x7x24xf32>
  return %r : tensor<3x7x7x24xf32>
}

// The generic form with dilation 2, NHWC, a residual added.
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh * 2, ow + kw * 2, c)>
#flt = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @dilated_generic_residual(%x: tensor<1x12x12x4xf32>, %w: tensor<3x3x4x6xf32>,
                                   %res: tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  %c = linalg.generic {indexing_maps = [#in, #flt, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x12x12x4xf32>, tensor<3x3x4x6xf32>) outs(%f : tensor<1x8x8x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x6xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %res : tensor<1x8x8x6xf32>, tensor<1x8x8x6xf32>) outs(%e : tensor<1x8x8x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x6xf32>
  return %r : tensor<1x8x8x6xf32>
}

// f16 input and filter, f32 accumulation and result: mma.sync.
func.func @nhwc_f16(%x: tensor<2x10x10x16xf16>, %w: tensor<3x3x16x40xf16>) -> tensor<2x8x8x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x16xf16>, tensor<3x3x16x40xf16>)
      outs(%f : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  return %c : tensor<2x8x8x40xf32>
}

// Depthwise NHWC 3x3, relu fused: the direct kernel.
func.func @depthwise_relu(%x: tensor<2x10x10x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x8xf32>, tensor<3x3x8xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x8x8xf32>) outs(%e : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x8xf32>
  return %r : tensor<2x8x8x8xf32>
}

// Depthwise NCHW 5x5 stride 2.
func.func @depthwise_nchw_stride2(%x: tensor<1x6x15x15xf32>, %w: tensor<6x5x5xf32>) -> tensor<1x6x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x15x15xf32>, tensor<6x5x5xf32>) outs(%f : tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32>
  return %c : tensor<1x6x6x6xf32>
}
