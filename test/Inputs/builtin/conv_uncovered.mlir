// Convolutions the conv strategy does not cover yet: each keeps its default
// lowering, with the reason naming what is missing.

func.func @conv_i32(%x: tensor<1x10x10x8xi32>, %w: tensor<3x3x8x4xi32>) -> tensor<1x8x8x4xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8x8x4xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x8xi32>, tensor<3x3x8x4xi32>) outs(%f : tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>
  return %c : tensor<1x8x8x4xi32>
}
