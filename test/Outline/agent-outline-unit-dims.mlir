// torch-mlir keeps reduced dimensions as size-1 dimensions (keepdim): the
// softmax's max is expanded to 16x1 by a tensor.expand_shape and the sum is
// written into a 16x1 tensor read through (d0, d1) -> (d0, 0). The outliner
// drops those dimensions from the generics first, so the reshape folds away
// and the softmax is one row region, which the builtin agent's row strategy
// writes one-pass kernels for. Named ops keep their unit dimensions (but for
// contractions with a unit batch, row or column: agent-outline-rank-reduce.mlir).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>&1 | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline -o %t.mlir
// RUN: cuda-agent-opt %t.mlir --split-input-file --agent-test-builtin-variants="strategy=rows" -o /dev/null | FileCheck %s --check-prefix=ROWS

// CHECK-NOT: remark: kept outside
// CHECK-LABEL: func.func @softmax_keepdim(
// CHECK-NEXT: call @softmax_keepdim_region0(%arg0)
// CHECK-NEXT: return
// CHECK-NOT: expand_shape
// CHECK: func.func private @softmax_keepdim_region0(%arg0: tensor<16x100xf32>) -> tensor<16x100xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs({{.*}} : tensor<16xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs({{.*}} : tensor<16xf32>)
// CHECK: arith.divf
// ROWS: ===== rows variants of @softmax_keepdim_region0 =====
// ROWS: ----- variant rows-
// ROWS: extern "C" __global__
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @softmax_keepdim(%arg0: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<16xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16xf32>) -> tensor<16xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<16x100xf32>) outs(%3 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<16xf32>
  %expanded = tensor.expand_shape %4 [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %5 = tensor.empty() : tensor<16x100xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<16x100xf32>, tensor<16x1xf32>) outs(%5 : tensor<16x100xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.subf %in, %in_1 : f32
    %13 = math.exp %12 : f32
    linalg.yield %13 : f32
  } -> tensor<16x100xf32>
  %8 = tensor.empty() : tensor<16x1xf32>
  %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<16x1xf32>) -> tensor<16x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<16x100xf32>) outs(%9 : tensor<16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %in, %out : f32
    linalg.yield %12 : f32
  } -> tensor<16x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %10 : tensor<16x100xf32>, tensor<16x1xf32>) outs(%5 : tensor<16x100xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.divf %in, %in_1 : f32
    linalg.yield %12 : f32
  } -> tensor<16x100xf32>
  return %11 : tensor<16x100xf32>
}

// -----

// A batch-1 convolution keeps its named form and its unit dimension (a
// contraction with a unit batch is rank-reduced instead:
// agent-outline-rank-reduce.mlir).
// CHECK-LABEL: func.func private @conv_batch_one_region0(
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} tensor<1x6x6x8xf32>
func.func @conv_batch_one(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}
