// Slices read by elementwise ops are folded into the readers' maps before
// grouping (lib/Outline/SliceReads.cpp); those a reduction reads, those
// linalg could not take as a map stay slices (copied or viewed in the
// caller). Positive cases with their kernels:
// Generate/builtin-slice-reads-emulated.test.
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s

// A named elementwise op is generalized to take the offset map; the region
// counts only the 4x8 elements it reads of x (128 + 128 bytes out).
// CHECK: #[[$OFFSET:.+]] = affine_map<(d0, d1) -> (d0, d1 + 2)>
// CHECK-LABEL: func.func @named_exp(
// CHECK-NEXT: call @named_exp_region0(%arg0) : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK: func.func private @named_exp_region0(%arg0: tensor<4x16xf32>)
// CHECK-SAME: bytes = 256
// CHECK: linalg.generic {indexing_maps = [#[[$OFFSET]],
// CHECK: math.exp
func.func @named_exp(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[0, 2] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x[:, 0:8] read by a bare loop index would give d1 two sizes: kept.
// CHECK-LABEL: func.func @leading_columns(
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %arg0[0, 0] [4, 8] [1, 1]
// CHECK-NEXT: call @leading_columns_region0(%[[S]])
func.func @leading_columns(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// exp(x[:, 2:10]) summed over its rows: the row strategies take projected
// permutations only, so the slice is kept.
// CHECK-LABEL: func.func @feeds_a_sum(
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %arg0[0, 2] [4, 8] [1, 1]
// CHECK-NEXT: call @feeds_a_sum_region0(%[[S]])
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @feeds_a_sum(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %x[0, 2] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// A slice of a computed tensor: the reader reads it through its map but does
// not join its producer's region (it reads elements other threads compute),
// so the two regions run one after the other with no copy between them.
// CHECK: #[[$SHIFTED:.+]] = affine_map<(d0, d1) -> (d0, d1 + 2)>
// CHECK-LABEL: func.func @computed_source(
// CHECK-NEXT: %[[A:.+]] = call @computed_source_region0(%arg0) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: call @computed_source_region1(%[[A]]) : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK: func.func private @computed_source_region1(
// CHECK: linalg.generic {indexing_maps = [#[[$SHIFTED]],
func.func @computed_source(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %e16 = tensor.empty() : tensor<4x16xf32>
  %a = linalg.exp ins(%x : tensor<4x16xf32>) outs(%e16 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = tensor.extract_slice %a[0, 2] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The diagonal of x[:, 2:10]: both results of the folded map use d0, so the
// region reads 8 elements of x, not 8 x 8 (32 + 32 bytes out).
// CHECK-LABEL: func.func @sliced_diagonal(
// CHECK-NEXT: call @sliced_diagonal_region0(%arg0) : (tensor<8x16xf32>) -> tensor<8xf32>
// CHECK: func.func private @sliced_diagonal_region0(%arg0: tensor<8x16xf32>)
// CHECK-SAME: bytes = 64
#diag = affine_map<(d0) -> (d0, d0)>
#vec = affine_map<(d0) -> (d0)>
func.func @sliced_diagonal(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %s = tensor.extract_slice %x[0, 2] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#diag, #vec], iterator_types = ["parallel"]}
      ins(%s : tensor<8x8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %d : tensor<8xf32>
}
