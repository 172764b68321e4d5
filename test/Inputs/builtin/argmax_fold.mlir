// Reductions into two outputs that the body carries together, in the form
// torch-mlir emits them: torch.argmax over a middle dimension (the running
// maximum an output nobody reads, the i64 index the result) and torch.min
// with its indices (both results returned). NaN and ties follow the body:
// `cmpf ogt` keeps the first maximum; a NaN never wins the comparison.
#in3 = affine_map<(a, r, b) -> (a, r, b)>
#out3 = affine_map<(a, r, b) -> (a, b)>
#in2 = affine_map<(a, r) -> (a, r)>
#out2 = affine_map<(a, r) -> (a)>
func.func @argmax_middle(%x: tensor<4x24x40xf32>) -> tensor<4x40xi64> {
  %c0 = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<4x40xi64>
  %fi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4x40xi64>) -> tensor<4x40xi64>
  %ev = tensor.empty() : tensor<4x40xf32>
  %fv = linalg.fill ins(%ninf : f32) outs(%ev : tensor<4x40xf32>) -> tensor<4x40xf32>
  %r:2 = linalg.generic {indexing_maps = [#in3, #out3, #out3],
                         iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<4x24x40xf32>) outs(%fv, %fi : tensor<4x40xf32>, tensor<4x40xi64>) {
  ^bb0(%in: f32, %max: f32, %at: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %max : f32
    %gt = arith.cmpf ogt, %in, %max : f32
    %s = arith.select %gt, %ii, %at : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4x40xf32>, tensor<4x40xi64>)
  return %r#1 : tensor<4x40xi64>
}

func.func @min_with_indices(%x: tensor<16x100xf32>) -> (tensor<16xf32>, tensor<16xi64>) {
  %c0 = arith.constant 0 : i64
  %inf = arith.constant 0x7F800000 : f32
  %ei = tensor.empty() : tensor<16xi64>
  %fi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<16xi64>) -> tensor<16xi64>
  %ev = tensor.empty() : tensor<16xf32>
  %fv = linalg.fill ins(%inf : f32) outs(%ev : tensor<16xf32>) -> tensor<16xf32>
  %r:2 = linalg.generic {indexing_maps = [#in2, #out2, #out2],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x100xf32>) outs(%fv, %fi : tensor<16xf32>, tensor<16xi64>) {
  ^bb0(%in: f32, %min: f32, %at: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.minimumf %in, %min : f32
    %lt = arith.cmpf olt, %in, %min : f32
    %s = arith.select %lt, %ii, %at : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<16xf32>, tensor<16xi64>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi64>
}
