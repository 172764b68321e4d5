// KernelBench level 1, 40_LayerNorm: layer norm over the last three dims of 16x64x256x256
// f32 (16 rows of 4194304), weight and bias over those dims, eps 1e-5.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0)>
#col = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#v = affine_map<(d0) -> (d0)>

func.func @layernorm(%in0: tensor<16x64x256x256xf32>, %in1: tensor<64x256x256xf32>, %in2: tensor<64x256x256xf32>) -> tensor<16x64x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 4.194304000e+06 : f32
  %eps = arith.constant 1.000000000e-05 : f32
  %er = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %er2 = tensor.empty() : tensor<16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%er2 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%in0 : tensor<16x64x256x256xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sum : tensor<16xf32>) outs(%er : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %n : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%in0, %mean : tensor<16x64x256x256xf32>, tensor<16xf32>) outs(%acc2 : tensor<16xf32>) {
  ^bb0(%a: f32, %mu: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<16x64x256x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%in0, %mean, %sq, %in1, %in2 : tensor<16x64x256x256xf32>, tensor<16xf32>, tensor<16xf32>, tensor<64x256x256xf32>, tensor<64x256x256xf32>)
      outs(%e : tensor<16x64x256x256xf32>) {
  ^bb0(%a: f32, %mu: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mu : f32
    %nrm = arith.mulf %d, %rs : f32
    %sc = arith.mulf %nrm, %g : f32
    %sh = arith.addf %sc, %b : f32
    linalg.yield %sh : f32
  } -> tensor<16x64x256x256xf32>
  return %r : tensor<16x64x256x256xf32>
}
