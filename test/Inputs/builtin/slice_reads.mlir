// Slices read by elementwise ops, which the outliner folds into the readers'
// maps (lib/Outline/SliceReads.cpp): a column offset and a rank-reducing row
// (slice_reads), a row stride with a column offset (strided_slice), the two
// halves of a GLU (glu_halves).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @slice_reads(%x: tensor<6x40xf32>, %y: tensor<3x32xf32>) -> tensor<6x32xf32> {
  %s = tensor.extract_slice %x[0, 4] [6, 32] [1, 1] : tensor<6x40xf32> to tensor<6x32xf32>
  %r = tensor.extract_slice %y[2, 0] [1, 32] [1, 1] : tensor<3x32xf32> to tensor<32xf32>
  %e = tensor.empty() : tensor<6x32xf32>
  %o = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %r : tensor<6x32xf32>, tensor<32xf32>) outs(%e : tensor<6x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %ea = math.exp %a : f32
    %v = arith.addf %ea, %b : f32
    linalg.yield %v : f32
  } -> tensor<6x32xf32>
  return %o : tensor<6x32xf32>
}

func.func @strided_slice(%x: tensor<6x40xf32>) -> tensor<3x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s = tensor.extract_slice %x[1, 1] [3, 32] [2, 1] : tensor<6x40xf32> to tensor<3x32xf32>
  %e = tensor.empty() : tensor<3x32xf32>
  %o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<3x32xf32>) outs(%e : tensor<3x32xf32>) {
  ^bb0(%a: f32, %out: f32):
    %v = arith.maximumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<3x32xf32>
  return %o : tensor<3x32xf32>
}

// A GLU of x's halves: the first half (columns from 0) is read through a view
// of x split into two halves of 32 columns, at half 0; the second through its
// offset map.
func.func @glu_halves(%x: tensor<6x64xf32>) -> tensor<6x32xf32> {
  %one = arith.constant 1.0 : f32
  %a = tensor.extract_slice %x[0, 0] [6, 32] [1, 1] : tensor<6x64xf32> to tensor<6x32xf32>
  %b = tensor.extract_slice %x[0, 32] [6, 32] [1, 1] : tensor<6x64xf32> to tensor<6x32xf32>
  %e = tensor.empty() : tensor<6x32xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<6x32xf32>, tensor<6x32xf32>) outs(%e : tensor<6x32xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %n = arith.negf %q : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %v = arith.divf %p, %d : f32
    linalg.yield %v : f32
  } -> tensor<6x32xf32>
  return %o : tensor<6x32xf32>
}
