// Row programs whose epilogue reads or writes other than the rows, for
// builtin-rows-epilogue-layouts-emulated.test: a logsumexp over (h, w)
// plus a bias per channel (`logsumexp(x, (2, 3), keepdim=True) + b` with
// b of shape (C, 1, 1): the bias is read by a projection of the row's
// indices), and a layer norm whose output is moved channels last for a
// 3-D pooling (torch-mlir's avg_pool3d: the transpose is the region's
// last op, the rows are written through the permutation).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nc4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#c2 = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

func.func @logsumexp_spatial_bias(%x: tensor<2x6x5x7xf32>, %b: tensor<6xf32>) -> tensor<2x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<2x6xf32>
  %e = tensor.empty() : tensor<2x6x5x7xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x6xf32>) -> tensor<2x6xf32>
  %m = linalg.generic {indexing_maps = [#id4, #nc4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<2x6x5x7xf32>) outs(%m0 : tensor<2x6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x6xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #nc4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<2x6x5x7xf32>, tensor<2x6xf32>) outs(%e : tensor<2x6x5x7xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<2x6x5x7xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<2x6xf32>) -> tensor<2x6xf32>
  %s = linalg.generic {indexing_maps = [#id4, #nc4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ex : tensor<2x6x5x7xf32>) outs(%s0 : tensor<2x6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x6xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #c2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s, %m, %b : tensor<2x6xf32>, tensor<2x6xf32>, tensor<6xf32>) outs(%er : tensor<2x6xf32>) {
  ^bb0(%sum: f32, %mx: f32, %bias: f32, %o: f32):
    %l = math.log %sum : f32
    %a = arith.addf %l, %mx : f32
    %r = arith.addf %a, %bias : f32
    linalg.yield %r : f32
  } -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

func.func @layer_norm_channels_last(%x: tensor<3x5x8xf32>, %g: tensor<8xf32>) -> tensor<3x8x5xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<3x5xf32>
  %e = tensor.empty() : tensor<3x5x8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<3x5x8xf32>) outs(%s0 : tensor<3x5xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  %c = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<3x5x8xf32>, tensor<3x5xf32>) outs(%e : tensor<3x5x8xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %mean = arith.divf %sum, %n : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<3x5x8xf32>
  %q0 = linalg.fill ins(%zero : f32) outs(%er : tensor<3x5xf32>) -> tensor<3x5xf32>
  %q = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c : tensor<3x5x8xf32>) outs(%q0 : tensor<3x5xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %q, %g : tensor<3x5x8xf32>, tensor<3x5xf32>, tensor<8xf32>) outs(%e : tensor<3x5x8xf32>) {
  ^bb0(%v: f32, %sq: f32, %gamma: f32, %o: f32):
    %var = arith.divf %sq, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %nv = arith.mulf %v, %rs : f32
    %r = arith.mulf %nv, %gamma : f32
    linalg.yield %r : f32
  } -> tensor<3x5x8xf32>
  %et = tensor.empty() : tensor<3x8x5xf32>
  %t = linalg.transpose ins(%y : tensor<3x5x8xf32>) outs(%et : tensor<3x8x5xf32>) permutation = [0, 2, 1]
  return %t : tensor<3x8x5xf32>
}
