// Matrix-vector products (KernelBench level 1 has both): memory-bound
// reductions the row kernels (matvec: a row of the matrix per output) and the
// sliced column-reduction kernels (vecmat: 32 consecutive outputs per warp,
// the reduced rows split over the block's warps) take, not the matmul
// strategy.
func.func @mv(%a: tensor<4096x8192xf32>, %x: tensor<8192xf32>) -> tensor<4096xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.matvec ins(%a, %x : tensor<4096x8192xf32>, tensor<8192xf32>) outs(%f : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
func.func @vm(%x: tensor<4096xf32>, %a: tensor<4096x8192xf32>) -> tensor<8192xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  %r = linalg.vecmat ins(%x, %a : tensor<4096xf32>, tensor<4096x8192xf32>) outs(%f : tensor<8192xf32>) -> tensor<8192xf32>
  return %r : tensor<8192xf32>
}
