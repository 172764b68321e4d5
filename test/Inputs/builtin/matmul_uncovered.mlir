// Contractions the matmul strategy does not cover yet: each keeps its
// default lowering, with the reason naming what is missing.

func.func @matmul_i32(%a: tensor<64x64xi32>, %b: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<64x64xi32>) -> tensor<64x64xi32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xi32>, tensor<64x64xi32>) outs(%acc : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %r : tensor<64x64xi32>
}

func.func @matmul_f64(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x64xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%e : tensor<64x64xf64>) -> tensor<64x64xf64>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf64>, tensor<64x64xf64>) outs(%acc : tensor<64x64xf64>) -> tensor<64x64xf64>
  return %r : tensor<64x64xf64>
}

func.func @matvec(%a: tensor<64x96xf32>, %x: tensor<96xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.matvec ins(%a, %x : tensor<64x96xf32>, tensor<96xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @matmul_dynamic(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
