// Reductions over outer dimensions with few outputs, small enough to
// compute on the CPU: the split kernels' slices, the rows past the last
// whole step of a slice, a last block of columns partly past the outputs,
// an inner reduced loop, an epilogue and a max's identity.
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#id = affine_map<(d0) -> (d0)>
// x @ W: 300 rows in 4 slices of 75, 200 outputs (the second block of 128
// half past them).
func.func @vecmat_odd(%x: tensor<300xf32>, %w: tensor<300x200xf32>) -> tensor<200xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200xf32>) -> tensor<200xf32>
  %r = linalg.vecmat ins(%x, %w : tensor<300xf32>, tensor<300x200xf32>) outs(%f : tensor<200xf32>) -> tensor<200xf32>
  return %r : tensor<200xf32>
}
// relu(x @ W + b) on one row, as a linear layer on a batch of one writes
// it: the matmul becomes a vecmat, and its bias and relu run in the finish
// kernel.
func.func @vecmat_bias_relu(%x: tensor<1x300xf32>, %w: tensor<300x200xf32>, %b: tensor<200xf32>) -> tensor<1x200xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x200xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x200xf32>) -> tensor<1x200xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x300xf32>, tensor<300x200xf32>) outs(%f : tensor<1x200xf32>) -> tensor<1x200xf32>
  %r = linalg.generic {indexing_maps = [#in2, #col2, #in2], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<1x200xf32>, tensor<200xf32>) outs(%e : tensor<1x200xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %a1 = arith.addf %in, %bias : f32
    %v = arith.maximumf %a1, %z : f32
    linalg.yield %v : f32
  } -> tensor<1x200xf32>
  return %r : tensor<1x200xf32>
}
// relu(0.5 * sum over dim 0 + b): the epilogue runs in the finish kernel.
func.func @sum_dim0_bias_relu(%a: tensor<517x72xf32>, %b: tensor<72xf32>) -> tensor<72xf32> {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<72xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<72xf32>) -> tensor<72xf32>
  %s = linalg.generic {indexing_maps = [#in2, #col2], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<517x72xf32>) outs(%f : tensor<72xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<72xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%s, %b : tensor<72xf32>, tensor<72xf32>) outs(%e : tensor<72xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %m = arith.mulf %in, %h : f32
    %a1 = arith.addf %m, %bias : f32
    %c = arith.cmpf ugt, %a1, %z : f32
    %v = arith.select %c, %a1, %z : f32
    linalg.yield %v : f32
  } -> tensor<72xf32>
  return %r : tensor<72xf32>
}
// A sum over dims 0 and 1: the second reduced dimension loops whole inside
// each row of the first.
func.func @sum_dims01(%a: tensor<130x3x36xf32>) -> tensor<36xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<36xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<36xf32>) -> tensor<36xf32>
  %r = linalg.generic {indexing_maps = [#in3, #col3], iterator_types = ["reduction", "reduction", "parallel"]} ins(%a : tensor<130x3x36xf32>) outs(%f : tensor<36xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<36xf32>
  return %r : tensor<36xf32>
}
// A max over dim 0 from -inf: the slices start from the combiner's
// identity, the finish from the fill.
func.func @max_dim0(%a: tensor<300x64xf32>) -> tensor<64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#in2, #col2], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<300x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maximumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
