// agent-parallel-loops-outward: parallel loops first, so that each op lowers
// to one GPU loop nest with its reductions inside; an op with no parallel
// loop at all gets one of a single iteration, its rank-0 outputs viewed as
// 1-element tensors, so that it runs as a kernel instead of on the host.
// RUN: cuda-agent-opt %s --split-input-file --agent-parallel-loops-outward --mlir-print-local-scope | FileCheck %s
// The programs lower fully (nothing left on the host):
// RUN: cuda-agent-opt %s --split-input-file --agent-default-lowering | FileCheck %s --check-prefix=LLVM

// A column sum: the reduction loop moves inside the parallel one.
// CHECK-LABEL: func.func @column_sum(
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// LLVM-LABEL: llvm.func @column_sum(
// LLVM: gpu.launch_func
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// A loss (torch's mse_loss): the sum of every element into a scalar and its
// division, each with no parallel loop; the rank-0 fill too.
// CHECK-LABEL: func.func @mean_of_squares(
// CHECK: %[[E:.+]] = tensor.empty() : tensor<f32>
// CHECK: %[[E1:.+]] = tensor.expand_shape %[[E]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[F1:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.+}} : f32) outs(%[[E1]] : tensor<1xf32>)
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[F1]] [] : tensor<1xf32> into tensor<f32>
// CHECK: %[[S1:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: %[[S:.+]] = tensor.collapse_shape %[[S1]] [] : tensor<1xf32> into tensor<f32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[S]] : tensor<f32>)
// CHECK: arith.divf
// LLVM-LABEL: llvm.func @mean_of_squares(
// LLVM-COUNT-3: gpu.launch_func
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
#scalar = affine_map<() -> ()>
func.func @mean_of_squares(%x: tensor<8x16xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 128.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %v = arith.addf %sq, %acc : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %m = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%s : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.divf %a, %n : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A dot product (a named op with no parallel loop) is generalized first;
// linalg.index in a body counts the new loop.
// CHECK-LABEL: func.func @dot_plus_index(
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.index 1 : index
// LLVM-LABEL: llvm.func @dot_plus_index(
// LLVM: gpu.launch_func
#v = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
func.func @dot_plus_index(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%a, %b : tensor<64xf32>, tensor<64xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  %i = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%a : tensor<64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %k = linalg.index 0 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %w = arith.mulf %x, %kf : f32
    %v = arith.addf %w, %acc : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %d, %i : tensor<f32>, tensor<f32>
}
