// A region (written as agent-outline would leave it) that reads a row sum,
// one value per row, through the minor identity, as one value per column:
// with rows and columns of one shape every map check of RowAnalysis.cpp
// takes it, and a row kernel would read the row's own sum at every column.
// The row strategies refuse it (builtin-matvec-prologue-emulated.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @per_row_read_per_column(%x: tensor<8x8xf32>) -> tensor<8xf32> attributes {cuda_agent.region = {hash = "00", kind = "reduction"}} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #col, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %s : tensor<8x8xf32>, tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %v = arith.addf %m, %acc : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %t : tensor<8xf32>
}
