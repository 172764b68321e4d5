// Long rows over the blocks of an sm_90 thread-block cluster, and a sum over
// a middle dimension (the sliced serial reduction).

// Layer norm of 4 rows of 65536: two reductions, which the split cannot take.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
func.func @layernorm_long(%x: tensor<4x65536xf32>, %w: tensor<65536xf32>) -> tensor<4x65536xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 6.553600000e+04 : f32
  %eps = arith.constant 1.000000000e-05 : f32
  %er = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %er2 = tensor.empty() : tensor<4xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%er2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x65536xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%er : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %n : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<4x65536xf32>, tensor<4xf32>) outs(%acc2 : tensor<4xf32>) {
  ^bb0(%a: f32, %mu: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x65536xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq, %w : tensor<4x65536xf32>, tensor<4xf32>, tensor<4xf32>, tensor<65536xf32>)
      outs(%e : tensor<4x65536xf32>) {
  ^bb0(%a: f32, %mu: f32, %q: f32, %g: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mu : f32
    %nrm = arith.mulf %d, %rs : f32
    %sc = arith.mulf %nrm, %g : f32
    linalg.yield %sc : f32
  } -> tensor<4x65536xf32>
  return %r : tensor<4x65536xf32>
}

// Softmax of 64 rows of 32768: each row staged in the shared memory of a
// cluster's blocks.
func.func @softmax_staged(%x: tensor<64x32768xf32>) -> tensor<64x32768xf32> {
  %e = tensor.empty() : tensor<64x32768xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<64x32768xf32>) outs(%e : tensor<64x32768xf32>) -> tensor<64x32768xf32>
  return %r : tensor<64x32768xf32>
}

// A sum over the middle dimension of 8x300x257.
func.func @sum_middle(%x: tensor<8x300x257xf32>) -> tensor<8x257xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x257xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x257xf32>) -> tensor<8x257xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<8x300x257xf32>) outs(%acc : tensor<8x257xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x257xf32>
  return %r : tensor<8x257xf32>
}

// Softmax of 4 rows of 393216 (1.5 MB): chunks of 8 blocks take 192 KB of
// shared memory each, one block to an SM; chunks of 16 blocks fit two to an
// SM (clusters beyond the portable 8).
func.func @softmax_long(%x: tensor<4x393216xf32>) -> tensor<4x393216xf32> {
  %e = tensor.empty() : tensor<4x393216xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x393216xf32>) outs(%e : tensor<4x393216xf32>) -> tensor<4x393216xf32>
  return %r : tensor<4x393216xf32>
}

// A sum over the middle dimension of 8x300x16383: 131064 outputs, enough for
// blocks of 32 x 16 of them to fill the SMs (the wide sliced kernels).
func.func @sum_middle_wide(%x: tensor<8x300x16383xf32>) -> tensor<8x16383xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16383xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16383xf32>) -> tensor<8x16383xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<8x300x16383xf32>) outs(%acc : tensor<8x16383xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x16383xf32>
  return %r : tensor<8x16383xf32>
}
