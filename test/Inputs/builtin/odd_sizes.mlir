// Memory-bound regions of odd sizes (no multiple of any tile), ranks 1 to
// 4, tiny and long rows, mixed f16/bf16/f32 with casts: the builtin agent
// must write candidates that compile for each, and on the GPU machine
// (scripts/gpu-check) at least one that verifies.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#last4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>

// Rank 4, a broadcast bias, f16 in, f32 and f16 out.
func.func @bias_gelu_rank4(%x: tensor<3x5x7x9xf16>, %b: tensor<9xf32>) -> (tensor<3x5x7x9xf32>, tensor<3x5x7x9xf16>) {
  %e = tensor.empty() : tensor<3x5x7x9xf32>
  %e16 = tensor.empty() : tensor<3x5x7x9xf16>
  %r:2 = linalg.generic {indexing_maps = [#id4, #last4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<3x5x7x9xf16>, tensor<9xf32>) outs(%e, %e16 : tensor<3x5x7x9xf32>, tensor<3x5x7x9xf16>) {
  ^bb0(%a: f16, %c: f32, %o: f32, %o16: f16):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %c : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.7978845608 : f32
    %t = math.tanh %s : f32
    %u = arith.addf %t, %one : f32
    %g = arith.mulf %u, %half : f32
    %y = arith.mulf %g, %s : f32
    %n = arith.truncf %y : f32 to f16
    linalg.yield %y, %n : f32, f16
  } -> (tensor<3x5x7x9xf32>, tensor<3x5x7x9xf16>)
  return %r#0, %r#1 : tensor<3x5x7x9xf32>, tensor<3x5x7x9xf16>
}

// Softmax over rows of an odd length.
func.func @softmax_odd(%x: tensor<37x1001xf32>) -> tensor<37x1001xf32> {
  %e = tensor.empty() : tensor<37x1001xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<37x1001xf32>) outs(%e : tensor<37x1001xf32>) -> tensor<37x1001xf32>
  return %p : tensor<37x1001xf32>
}

// RMS norm with a residual, bf16 in and out, f32 inside.
func.func @rmsnorm_bf16(%x: tensor<5x513xbf16>, %r: tensor<5x513xbf16>, %g: tensor<513xbf16>) -> tensor<5x513xbf16> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<5xf32>) -> tensor<5xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %r : tensor<5x513xbf16>, tensor<5x513xbf16>) outs(%acc : tensor<5xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %aw = arith.extf %a : bf16 to f32
    %bw = arith.extf %b : bf16 to f32
    %h = arith.addf %aw, %bw : f32
    %h2 = arith.mulf %h, %h : f32
    %s = arith.addf %h2, %o : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  %e = tensor.empty() : tensor<5x513xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r, %ss, %g : tensor<5x513xbf16>, tensor<5x513xbf16>, tensor<5xf32>, tensor<513xbf16>) outs(%e : tensor<5x513xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %q: f32, %gg: bf16, %o: bf16):
    %n = arith.constant 513.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %aw = arith.extf %a : bf16 to f32
    %bw = arith.extf %b : bf16 to f32
    %h = arith.addf %aw, %bw : f32
    %m = arith.divf %q, %n : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    %gw = arith.extf %gg : bf16 to f32
    %t = arith.mulf %h, %rs : f32
    %u = arith.mulf %t, %gw : f32
    %ub = arith.truncf %u : f32 to bf16
    linalg.yield %ub : bf16
  } -> tensor<5x513xbf16>
  return %y : tensor<5x513xbf16>
}

// Few long rows.
func.func @row_sum_long(%x: tensor<2x100003xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x100003xf32>) outs(%acc : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// A reduction over the outer dimension (column maxima).
func.func @col_max(%x: tensor<1000x37xf32>) -> tensor<37xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<37xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<1000x37xf32>) outs(%acc : tensor<37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<37xf32>
  return %m : tensor<37xf32>
}

// A transpose of an odd shape, scaled.
func.func @transpose_scale(%x: tensor<999x1001xf32>) -> tensor<1001x999xf32> {
  %e = tensor.empty() : tensor<1001x999xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<999x1001xf32>) outs(%e : tensor<1001x999xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %a, %two : f32
    linalg.yield %r : f32
  } -> tensor<1001x999xf32>
  return %t : tensor<1001x999xf32>
}

// One element.
func.func @tiny(%x: tensor<1xf32>) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<1xf32>) outs(%e : tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
