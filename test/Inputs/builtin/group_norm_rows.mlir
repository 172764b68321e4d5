// A group norm as cuda_agent's export writes it (python/cuda_agent/_norms.py):
// x of N x C x H x W viewed as (N, G, C/G, H*W), each group (the last two
// loops) normalized by its mean and biased variance, then scaled and shifted
// per channel: the weight and bias of C viewed as (G, C/G) and read through
// (n, g, c, hw) -> (g, c), a projection of the loops that is neither the
// rows, a value per row nor a value per column.
#x = affine_map<(n, g, c, hw) -> (n, g, c, hw)>
#row = affine_map<(n, g, c, hw) -> (n, g)>
#gc = affine_map<(n, g, c, hw) -> (g, c)>
#r2 = affine_map<(n, g) -> (n, g)>

// 2 x 4 groups of 4 channels x 256 positions: rows of 1024.
func.func @group_norm(%x: tensor<2x4x4x256xf32>, %w: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<2x4x4x256xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %es = tensor.empty() : tensor<2x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<2x4x4x256xf32>) outs(%fs : tensor<2x4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %mean = linalg.generic {indexing_maps = [#r2, #r2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<2x4xf32>) outs(%es : tensor<2x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.divf %v, %count : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %ex = tensor.empty() : tensor<2x4x4x256xf32>
  %centered = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean : tensor<2x4x4x256xf32>, tensor<2x4xf32>) outs(%ex : tensor<2x4x4x256xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x4x4x256xf32>
  %sq = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%centered : tensor<2x4x4x256xf32>) outs(%fs : tensor<2x4xf32>) {
  ^bb0(%d: f32, %acc: f32):
    %p = arith.mulf %d, %d : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %rstd = linalg.generic {indexing_maps = [#r2, #r2], iterator_types = ["parallel", "parallel"]}
      ins(%sq : tensor<2x4xf32>) outs(%es : tensor<2x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %var = arith.divf %v, %count : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #gc, #gc, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%centered, %rstd, %w, %b : tensor<2x4x4x256xf32>, tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) outs(%ex : tensor<2x4x4x256xf32>) {
  ^bb0(%d: f32, %r: f32, %wv: f32, %bv: f32, %o: f32):
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %wv : f32
    %t = arith.addf %s, %bv : f32
    linalg.yield %t : f32
  } -> tensor<2x4x4x256xf32>
  return %y : tensor<2x4x4x256xf32>
}
