// Contractions with at least as many 128 x 128 tiles as an H200 has SMs
// (132 here: 2 x 3 tiles in each of 22 batches), so that the matmul
// strategy writes its pipelined SIMT kernels for them; rows, columns and
// the reduction are not tile multiples. Read by builtin-matmul-pipelined
// tests and emulate/emulate_matmul.py.

// A computed by a producer, x * 0.5 + 0.5 (read element by element; a plain
// scale would move to the result, ScaledOperands.h), B read as float4 along
// its rows.
func.func @many_tiles_scaled_a(%a: tensor<22x130x20xf32>, %b: tensor<22x20x260xf32>) -> tensor<22x130x260xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %ea = tensor.empty() : tensor<22x130x20xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<22x130x20xf32>) outs(%ea : tensor<22x130x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %half : f32
    %z = arith.addf %y, %half : f32
    linalg.yield %z : f32
  } -> tensor<22x130x20xf32>
  %e = tensor.empty() : tensor<22x130x260xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<22x130x260xf32>) -> tensor<22x130x260xf32>
  %r = linalg.batch_matmul ins(%as, %b : tensor<22x130x20xf32>, tensor<22x20x260xf32>) outs(%acc : tensor<22x130x260xf32>) -> tensor<22x130x260xf32>
  return %r : tensor<22x130x260xf32>
}

// Both operands transposed by their maps (A[b][k][m], B[b][n][k]): float4
// along m for A, along k for B.
func.func @many_tiles_transposed(%a: tensor<22x20x132xf32>, %b: tensor<22x260x20xf32>) -> tensor<22x132x260xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<22x132x260xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<22x132x260xf32>) -> tensor<22x132x260xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<22x20x132xf32>, tensor<22x260x20xf32>) outs(%acc : tensor<22x132x260xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<22x132x260xf32>
  return %r : tensor<22x132x260xf32>
}
