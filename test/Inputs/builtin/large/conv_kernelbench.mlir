// KernelBench-shaped convolutions for the conv strategy's GPU figures
// (docs/perf.md); too large for the lit tests and the default gpu-check
// stage (their default lowering runs for tens to hundreds of milliseconds),
// so staged by hand.
// torch layout (NCHW, FCHW filter), f32, no padding. The default lowering
// launches more than 65535 row blocks at these batches (the verifier
// refuses its plan), so the _b32 and _b64 copies at a quarter of the batch
// are the ones verified against it.

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#ch = affine_map<(n, f, h, w) -> (f)>

// Conv2d(64, 128, 3) + bias + relu on 128x64x128x128.
func.func @kb_conv3x3_bias_relu(%x: tensor<128x64x128x128xf32>, %w: tensor<128x64x3x3xf32>,
                                %bias: tensor<128xf32>) -> tensor<128x128x126x126xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128x126x126xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128x126x126xf32>) -> tensor<128x128x126x126xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<128x64x128x128xf32>, tensor<128x64x3x3xf32>)
      outs(%f : tensor<128x128x126x126xf32>) -> tensor<128x128x126x126xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<128x128x126x126xf32>, tensor<128xf32>) outs(%e : tensor<128x128x126x126xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x128x126x126xf32>
  return %r : tensor<128x128x126x126xf32>
}

// AlexNet's first layer: Conv2d(3, 96, 11, stride 4) on 256x3x224x224.
func.func @kb_alexnet_conv1(%x: tensor<256x3x224x224xf32>, %w: tensor<96x3x11x11xf32>) -> tensor<256x96x54x54xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x96x54x54xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x96x54x54xf32>) -> tensor<256x96x54x54xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>}
      ins(%x, %w : tensor<256x3x224x224xf32>, tensor<96x3x11x11xf32>)
      outs(%f : tensor<256x96x54x54xf32>) -> tensor<256x96x54x54xf32>
  return %c : tensor<256x96x54x54xf32>
}

// Conv2d(64, 128, 3) + bias + relu on 32x64x128x128.
func.func @kb_conv3x3_bias_relu_b32(%x: tensor<32x64x128x128xf32>, %w: tensor<128x64x3x3xf32>,
                                %bias: tensor<128xf32>) -> tensor<32x128x126x126xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128x126x126xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x128x126x126xf32>) -> tensor<32x128x126x126xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<32x64x128x128xf32>, tensor<128x64x3x3xf32>)
      outs(%f : tensor<32x128x126x126xf32>) -> tensor<32x128x126x126xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<32x128x126x126xf32>, tensor<128xf32>) outs(%e : tensor<32x128x126x126xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x128x126x126xf32>
  return %r : tensor<32x128x126x126xf32>
}

// AlexNet's first layer: Conv2d(3, 96, 11, stride 4) on 64x3x224x224.
func.func @kb_alexnet_conv1_b64(%x: tensor<64x3x224x224xf32>, %w: tensor<96x3x11x11xf32>) -> tensor<64x96x54x54xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96x54x54xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96x54x54xf32>) -> tensor<64x96x54x54xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>}
      ins(%x, %w : tensor<64x3x224x224xf32>, tensor<96x3x11x11xf32>)
      outs(%f : tensor<64x96x54x54xf32>) -> tensor<64x96x54x54xf32>
  return %c : tensor<64x96x54x54xf32>
}
