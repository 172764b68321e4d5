// A batched matrix-vector product, as torch's bmm of a B x M x K batch with a
// B x K x 1 one writes it: each batch's rows read that batch's vector. Small
// enough to compute on the CPU (builtin-batch-matvec-emulated.test).
func.func @batch_matvec(%a: tensor<3x32x96xf32>, %v: tensor<3x96x1xf32>) -> tensor<3x32x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x32x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x32x1xf32>) -> tensor<3x32x1xf32>
  %m = linalg.batch_matmul ins(%a, %v : tensor<3x32x96xf32>, tensor<3x96x1xf32>) outs(%f : tensor<3x32x1xf32>) -> tensor<3x32x1xf32>
  return %m : tensor<3x32x1xf32>
}
