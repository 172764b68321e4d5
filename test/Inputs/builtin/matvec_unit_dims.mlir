// Matrix-vector products written as matmuls with a unit dimension (torch's
// `x @ w` with a Kx1 `w` or a 1xK `x`, a linear layer on one row): the
// outliner rank-reduces them, and their regions are the matvec and vecmat
// the memory-bound kernels take.
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @column(%a: tensor<4096x8192xf32>, %w: tensor<8192x1xf32>) -> tensor<4096x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %r = linalg.matmul ins(%a, %w : tensor<4096x8192xf32>, tensor<8192x1xf32>) outs(%f : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  return %r : tensor<4096x1xf32>
}
func.func @row(%x: tensor<1x4096xf32>, %a: tensor<4096x8192xf32>) -> tensor<1x8192xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8192xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %r = linalg.matmul ins(%x, %a : tensor<1x4096xf32>, tensor<4096x8192xf32>) outs(%f : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  return %r : tensor<1x8192xf32>
}
func.func @linear_row(%x: tensor<1x4096xf32>, %w: tensor<8192x4096xf32>, %b: tensor<8192xf32>) -> tensor<1x8192xf32> {
  %z = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<4096x8192xf32>
  %t = linalg.transpose ins(%w : tensor<8192x4096xf32>) outs(%0 : tensor<4096x8192xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1x8192xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %m = linalg.matmul ins(%x, %t : tensor<1x4096xf32>, tensor<4096x8192xf32>) outs(%f : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<8192xf32>) outs(%e : tensor<1x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8192xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bb : tensor<1x8192xf32>, tensor<1x8192xf32>) outs(%e : tensor<1x8192xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %v = arith.addf %in, %in_0 : f32
    linalg.yield %v : f32
  } -> tensor<1x8192xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<1x8192xf32>) outs(%e : tensor<1x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %z : f32
    %v = arith.select %c, %in, %z : f32
    linalg.yield %v : f32
  } -> tensor<1x8192xf32>
  return %r : tensor<1x8192xf32>
}
