// Slices read by elementwise ops are folded into the readers' maps before
// grouping (lib/Outline/SliceReads.cpp), through the reshapes between them and
// through a split view of the source where a map alone cannot say it; those a
// reduction reads (other than as a scan's masked term), those linalg could not
// take as a map or view stay slices (copied or viewed in the caller). A slice
// under a pad goes into the region with the pad where the pad can read the
// slice's source with bounds. Positive cases with their kernels:
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

// x[:, 0:8] read by a bare loop index would give d1 two sizes as a map of
// x: the reader reads a view of x split into two halves of 8 columns, at
// half 0, and the region counts the 4x8 elements it reads.
// CHECK: #[[$HALF0:.+]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// CHECK-LABEL: func.func @leading_columns(
// CHECK-NEXT: %[[V:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
// CHECK-NEXT: call @leading_columns_region0(%[[V]]) : (tensor<4x2x8xf32>) -> tensor<4x8xf32>
// CHECK: func.func private @leading_columns_region0(%arg0: tensor<4x2x8xf32>)
// CHECK-SAME: bytes = 256
// CHECK: linalg.generic {indexing_maps = [#[[$HALF0]],
func.func @leading_columns(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Two readers of one leading slice share its view; the leading rows and
// columns of a 3-d tensor split two dimensions.
// CHECK-LABEL: func.func @shared_view(
// CHECK-NEXT: %[[V:.+]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2], [3, 4]] output_shape [3, 2, 5, 2, 4] : tensor<6x5x8xf32> into tensor<3x2x5x2x4xf32>
// CHECK-NEXT: call @shared_view_region0(%[[V]]) : (tensor<3x2x5x2x4xf32>) -> tensor<2x5x4xf32>
// CHECK-NEXT: call @shared_view_region1(%[[V]]) : (tensor<3x2x5x2x4xf32>) -> tensor<2x5x4xf32>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @shared_view(%x: tensor<6x5x8xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x4xf32>) {
  %s = tensor.extract_slice %x[0, 0, 0] [2, 5, 4] [1, 1, 1] : tensor<6x5x8xf32> to tensor<2x5x4xf32>
  %e = tensor.empty() : tensor<2x5x4xf32>
  %a = linalg.exp ins(%s : tensor<2x5x4xf32>) outs(%e : tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  %b = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x5x4xf32>) outs(%e : tensor<2x5x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<2x5x4xf32>
  return %a, %b : tensor<2x5x4xf32>, tensor<2x5x4xf32>
}

// -----

// x[:, 0:6] of 16 columns: 6 does not divide 16, so there is no split view
// and the slice is kept.
// CHECK-LABEL: func.func @leading_columns_uneven(
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %arg0[0, 0] [4, 6] [1, 1]
// CHECK-NEXT: call @leading_columns_uneven_region0(%[[S]])
func.func @leading_columns_uneven(%x: tensor<4x16xf32>) -> tensor<4x6xf32> {
  %s = tensor.extract_slice %x[0, 0] [4, 6] [1, 1] : tensor<4x16xf32> to tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %y = linalg.exp ins(%s : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
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

// -----

// A slice of a slice is one slice: offsets add (x[:, 2:14][:, 1:9] is
// x[:, 3:11]).
// CHECK: #[[$THREE:.+]] = affine_map<(d0, d1) -> (d0, d1 + 3)>
// CHECK-LABEL: func.func @slice_of_slice(
// CHECK-NEXT: call @slice_of_slice_region0(%arg0) : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$THREE]],
func.func @slice_of_slice(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %a = tensor.extract_slice %x[0, 2] [4, 12] [1, 1] : tensor<4x16xf32> to tensor<4x12xf32>
  %b = tensor.extract_slice %a[0, 1] [4, 8] [1, 1] : tensor<4x12xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The last column of each block, its unit dimension collapsed: read through
// the collapse, at column 31 of the source.
// CHECK: #[[$LAST:.+]] = affine_map<(d0, d1) -> (d0, d1, 31)>
// CHECK-LABEL: func.func @through_collapse(
// CHECK-NEXT: call @through_collapse_region0(%arg0) : (tensor<2x64x32xf32>) -> tensor<2x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$LAST]],
func.func @through_collapse(%t: tensor<2x64x32xf32>) -> tensor<2x64xf32> {
  %s = tensor.extract_slice %t[0, 0, 31] [2, 64, 1] [1, 1, 1] : tensor<2x64x32xf32> to tensor<2x64x1xf32>
  %c = tensor.collapse_shape %s [[0], [1, 2]] : tensor<2x64x1xf32> into tensor<2x64xf32>
  %e = tensor.empty() : tensor<2x64xf32>
  %y = linalg.exp ins(%c : tensor<2x64xf32>) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// -----

// A blocked scan's second level: the first level's block totals (column 31),
// split into blocks of 32 by an expand_shape, are the masked term of the
// scan's reduction. The builtin scan evaluates the term at any map, so the
// term reads the first level's result in place, through the composed map
// (block d1 * 32 + d3, column 31), and no slice is copied.
// CHECK: #[[$TOTALS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 32 + d3, 31)>
// CHECK-LABEL: func.func @scan_of_totals(
// CHECK-NEXT: call @scan_of_totals_region0(%arg0) : (tensor<2x64x32xf32>) -> tensor<2x2x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$TOTALS]],
#in4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @scan_of_totals(%t: tensor<2x64x32xf32>) -> tensor<2x2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %t[0, 0, 31] [2, 64, 1] [1, 1, 1] : tensor<2x64x32xf32> to tensor<2x64xf32>
  %v = tensor.expand_shape %s [[0], [1, 2]] output_shape [2, 2, 32] : tensor<2x64xf32> into tensor<2x2x32xf32>
  %e = tensor.empty() : tensor<2x2x32x32xf32>
  %term = linalg.generic {indexing_maps = [#in4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<2x2x32xf32>) outs(%e : tensor<2x2x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 2 : index
    %k = linalg.index 3 : index
    %upto = arith.cmpi sge, %i, %k : index
    %r = arith.select %upto, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x2x32x32xf32>
  %r0 = tensor.empty() : tensor<2x2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x2x32xf32>) -> tensor<2x2x32xf32>
  %scan = linalg.generic {indexing_maps = [#id4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%term : tensor<2x2x32x32xf32>) outs(%f : tensor<2x2x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %a, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<2x2x32xf32>
  return %scan : tensor<2x2x32xf32>
}

// -----

// The scan's totals shifted by one block (F.pad(t[:, :-1], (1, 0))): the
// slice goes into the region under its pad, which reads t with bounds, so the
// region takes t itself and nothing is copied.
// CHECK-LABEL: func.func @shifted_totals(
// CHECK-NEXT: call @shifted_totals_region0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: func.func private @shifted_totals_region0(
// CHECK: tensor.extract_slice %arg1[0, 0] [4, 7] [1, 1]
// CHECK: tensor.pad
func.func @shifted_totals(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %t[0, 0] [4, 7] [1, 1] : tensor<4x8xf32> to tensor<4x7xf32>
  %p = tensor.pad %s low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x7xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.add ins(%x, %p : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A pad before a slice that does not start at 0 would read t[:, 0] where the
// pad has its value: the slice is kept (a copy), the pad in the region.
// CHECK-LABEL: func.func @shifted_inner_slice(
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %arg1[0, 1] [4, 7] [1, 1]
// CHECK-NEXT: call @shifted_inner_slice_region0(%arg0, %[[S]]) : (tensor<4x8xf32>, tensor<4x7xf32>) -> tensor<4x8xf32>
func.func @shifted_inner_slice(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %t[0, 1] [4, 7] [1, 1] : tensor<4x8xf32> to tensor<4x7xf32>
  %p = tensor.pad %s low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x7xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.add ins(%x, %p : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
