// Rows too long for registers: the builtin agent streams them, computing a
// softmax's max and sum in one pass (online softmax) and splitting single
// reductions of few rows over many blocks.

func.func @softmax_vocab(%x: tensor<16x100003xf32>) -> tensor<16x100003xf32> {
  %e = tensor.empty() : tensor<16x100003xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<16x100003xf32>) outs(%e : tensor<16x100003xf32>) -> tensor<16x100003xf32>
  return %r : tensor<16x100003xf32>
}

// Squared L2 norm of 3 rows of 2^20, in f32 from f16.
func.func @sumsq_f16(%x: tensor<3x1048576xf16>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x1048576xf16>) outs(%acc : tensor<3xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    %q = arith.mulf %w, %w : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// RMS norm of 4 rows of 131072 with a weight per column: one reduction and
// whole-row outputs, split with a third (apply) launch.
func.func @rmsnorm_long(%x: tensor<4x131072xf32>, %w: tensor<131072xf32>) -> tensor<4x131072xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 131072.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %ss = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x131072xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.mulf %a, %a : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x131072xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                       affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<4x131072xf32>, tensor<4xf32>, tensor<131072xf32>) outs(%e2 : tensor<4x131072xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %v = arith.addf %m, %eps : f32
    %r = math.rsqrt %v : f32
    %y = arith.mulf %a, %r : f32
    %z = arith.mulf %y, %g : f32
    linalg.yield %z : f32
  } -> tensor<4x131072xf32>
  return %r : tensor<4x131072xf32>
}
