// RUN: cuda-agent-opt %s --agent-outline --split-input-file --verify-diagnostics | FileCheck %s

// A static tensor.pad with a constant value is computed inside the region that
// reads it: the region takes the unpadded input, and no pad is left between
// regions (so no padded tensor crosses a region boundary).

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded_conv_relu(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
// CHECK-LABEL: func.func @padded_conv_relu(
//  CHECK-SAME:     %[[X:.+]]: tensor<1x8x8x4xf32>, %[[W:.+]]: tensor<3x3x4x8xf32>)
//   CHECK-NOT:   tensor.pad
//       CHECK:   %[[R:.+]] = call @padded_conv_relu_region0(%[[X]], %[[W]]) : (tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32>
//  CHECK-NEXT:   return %[[R]]
// CHECK-LABEL: func.func private @padded_conv_relu_region0(
//  CHECK-SAME:     %[[RX:.+]]: tensor<1x8x8x4xf32>, %[[RW:.+]]: tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32>
//  CHECK-SAME:     bytes = 4224 : i64
//  CHECK-SAME:     kind = "convolution"
//       CHECK:   %[[PAD:.+]] = tensor.pad %[[RX]] low[0, 1, 1, 0] high[0, 1, 1, 0]
//       CHECK:     tensor.yield %{{.+}} : f32
//       CHECK:   } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[PAD]], %[[RW]] :
//       CHECK:   linalg.generic
//       CHECK:     arith.maximumf
//   CHECK-NOT: func.func

// -----

// A pad feeding a pooling op and an elementwise op (torch's max_pool2d with
// padding; a pad added to a tensor of the padded shape): each region computes
// the pad itself, -inf for the pooling, 1.0 for the add.

func.func @padded_pool_and_add(%x: tensor<1x4x6x6xf32>, %y: tensor<1x4x8x8xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%p, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %q = tensor.pad %x low[0, 0, 2, 0] high[0, 0, 0, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %c = arith.constant 1.0 : f32
    tensor.yield %c : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %a = linalg.add ins(%q, %y : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e2 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %m, %a : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>
}
// CHECK-LABEL: func.func @padded_pool_and_add(
//   CHECK-NOT:   tensor.pad
//       CHECK:   call @padded_pool_and_add_region0(%{{.+}}) : (tensor<1x4x6x6xf32>) -> tensor<1x4x4x4xf32>
//       CHECK:   call @padded_pool_and_add_region1(%{{.+}}, %{{.+}}) : (tensor<1x4x6x6xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-LABEL: func.func private @padded_pool_and_add_region0(
//  CHECK-SAME:     kind = "convolution"
//       CHECK:   %[[NINF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[P:.+]] = tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
//       CHECK:     tensor.yield %[[NINF]] : f32
//       CHECK:   linalg.pooling_nchw_max {{.*}} ins(%[[P]],
// CHECK-LABEL: func.func private @padded_pool_and_add_region1(
//  CHECK-SAME:     kind = "elementwise"
//       CHECK:   %[[Q:.+]] = tensor.pad %{{.+}} low[0, 0, 2, 0] high[0, 0, 0, 2]
//       CHECK:     arith.constant 1.000000e+00 : f32
//       CHECK:   linalg.add ins(%[[Q]],

// -----

// A pad of a value another region computes (relu, then a padded conv): the
// second region takes the first one's result unpadded. A pad that is also
// returned stays in the caller as well (lowered there on the device).

func.func @relu_pad_conv(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>)
    -> (tensor<1x6x6x4xf32>, tensor<1x8x8x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x6x6x2xf32>
  %r = linalg.map { arith.maximumf } ins(%x, %x : tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>) outs(%e0 : tensor<1x6x6x2xf32>)
  // expected-remark @below {{kept outside any kernel region: an op that is not in a region reads this pad}}
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x2xf32> to tensor<1x8x8x2xf32>
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %c, %p : tensor<1x6x6x4xf32>, tensor<1x8x8x2xf32>
}
// CHECK-LABEL: func.func @relu_pad_conv(
//       CHECK:   %[[R:.+]] = call @relu_pad_conv_region0(%{{.+}}) : (tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
//       CHECK:   %[[P:.+]] = tensor.pad %[[R]]
//       CHECK:   %[[C:.+]] = call @relu_pad_conv_region1(%[[R]], %{{.+}}) : (tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
//       CHECK:   return %[[C]], %[[P]]
// CHECK-LABEL: func.func private @relu_pad_conv_region1(
//       CHECK:   tensor.pad
//       CHECK:   linalg.conv_2d_nhwc_hwcf

// -----

// Pads that a region cannot compute itself stay outside: a pad value that is
// not a constant, and padding by a dynamic amount.

func.func @unfusable_pads(%x: tensor<4x4xf32>, %v: f32, %n: index) -> (tensor<6x6xf32>, tensor<?x4xf32>) {
  // expected-remark @below {{kept outside any kernel region: a tensor.pad by dynamic amounts, of a dynamic shape or with a value that is not a constant}}
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %e = tensor.empty() : tensor<6x6xf32>
  %r = linalg.map { math.exp } ins(%p : tensor<6x6xf32>) outs(%e : tensor<6x6xf32>)
  %zero = arith.constant 0.0 : f32
  // expected-remark @below {{kept outside any kernel region: a tensor.pad by dynamic amounts, of a dynamic shape or with a value that is not a constant}}
  %q = tensor.pad %x low[%n, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<?x4xf32>
  return %r, %q : tensor<6x6xf32>, tensor<?x4xf32>
}
// CHECK-LABEL: func.func @unfusable_pads(
//       CHECK:   %[[P:.+]] = tensor.pad
//       CHECK:   call @unfusable_pads_region0(%[[P]]) : (tensor<6x6xf32>) -> tensor<6x6xf32>
// CHECK-LABEL: func.func private @unfusable_pads_region0(
//   CHECK-NOT:   tensor.pad
//       CHECK:   return
