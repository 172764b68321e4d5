// A transformer MLP block on 256 tokens of width 512, as torch-mlir would
// hand it over (linalg on tensors, static shapes):
//   h = layernorm(x) * gamma + beta
//   y = x + (gelu(h @ w1 + b1) @ w2 + b2)
// plus a row softmax over attention scores. `agent-outline` finds four
// kernel regions: the layernorm (two row reductions), each matmul with its
// epilogue, and the softmax.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>

func.func @mlp_block(%x: tensor<256x512xf32>, %gamma: tensor<512xf32>, %beta: tensor<512xf32>,
                     %w1: tensor<512x2048xf32>, %b1: tensor<2048xf32>,
                     %w2: tensor<2048x512xf32>, %b2: tensor<512xf32>,
                     %scores: tensor<256x256xf32>)
    -> (tensor<256x512xf32>, tensor<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-5 : f32

  // Layernorm: mean and variance over each row, then scale and shift.
  %er = tensor.empty() : tensor<256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<256xf32>) -> tensor<256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xf32>) outs(%acc : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sum : tensor<256xf32>) outs(%er : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.divf %a, %n : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<256x512xf32>, tensor<256xf32>) outs(%acc : tensor<256xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %e = tensor.empty() : tensor<256x512xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq, %gamma, %beta : tensor<256x512xf32>, tensor<256xf32>, tensor<256xf32>, tensor<512xf32>, tensor<512xf32>)
      outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %m: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %d = arith.subf %a, %m : f32
    %nrm = arith.mulf %d, %r : f32
    %sc = arith.mulf %nrm, %g : f32
    %sh = arith.addf %sc, %b : f32
    linalg.yield %sh : f32
  } -> tensor<256x512xf32>

  // Up-projection with bias and tanh-gelu.
  %e1 = tensor.empty() : tensor<256x2048xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x2048xf32>) -> tensor<256x2048xf32>
  %m1 = linalg.matmul ins(%h, %w1 : tensor<256x512xf32>, tensor<512x2048xf32>)
                      outs(%f1 : tensor<256x2048xf32>) -> tensor<256x2048xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<256x2048xf32>, tensor<2048xf32>) outs(%e1 : tensor<256x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %s = arith.addf %a, %b : f32
    %s2 = arith.mulf %s, %s : f32
    %s3 = arith.mulf %s2, %s : f32
    %s4 = arith.mulf %s3, %k : f32
    %s5 = arith.addf %s, %s4 : f32
    %s6 = arith.mulf %s5, %c : f32
    %t = math.tanh %s6 : f32
    %t1 = arith.addf %t, %one : f32
    %t2 = arith.mulf %t1, %half : f32
    %t3 = arith.mulf %t2, %s : f32
    linalg.yield %t3 : f32
  } -> tensor<256x2048xf32>

  // Down-projection with bias and the residual add.
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %m2 = linalg.matmul ins(%g1, %w2 : tensor<256x2048xf32>, tensor<2048x512xf32>)
                      outs(%f2 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b2, %x : tensor<256x512xf32>, tensor<512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  } -> tensor<256x512xf32>

  // Attention probabilities.
  %es = tensor.empty() : tensor<256x256xf32>
  %p = linalg.softmax dimension(1) ins(%scores : tensor<256x256xf32>)
                                   outs(%es : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y, %p : tensor<256x512xf32>, tensor<256x256xf32>
}
