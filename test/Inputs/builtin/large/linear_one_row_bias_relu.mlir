// A linear layer on a batch of one, relu(x @ W + b) with x 1x8192 and W
// 8192x8192 f32, for the GPU figures of the vecmat with an epilogue
// (docs/perf.md, tenth session); too large for the lit tests, staged by
// hand (--agent-outline, then --agent-generate="verify=bundle:DIR").
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @linear_relu_one_row(%x: tensor<1x8192xf32>, %w: tensor<8192x8192xf32>, %b: tensor<8192xf32>) -> tensor<1x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x8192xf32>, tensor<8192x8192xf32>) outs(%f : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %y = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<1x8192xf32>, tensor<8192xf32>) outs(%e : tensor<1x8192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8192xf32>
  return %y : tensor<1x8192xf32>
}
