// RUN: cuda-agent-opt %s --agent-outline --split-input-file --verify-diagnostics | FileCheck %s

// What torch-mlir emits for `torch.max(x, dim=1).values`: a max reduction
// that also computes the argmax as an i64 result nobody reads. The unused
// result, its accumulator (an i64 fill) and the index arithmetic only it
// needs are erased before outlining, so the max is an ordinary f32
// reduction region and nothing is left outside.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @max_values(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %c0_i64 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<4xi64>
  %zi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %ef = tensor.empty() : tensor<4xf32>
  %zf = linalg.fill ins(%ninf : f32) outs(%ef : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%zf, %zi : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @max_values(
//  CHECK-NEXT:   %[[R:.*]] = call @max_values_region0(%{{.*}}) : (tensor<4x16xf32>) -> tensor<4xf32>
//  CHECK-NEXT:   return %[[R]]
// CHECK-LABEL: func.func private @max_values_region0(
//  CHECK-SAME:     kind = "reduction"
//   CHECK-NOT:   i64
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.*}} : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%{{.*}}: f32, %{{.*}}: f32):
//  CHECK-NEXT:     arith.maximumf
//  CHECK-NEXT:     linalg.yield
//   CHECK-NOT:   i64
//       CHECK:   return

// -----

// Both results used: nothing is erased, and the reduction with its i64 index
// is one region returning both (i64 is a region element type).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @max_with_index(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %c0_i64 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<4xi64>
  %zi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %ef = tensor.empty() : tensor<4xf32>
  %zf = linalg.fill ins(%ninf : f32) outs(%ef : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%zf, %zi : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %s = arith.select %gt, %ii, %idx : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}
// CHECK-LABEL: func.func @max_with_index(
//  CHECK-NEXT:   %[[R:.*]]:2 = call @max_with_index_region0(%{{.*}}) : (tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xi64>)
//  CHECK-NEXT:   return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func private @max_with_index_region0(
//       CHECK:   linalg.fill ins(%{{.*}} : i64)
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)

// -----

// A dead result whose accumulator another result reads stays: the running
// sum feeds the mean, so dropping it would change the kept result.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @shared_accumulator(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z, %z : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32, %sum: f32):
    %t = arith.addf %in, %sum : f32
    %m = arith.maximumf %t, %out : f32
    linalg.yield %m, %t : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0 : tensor<4xf32>
}
// CHECK-LABEL: func.func private @shared_accumulator_region0(
//       CHECK:   %{{.*}}:2 = linalg.generic

// -----

// f64 (torch-mlir's layer norm computes its variance in f64) is a region
// element type like any other: the widening, the f64 reduction and the
// narrowing are one region.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @f64_variance(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f64
  %e64 = tensor.empty() : tensor<4x16xf64>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e64 : tensor<4x16xf64>) {
  ^bb0(%in: f32, %out: f64):
    %d = arith.extf %in : f32 to f64
    linalg.yield %d : f64
  } -> tensor<4x16xf64>
  %er = tensor.empty() : tensor<4xf64>
  %z = linalg.fill ins(%zero : f64) outs(%er : tensor<4xf64>) -> tensor<4xf64>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<4x16xf64>) outs(%z : tensor<4xf64>) {
  ^bb0(%in: f64, %out: f64):
    %sq = arith.mulf %in, %in : f64
    %t = arith.addf %sq, %out : f64
    linalg.yield %t : f64
  } -> tensor<4xf64>
  %e32 = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf64>) outs(%e32 : tensor<4xf32>) {
  ^bb0(%in: f64, %out: f32):
    %t = arith.truncf %in : f64 to f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %n : tensor<4xf32>
}
// CHECK-LABEL: func.func @f64_variance(
//  CHECK-NEXT:   call @f64_variance_region0
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @f64_variance_region0(%{{.*}}: tensor<4x16xf32>) -> tensor<4xf32>
//  CHECK-SAME:     kind = "reduction"
//       CHECK:   arith.extf
//       CHECK:   linalg.fill ins(%{{.*}} : f64)
//       CHECK:   arith.truncf
