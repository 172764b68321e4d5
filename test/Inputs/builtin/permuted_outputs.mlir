// Products whose region output is the product transposed (a linear layer's
// output transposed, a convolution's output moved to channels last, as
// torch-mlir writes an avg_pool3d after a Conv3d), for
// builtin-permuted-output-emulated.test. Each function is one region: the
// transpose joins the product's epilogue.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>

// relu(x W^T + b), transposed: 24x40 -> 40x24.
func.func @linear_transposed(%x: tensor<24x48xf32>, %w: tensor<40x48xf32>,
                             %b: tensor<40xf32>) -> tensor<40x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<48x40xf32>
  %wt = linalg.transpose ins(%w : tensor<40x48xf32>) outs(%e0 : tensor<48x40xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<24x40xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<24x40xf32>) -> tensor<24x40xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<24x48xf32>, tensor<48x40xf32>) outs(%z : tensor<24x40xf32>) -> tensor<24x40xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<24x40xf32>, tensor<40xf32>) outs(%e1 : tensor<24x40xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<24x40xf32>
  %e2 = tensor.empty() : tensor<40x24xf32>
  %t = linalg.transpose ins(%r : tensor<24x40xf32>) outs(%e2 : tensor<40x24xf32>) permutation = [1, 0]
  return %t : tensor<40x24xf32>
}

// A square product returned both as it is (scaled) and transposed: two
// outputs, one at the element, one at its transpose.
func.func @square_both(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<32x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %t = linalg.transpose ins(%s : tensor<32x32xf32>) outs(%e2 : tensor<32x32xf32>) permutation = [1, 0]
  return %s, %t : tensor<32x32xf32>, tensor<32x32xf32>
}

// A 3x3 convolution + bias + relu, NCHW, moved to NHWC.
func.func @conv_channels_last(%x: tensor<2x4x10x10xf32>, %f: tensor<8x4x3x3xf32>,
                              %b: tensor<8xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<2x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %f : tensor<2x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x8x8xf32>) outs(%e : tensor<2x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8x8x8xf32>
  %t = linalg.transpose ins(%r : tensor<2x8x8x8xf32>) outs(%e2 : tensor<2x8x8x8xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<2x8x8x8xf32>
}

// A 3-d convolution moved to channels last (NCDHW -> NDHWC), as before a
// torch-mlir avg_pool3d.
func.func @conv3d_channels_last(%x: tensor<1x3x6x6x6xf32>, %f: tensor<4x3x3x3x3xf32>)
    -> tensor<1x4x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  %c = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : vector<3xi64>, strides = dense<1> : vector<3xi64>}
      ins(%x, %f : tensor<1x3x6x6x6xf32>, tensor<4x3x3x3x3xf32>) outs(%z : tensor<1x4x4x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4x4x4xf32>
  %t = linalg.transpose ins(%c : tensor<1x4x4x4x4xf32>) outs(%e2 : tensor<1x4x4x4x4xf32>) permutation = [0, 2, 3, 4, 1]
  return %t : tensor<1x4x4x4x4xf32>
}
