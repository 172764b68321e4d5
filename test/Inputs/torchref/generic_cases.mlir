// Regions that exercise the generic path of the PyTorch reference: permuted
// and broadcast operands, reductions over several dims and from a non-zero
// init, a contraction with a transposed operand (einsum), integers,
// comparisons and selects, and one that reads its loop indices (no torch
// reference: linalg.index is not spelt).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#perm3 = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
#mid = affine_map<(d0, d1, d2) -> (d1)>
#out13 = affine_map<(d0, d1, d2) -> (d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// out[j] = 1 + sum_{i,k} exp(x[i,j,k] * y[k,i,j]) * s[j]
func.func @permuted_sum(%x: tensor<3x4x5xf32>, %y: tensor<5x3x4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id3, #perm3, #mid, #out13], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x, %y, %s : tensor<3x4x5xf32>, tensor<5x3x4xf32>, tensor<4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %x1 = math.exp %m : f32
    %x2 = arith.mulf %x1, %c : f32
    %r1 = arith.addf %x2, %o : f32
    linalg.yield %r1 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// C = A * B^T with f16 operands summed in f32.
func.func @matmul_bt(%a: tensor<6x8xf16>, %b: tensor<7x8xf16>) -> tensor<6x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<6x8xf16>, tensor<7x8xf16>) outs(%acc : tensor<6x7xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

// Integers: out[i] = sum_j (x[i,j] > 0 ? x[i,j] : -x[i,j]) , an i32 sum.
func.func @int_abs_sum(%x: tensor<9x10xi32>) -> tensor<9xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<9xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<9xi32>) -> tensor<9xi32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<9x10xi32>) outs(%acc : tensor<9xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c0 = arith.constant 0 : i32
    %pos = arith.cmpi sgt, %a, %c0 : i32
    %n = arith.subi %c0, %a : i32
    %v = arith.select %pos, %a, %n : i32
    %s = arith.addi %v, %o : i32
    linalg.yield %s : i32
  } -> tensor<9xi32>
  return %r : tensor<9xi32>
}

// A transposed clamp with cmpf/select (a broadcast constant on one side).
func.func @transpose_clamp(%x: tensor<11x12xf32>) -> tensor<12x11xf32> {
  %e = tensor.empty() : tensor<12x11xf32>
  %r = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<11x12xf32>) outs(%e : tensor<12x11xf32>) {
  ^bb0(%a: f32, %o: f32):
    %lim = arith.constant 0.25 : f32
    %big = arith.cmpf ogt, %a, %lim : f32
    %v = arith.select %big, %lim, %a : f32
    linalg.yield %v : f32
  } -> tensor<12x11xf32>
  return %r : tensor<12x11xf32>
}

// Reads its loop index: no torch reference, the C loops stand.
func.func @iota(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %v = arith.addf %a, %f : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
