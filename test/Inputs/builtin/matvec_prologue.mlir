// A matrix-vector product whose vector elementwise ops compute (x scaled by
// g, then a relu): one region, whose row kernels compute the vector's value
// where they read it, one value per column. Small enough to compute on the
// CPU (builtin-matvec-prologue-emulated.test).
#id = affine_map<(d0) -> (d0)>
func.func @matvec_prologue(%w: tensor<64x96xf32>, %x: tensor<96xf32>, %g: tensor<96xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %g : tensor<96xf32>, tensor<96xf32>) outs(%e : tensor<96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<96xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<96xf32>) outs(%e : tensor<96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<96xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %y = linalg.matvec ins(%w, %r : tensor<64x96xf32>, tensor<96xf32>) outs(%f : tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}
