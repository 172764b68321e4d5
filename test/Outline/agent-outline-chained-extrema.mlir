// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s

// torch's logsumexp over (2, 3) takes the max over the two dimensions as two
// chained max reductions, a unit dimension kept between them. The outliner
// merges them into one max over both (lib/Outline/ChainedExtrema.cpp), so
// the max, the exponentials' sum and the log are one row region over rows
// (n, c) of h x w.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#keep3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @logsumexp_spatial(%x: tensor<2x6x5x7xf32>) -> tensor<2x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x6x5xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  %m3 = linalg.generic {indexing_maps = [#id4, #keep3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x6x5x7xf32>) outs(%f3 : tensor<2x6x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<2x6x5xf32>
  %e2 = tensor.empty() : tensor<2x6xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %m2 = linalg.generic {indexing_maps = [#id3, #keep2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%m3 : tensor<2x6x5xf32>) outs(%f2 : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %o, %a : f32
    linalg.yield %v : f32
  } -> tensor<2x6xf32>
  %e4 = tensor.empty() : tensor<2x6x5x7xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m2 : tensor<2x6x5x7xf32>, tensor<2x6xf32>) outs(%e4 : tensor<2x6x5x7xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<2x6x5x7xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x6xf32>) -> tensor<2x6xf32>
  %s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ex : tensor<2x6x5x7xf32>) outs(%s0 : tensor<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m2 : tensor<2x6xf32>, tensor<2x6xf32>) outs(%e2 : tensor<2x6xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %l = math.log %a : f32
    %v = arith.addf %l, %m : f32
    linalg.yield %v : f32
  } -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @logsumexp_spatial(
// CHECK: call @logsumexp_spatial_region0(
// CHECK-NOT: call @
// CHECK: return
// CHECK-LABEL: func.func private @logsumexp_spatial_region0(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%arg0 : tensor<2x6x5x7xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: tensor<2x6x5xf32>
// CHECK: math.exp
// CHECK: math.log

// -----

// A max of minima is not one reduction, nor is a max whose inner reduction
// starts from another value than the outer one: both stay two reductions.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keep1 = affine_map<(d0, d1) -> (d0)>

func.func @max_of_minima(%x: tensor<4x5x6xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e2 = tensor.empty() : tensor<4x5xf32>
  %f2 = linalg.fill ins(%inf : f32) outs(%e2 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m2 = linalg.generic {indexing_maps = [#id3, #keep2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x5x6xf32>) outs(%f2 : tensor<4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.minimumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m1 = linalg.generic {indexing_maps = [#id2, #keep1], iterator_types = ["parallel", "reduction"]}
      ins(%m2 : tensor<4x5xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %m1 : tensor<4xf32>
}

// CHECK-LABEL: func.func private @max_of_minima_region
// CHECK: arith.minimumf
// CHECK: -> tensor<4x5xf32>
// CHECK: arith.maximumf
