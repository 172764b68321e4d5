// A sum over dim 0 whose 262144 outputs (2048 blocks of 128) fill the SMs
// without splitting the rows: no split kernel.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @sum_dim0_wide(%a: tensor<32x262144xf32>) -> tensor<262144xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<262144xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<262144xf32>) -> tensor<262144xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<32x262144xf32>) outs(%f : tensor<262144xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<262144xf32>
  return %r : tensor<262144xf32>
}
