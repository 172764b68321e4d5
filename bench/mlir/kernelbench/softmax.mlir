// KernelBench level 1, 23_Softmax: softmax over rows of 393216 f32, 4096 rows.
func.func @softmax(%in0: tensor<4096x393216xf32>) -> tensor<4096x393216xf32> {
  %e = tensor.empty() : tensor<4096x393216xf32>
  %r = linalg.softmax dimension(1) ins(%in0 : tensor<4096x393216xf32>) outs(%e : tensor<4096x393216xf32>) -> tensor<4096x393216xf32>
  return %r : tensor<4096x393216xf32>
}
