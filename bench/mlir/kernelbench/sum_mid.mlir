// A sum over the middle dimension of 128x4096x4095 f32 (KernelBench 47_Sum_reduction's
// shape class: keepdim's size-1 dimension dropped).
func.func @sum_mid(%in0: tensor<128x4096x4095xf32>) -> tensor<128x4095xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x4095xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128x4095xf32>) -> tensor<128x4095xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%in0 : tensor<128x4096x4095xf32>) outs(%acc : tensor<128x4095xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<128x4095xf32>
  return %r : tensor<128x4095xf32>
}
