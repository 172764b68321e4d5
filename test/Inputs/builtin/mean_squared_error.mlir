// torch's mse_loss(a, b): the mean of (a - b)^2 over every element, a rank-0
// result (a sum into a scalar, then a division on rank-0 tensors). One
// region, whose row kernels reduce the whole tensor as one row. Small enough
// to compute on the CPU (builtin-scalar-reduction-emulated.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
#scalar = affine_map<() -> ()>
func.func @mean_squared_error(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %e2 = tensor.empty() : tensor<16x64xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %v = arith.subf %x, %y : f32
    %sq = arith.mulf %v, %v : f32
    linalg.yield %sq : f32
  } -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%d : tensor<16x64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %v = arith.addf %x, %acc : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  %m = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%s : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %v = arith.divf %x, %n : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %m : tensor<f32>
}
