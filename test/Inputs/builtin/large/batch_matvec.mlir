// torch.bmm of a 16 x 4096 x 4096 batch with a 16 x 4096 x 1 one (1 GiB of
// f32), for the GPU figures of the row kernels on a batch_matvec
// (docs/perf.md, tenth session); too large for the lit tests, staged by
// hand (--agent-outline, then --agent-generate="verify=bundle:DIR").
func.func @bmv(%a: tensor<16x4096x4096xf32>, %v: tensor<16x4096x1xf32>) -> tensor<16x4096x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4096x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4096x1xf32>) -> tensor<16x4096x1xf32>
  %m = linalg.batch_matmul ins(%a, %v : tensor<16x4096x4096xf32>, tensor<16x4096x1xf32>) outs(%f : tensor<16x4096x1xf32>) -> tensor<16x4096x1xf32>
  return %m : tensor<16x4096x1xf32>
}
