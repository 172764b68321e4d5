// Narrow types with rows that are multiples of 8: the builtin agent moves
// eight f16/bf16 elements per 16-byte access (ca_vec<__half, 8>).

// f16 in and out, an f32 bias broadcast along the rows.
func.func @bias_add_f16(%x: tensor<64x1024xf16>, %b: tensor<1024xf32>) -> tensor<64x1024xf16> {
  %e = tensor.empty() : tensor<64x1024xf16>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x1024xf16>, tensor<1024xf32>) outs(%e : tensor<64x1024xf16>) {
  ^bb0(%a: f16, %c: f32, %o: f16):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %c : f32
    %n = arith.truncf %s : f32 to f16
    linalg.yield %n : f16
  } -> tensor<64x1024xf16>
  return %r : tensor<64x1024xf16>
}

// A softmax over f16 rows of 2048.
func.func @softmax_f16(%x: tensor<48x2048xf16>) -> tensor<48x2048xf16> {
  %e = tensor.empty() : tensor<48x2048xf16>
  %r = linalg.softmax dimension(1) ins(%x : tensor<48x2048xf16>) outs(%e : tensor<48x2048xf16>) -> tensor<48x2048xf16>
  return %r : tensor<48x2048xf16>
}

// A transpose of bf16 into f32, scaled.
func.func @transpose_bf16(%x: tensor<96x160xbf16>) -> tensor<160x96xf32> {
  %e = tensor.empty() : tensor<160x96xf32>
  %cst = arith.constant 0.5 : f32
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<96x160xbf16>) outs(%e : tensor<160x96xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    %s = arith.mulf %w, %cst : f32
    linalg.yield %s : f32
  } -> tensor<160x96xf32>
  return %r : tensor<160x96xf32>
}
