// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="fusion=elementwise" | FileCheck %s --check-prefix=ELEM

// A reduction over a convolution's output channels joins the convolution's
// region (fusion=rows, the default) when nothing else reads the
// convolution and the channels fit one tile of the conv kernels (128):
// the kernel reduces the product where it computes it and never stores it.

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#minc = affine_map<(n, f, h, w) -> (n, h, w)>

func.func @conv_min(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x6x6xf32>) outs(%e : tensor<2x8x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6x6xf32>
  %re = tensor.empty() : tensor<2x6x6xf32>
  %init = linalg.fill ins(%inf : f32) outs(%re : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #minc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%s : tensor<2x8x6x6xf32>) outs(%init : tensor<2x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x6x6xf32>
  return %r : tensor<2x6x6xf32>
}
// CHECK-LABEL: func.func @conv_min(
//  CHECK-NEXT:   %[[R:.+]] = call @conv_min_region0(%{{.+}}, %{{.+}}) : (tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<2x6x6xf32>
//  CHECK-NEXT:   return %[[R]]
//       CHECK: func.func private @conv_min_region0({{.*}}kind = "convolution"
//       CHECK:   linalg.conv_2d_nchw_fchw
//       CHECK:   arith.mulf
//       CHECK:   arith.minimumf
// Without row fusion the convolution's output crosses to the reduction.
// ELEM-LABEL: func.func @conv_min(
//  ELEM-NEXT:   %[[C:.+]] = call @conv_min_region0({{.*}}) -> tensor<2x8x6x6xf32>
//  ELEM-NEXT:   %[[R:.+]] = call @conv_min_region1(%[[C]])
//  ELEM-NEXT:   return %[[R]]

// -----

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#minh = affine_map<(n, f, h, w) -> (n, f, w)>

// A reduction over another dimension (the output's rows) is not a
// reduction over the product's columns: two regions.
func.func @conv_min_over_h(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x6xf32> {
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %re = tensor.empty() : tensor<2x8x6xf32>
  %init = linalg.fill ins(%inf : f32) outs(%re : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #minh], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%c : tensor<2x8x6x6xf32>) outs(%init : tensor<2x8x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6xf32>
  return %r : tensor<2x8x6xf32>
}
// CHECK-LABEL: func.func @conv_min_over_h(
//  CHECK-NEXT:   %[[C:.+]] = call @conv_min_over_h_region0({{.*}}) -> tensor<2x8x6x6xf32>
//  CHECK-NEXT:   %[[R:.+]] = call @conv_min_over_h_region1(%[[C]])
//  CHECK-NEXT:   return %[[R]]

// -----

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#minc = affine_map<(n, f, h, w) -> (n, h, w)>

// The scaled convolution is returned too: it must be stored, so the
// reduction reads it from its own region.
func.func @conv_min_and_scaled(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> (tensor<2x6x6xf32>, tensor<2x8x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x6x6xf32>) outs(%e : tensor<2x8x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6x6xf32>
  %re = tensor.empty() : tensor<2x6x6xf32>
  %init = linalg.fill ins(%inf : f32) outs(%re : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #minc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%s : tensor<2x8x6x6xf32>) outs(%init : tensor<2x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x6x6xf32>
  return %r, %s : tensor<2x6x6xf32>, tensor<2x8x6x6xf32>
}
// CHECK-LABEL: func.func @conv_min_and_scaled(
//  CHECK-NEXT:   %[[S:.+]] = call @conv_min_and_scaled_region0({{.*}}) -> tensor<2x8x6x6xf32>
//  CHECK-NEXT:   %[[R:.+]] = call @conv_min_and_scaled_region1(%[[S]])
//  CHECK-NEXT:   return %[[R]], %[[S]]

// -----

#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
#sumc = affine_map<(n, h, w, f) -> (n, h, w)>

// 192 output channels do not fit one tile of 128 columns: two regions.
func.func @conv_sum_wide(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x192xf32>) -> tensor<1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x192xf32>) -> tensor<1x4x4x192xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x8xf32>, tensor<3x3x8x192xf32>) outs(%f : tensor<1x4x4x192xf32>) -> tensor<1x4x4x192xf32>
  %re = tensor.empty() : tensor<1x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%re : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #sumc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c : tensor<1x4x4x192xf32>) outs(%init : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4xf32>
  return %r : tensor<1x4x4xf32>
}
// CHECK-LABEL: func.func @conv_sum_wide(
//  CHECK-NEXT:   %[[C:.+]] = call @conv_sum_wide_region0({{.*}}) -> tensor<1x4x4x192xf32>
//  CHECK-NEXT:   %[[R:.+]] = call @conv_sum_wide_region1(%[[C]])
//  CHECK-NEXT:   return %[[R]]
