// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s

// torch's scaled_dot_product_attention before its softmax, as torch-mlir
// writes it: q and k^T each scaled by sqrt(scale) (an f64 constant
// truncated in the body), k^T a transpose, both collapsed to 3-D for a
// batch_matmul from a zero fill. The scales move to the product's result
// (lib/Outline/ScaledOperands.cpp) and the collapse goes before the
// transpose (collapseBeforeTransposes, lib/Outline/TransposedProducts.cpp),
// so one contraction region reads q and k as they lie: the transpose, the
// product and the two scales, where there were three regions.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @scores(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>) -> tensor<8x16x16xf32> {
  %c = arith.constant 0.59460355750136051 : f64
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16x8xf32>
  %qs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q : tensor<2x4x16x8xf32>) outs(%e : tensor<2x4x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %c : f64 to f32
    %v = arith.mulf %in, %t : f32
    linalg.yield %v : f32
  } -> tensor<2x4x16x8xf32>
  %et = tensor.empty() : tensor<2x4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x8xf32>) outs(%et : tensor<2x4x8x16xf32>) permutation = [0, 1, 3, 2]
  %ks = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%kt : tensor<2x4x8x16xf32>) outs(%et : tensor<2x4x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %c : f64 to f32
    %v = arith.mulf %t, %in : f32
    linalg.yield %v : f32
  } -> tensor<2x4x8x16xf32>
  %qc = tensor.collapse_shape %qs [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %kc = tensor.collapse_shape %ks [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %es = tensor.empty() : tensor<8x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%es : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x16x8xf32>, tensor<8x8x16xf32>) outs(%f : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  return %s : tensor<8x16x16xf32>
}
// CHECK-LABEL: func.func @scores(
//  CHECK-NEXT:   %[[Q:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2], [3]]
//  CHECK-NEXT:   %[[K:.+]] = tensor.collapse_shape %arg1 {{\[}}[0, 1], [2], [3]]
//  CHECK-NEXT:   %[[S:.+]] = call @scores_region0(%[[Q]], %[[K]]) : (tensor<8x16x8xf32>, tensor<8x16x8xf32>) -> tensor<8x16x16xf32>
//  CHECK-NEXT:   return %[[S]]
//       CHECK: func.func private @scores_region0(%[[RQ:.+]]: tensor<8x16x8xf32>, %[[RK:.+]]: tensor<8x16x8xf32>)
//  CHECK-SAME:   kind = "contraction"
//       CHECK:   %[[KT:.+]] = linalg.transpose ins(%[[RK]] : tensor<8x16x8xf32>) outs(%{{.+}} : tensor<8x8x16xf32>) permutation = [0, 2, 1]
//       CHECK:   %[[P:.+]] = linalg.batch_matmul ins(%[[RQ]], %[[KT]] :
//       CHECK:   %[[P1:.+]] = linalg.generic {{.+}} ins(%[[P]] : tensor<8x16x16xf32>)
//       CHECK:     arith.mulf %{{.+}}, %{{.+}} : f32
//       CHECK:   %[[P2:.+]] = linalg.generic {{.+}} ins(%[[P1]] : tensor<8x16x16xf32>)
//       CHECK:     arith.mulf %{{.+}}, %{{.+}} : f32
//       CHECK:   return %[[P2]]

// -----

// A product onto a bias (not a zero fill): c (b + x w) is not b + (c x) w,
// so the scale stays on the operand (in the product's region, read first).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @onto_bias(%x: tensor<16x8xf32>, %w: tensor<8x4xf32>, %b: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %xs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %c : f32
    linalg.yield %v : f32
  } -> tensor<16x8xf32>
  %m = linalg.matmul ins(%xs, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%b : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %m : tensor<16x4xf32>
}
// CHECK-LABEL: func.func private @onto_bias_region0(
//       CHECK:   %[[XS:.+]] = linalg.generic
//       CHECK:     arith.mulf
//       CHECK:   %[[M:.+]] = linalg.matmul ins(%[[XS]], %arg1 : {{.+}}) outs(%arg2 : tensor<16x4xf32>)
//  CHECK-NEXT:   return %[[M]]

// -----

// A scale that something else reads too (returned) stays on the operand,
// and so does a multiply by a value that varies along the loops (another
// input's element).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale_kept(%x: tensor<16x8xf32>, %y: tensor<16x8xf32>, %w: tensor<8x4xf32>) -> (tensor<16x4xf32>, tensor<16x8xf32>, tensor<16x4xf32>) {
  %c = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %xs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %c : f32
    linalg.yield %v : f32
  } -> tensor<16x8xf32>
  %xy = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.mulf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<16x8xf32>
  %eo = tensor.empty() : tensor<16x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x4xf32>) -> tensor<16x4xf32>
  %m = linalg.matmul ins(%xs, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%f : tensor<16x4xf32>) -> tensor<16x4xf32>
  %n = linalg.matmul ins(%xy, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%f : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %m, %xs, %n : tensor<16x4xf32>, tensor<16x8xf32>, tensor<16x4xf32>
}
// The returned scale is a region of its own (in the product's region it
// would be an output of another shape than the product), which the product
// reads.
// CHECK-LABEL: func.func @scale_kept(
//       CHECK:   %[[XS:.+]] = call @scale_kept_region0(%arg0)
//       CHECK:   call @scale_kept_region2(%[[XS]], %arg2)
// CHECK-LABEL: func.func private @scale_kept_region0(
//       CHECK:   %[[XS:.+]] = linalg.generic
//       CHECK:     arith.mulf %in, %cst
//  CHECK-NEXT:     linalg.yield
//       CHECK:   return %[[XS]]
// CHECK-LABEL: func.func private @scale_kept_region1(
//       CHECK:   %[[XY:.+]] = linalg.generic
//       CHECK:     arith.mulf %in, %in_0
//       CHECK:   %[[N:.+]] = linalg.matmul ins(%[[XY]], %arg2 :
//  CHECK-NEXT:   return %[[N]]
// CHECK-LABEL: func.func private @scale_kept_region2(
//       CHECK:   %[[M:.+]] = linalg.matmul ins(%arg0, %arg1 :
//  CHECK-NEXT:   return %[[M]]
