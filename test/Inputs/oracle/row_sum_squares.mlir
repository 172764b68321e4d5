// Sums of squares plus an f16 offset over rows of 1000 f32: a reduction whose
// default lowering sums sequentially in f32 (agent-lower-oracle.test).
func.func @rowsq(%x: tensor<4x1000xf32>, %h: tensor<4xf16>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %h : tensor<4x1000xf32>, tensor<4xf16>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f16, %acc: f32):
    %bf = arith.extf %b : f16 to f32
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %bf : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
