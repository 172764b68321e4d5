// Row programs over a permuted input, for
// builtin-rows-permuted-emulated.test: a softmax over the channels of an
// NCHW tensor moved to channels last (`softmax(x.permute(0, 2, 3, 1), -1)`)
// and an RMS norm over `x.transpose(1, 2)`. Each function is one region:
// the transpose joins the row program.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @softmax_channels_last(%x: tensor<2x24x6x5xf32>) -> tensor<2x6x5x24xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x5x24xf32>
  %t = linalg.transpose ins(%x : tensor<2x24x6x5xf32>) outs(%e : tensor<2x6x5x24xf32>) permutation = [0, 2, 3, 1]
  %er = tensor.empty() : tensor<2x6x5xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  %m = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%t : tensor<2x6x5x24xf32>) outs(%m0 : tensor<2x6x5xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x6x5xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %m : tensor<2x6x5x24xf32>, tensor<2x6x5xf32>) outs(%e : tensor<2x6x5x24xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<2x6x5x24xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  %s = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x6x5x24xf32>) outs(%s0 : tensor<2x6x5xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x6x5xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %s : tensor<2x6x5x24xf32>, tensor<2x6x5xf32>) outs(%e : tensor<2x6x5x24xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<2x6x5x24xf32>
  return %p : tensor<2x6x5x24xf32>
}

func.func @rms_norm_transposed(%x: tensor<3x40x12xf32>) -> tensor<3x12x40xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 40.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<3x12x40xf32>
  %t = linalg.transpose ins(%x : tensor<3x40x12xf32>) outs(%e : tensor<3x12x40xf32>) permutation = [0, 2, 1]
  %er = tensor.empty() : tensor<3x12xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<3x12xf32>) -> tensor<3x12xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t : tensor<3x12x40xf32>) outs(%s0 : tensor<3x12xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3x12xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %s : tensor<3x12x40xf32>, tensor<3x12xf32>) outs(%e : tensor<3x12x40xf32>) {
  ^bb0(%v: f32, %ss: f32, %o: f32):
    %mean = arith.divf %ss, %n : f32
    %a = arith.addf %mean, %eps : f32
    %r = math.rsqrt %a : f32
    %q = arith.mulf %v, %r : f32
    linalg.yield %q : f32
  } -> tensor<3x12x40xf32>
  return %y : tensor<3x12x40xf32>
}
