// KernelBench's conv2d + relu (python/cuda_agent/models.py kb_conv2d_relu:
// nn.Conv2d(64, 128, 3, padding=1) + relu on 16x64x128x128, f32) in
// torch-mlir's form: a tensor.pad of the input, the bias broadcast into the
// conv's init, relu as cmpf + select. Outlined, the pad is inside the conv's
// region, which the conv strategy reads with bounds. For the GPU figures of
// docs/perf.md; staged by hand (too large for the lit tests).

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @kb_conv2d_relu_pad1(%x: tensor<16x64x128x128xf32>, %w: tensor<128x64x3x3xf32>,
                               %bias: tensor<128xf32>) -> tensor<16x128x128x128xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<16x64x128x128xf32> to tensor<16x64x130x130xf32>
  %0 = tensor.empty() : tensor<16x128x128x128xf32>
  %broadcasted = linalg.broadcast ins(%bias : tensor<128xf32>) outs(%0 : tensor<16x128x128x128xf32>) dimensions = [0, 2, 3]
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%padded, %w : tensor<16x64x130x130xf32>, tensor<128x64x3x3xf32>)
      outs(%broadcasted : tensor<16x128x128x128xf32>) -> tensor<16x128x128x128xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%1 : tensor<16x128x128x128xf32>) outs(%0 : tensor<16x128x128x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.cmpf ugt, %in, %cst : f32
    %4 = arith.select %3, %in, %cst : f32
    linalg.yield %4 : f32
  } -> tensor<16x128x128x128xf32>
  return %2 : tensor<16x128x128x128xf32>
}

// The bench's 3x3 conv (bench/mlir/large/conv2d_nhwc_3x3.mlir: 32x112x112x64
// -> 64, NHWC) with its padding as a tensor.pad instead of a pre-padded
// input.
func.func @bench_conv3x3_nhwc_pad1(%x: tensor<32x112x112x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<32x112x112x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<32x112x112x64xf32> to tensor<32x114x114x64xf32>
  %e = tensor.empty() : tensor<32x112x112x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x112x112x64xf32>) -> tensor<32x112x112x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<32x114x114x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<32x112x112x64xf32>) -> tensor<32x112x112x64xf32>
  return %c : tensor<32x112x112x64xf32>
}
