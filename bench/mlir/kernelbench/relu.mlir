// KernelBench level 1, 19_ReLU: relu over 4096x393216 f32 (6.4 GB per tensor).
func.func @relu(%in0: tensor<4096x393216xf32>) -> tensor<4096x393216xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x393216xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%in0 : tensor<4096x393216xf32>) outs(%e : tensor<4096x393216xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4096x393216xf32>
  return %r : tensor<4096x393216xf32>
}
