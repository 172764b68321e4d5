// Elementwise regions whose reads are not one load per operand: a pad of an
// input read with bounds (the elementwise strategy reads pads), and one
// input read at two places of each output element, whose vector loads must
// stay apart.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#ik = affine_map<(d0, d1, d2) -> (d0, d2)>
#jk = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// out[i, j] = (i > 0 ? x[i - 1, j] : 0) + y[i, j] (a pad in the outer dimension).
func.func @shifted_rows(%x: tensor<5x32xf32>, %y: tensor<6x32xf32>) -> tensor<6x32xf32> {
  %zero = arith.constant 0.0 : f32
  %shifted = tensor.pad %x low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<5x32xf32> to tensor<6x32xf32>
  %e = tensor.empty() : tensor<6x32xf32>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%shifted, %y : tensor<6x32xf32>, tensor<6x32xf32>) outs(%e : tensor<6x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x32xf32>
  return %out : tensor<6x32xf32>
}

// out[i, j] = (j >= 2 ? x[i, j - 2] : 1) * y[i, j] (a pad in the innermost dimension).
func.func @shifted_columns(%x: tensor<6x30xf32>, %y: tensor<6x32xf32>) -> tensor<6x32xf32> {
  %one = arith.constant 1.0 : f32
  %shifted = tensor.pad %x low[0, 2] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %one : f32
  } : tensor<6x30xf32> to tensor<6x32xf32>
  %e = tensor.empty() : tensor<6x32xf32>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%shifted, %y : tensor<6x32xf32>, tensor<6x32xf32>) outs(%e : tensor<6x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x32xf32>
  return %out : tensor<6x32xf32>
}

// out[i, j, k] = x[i, k] - x[j, k].
func.func @pairwise_difference(%x: tensor<8x32xf32>) -> tensor<8x8x32xf32> {
  %e = tensor.empty() : tensor<8x8x32xf32>
  %out = linalg.generic {indexing_maps = [#ik, #jk, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %x : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x8x32xf32>
  return %out : tensor<8x8x32xf32>
}
