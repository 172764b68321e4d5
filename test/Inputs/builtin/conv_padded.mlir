// Convolutions whose input is a tensor.pad (what torch-mlir emits for
// nn.Conv2d(padding=...)): the outliner fuses the pad into the conv's region,
// which takes the unpadded input, and the conv strategy reads it with bounds
// (builtin-conv-pad.test, builtin-conv-pad-emulated.test). Sizes are small
// and not tile multiples. pad_refused.mlir has the padded regions no
// strategy writes.

#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>

// NCHW 3x3 pad 1, relu: KernelBench's conv2d + relu in small.
func.func @nchw_pad1_relu(%x: tensor<2x4x9x9xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x9x9xf32> to tensor<2x4x11x11xf32>
  %e = tensor.empty() : tensor<2x6x9x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x9x9xf32>) -> tensor<2x6x9x9xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x4x11x11xf32>, tensor<6x4x3x3xf32>) outs(%f : tensor<2x6x9x9xf32>) -> tensor<2x6x9x9xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x6x9x9xf32>) outs(%e : tensor<2x6x9x9xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x6x9x9xf32>
  return %r : tensor<2x6x9x9xf32>
}

// NHWC 3x3 stride 2, padded unevenly (2 above, 1 below, 1 left, 2 right),
// bias fused: the channels are not padded, so the 3xTF32 loader still
// copies 16 bytes at a time.
func.func @nhwc_pad_asym_stride2(%x: tensor<2x9x9x8xf32>, %w: tensor<3x3x8x12xf32>,
                                 %bias: tensor<12xf32>) -> tensor<2x5x5x12xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 2, 1, 0] high[0, 1, 2, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x9x9x8xf32> to tensor<2x12x12x8xf32>
  %e = tensor.empty() : tensor<2x5x5x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x5x12xf32>) -> tensor<2x5x5x12xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<2x12x12x8xf32>, tensor<3x3x8x12xf32>) outs(%f : tensor<2x5x5x12xf32>) -> tensor<2x5x5x12xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #ch, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x5x5x12xf32>, tensor<12xf32>) outs(%e : tensor<2x5x5x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x5x5x12xf32>
  return %r : tensor<2x5x5x12xf32>
}

// NHWC with the channels padded too (3 to 4): one element a copy.
func.func @nhwc_pad_channels(%x: tensor<1x6x6x3xf32>, %w: tensor<3x3x4x5xf32>) -> tensor<1x6x6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x3xf32> to tensor<1x8x8x4xf32>
  %e = tensor.empty() : tensor<1x6x6x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x5xf32>) -> tensor<1x6x6x5xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x5xf32>) outs(%f : tensor<1x6x6x5xf32>) -> tensor<1x6x6x5xf32>
  return %c : tensor<1x6x6x5xf32>
}

// NCHW 5x5 padded by 2 with 0.5 (not zero): the value is read outside.
func.func @nchw_pad_value(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x5x5xf32>) -> tensor<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %half : f32
  } : tensor<1x3x7x7xf32> to tensor<1x3x11x11xf32>
  %e = tensor.empty() : tensor<1x4x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x3x11x11xf32>, tensor<4x3x5x5xf32>) outs(%f : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %c : tensor<1x4x7x7xf32>
}

// f16 input and filter padded by 1, f32 accumulation: mma.sync.
func.func @nhwc_f16_pad(%x: tensor<2x8x8x16xf16>, %w: tensor<3x3x16x40xf16>) -> tensor<2x8x8x40xf32> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
  %e = tensor.empty() : tensor<2x8x8x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x10x10x16xf16>, tensor<3x3x16x40xf16>)
      outs(%f : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  return %c : tensor<2x8x8x40xf32>
}

// Depthwise NHWC 3x3 padded by 1: the direct kernel.
func.func @depthwise_pad(%x: tensor<2x8x8x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x8x8x8xf32> to tensor<2x10x10x8xf32>
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x10x10x8xf32>, tensor<3x3x8xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %c : tensor<2x8x8x8xf32>
}
