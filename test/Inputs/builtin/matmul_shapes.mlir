// Contractions the matmul strategy covers, in shapes that are not tile
// multiples: a bias broadcast as the accumulator's init with a relu
// epilogue, A transposed by its map, B transposed by its map, a bf16
// batched product with f32 accumulation, f16 operands cast in the region,
// an f32 batch whose A is computed in the region, and a long reduction
// over few tiles (split-K) whose rows are not whole 16-byte vectors.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @bias_relu_odd(%a: tensor<100x37xf32>, %b: tensor<37x70xf32>, %bias: tensor<70xf32>) -> tensor<100x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x70xf32>
  %init = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<70xf32>) outs(%e : tensor<100x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<100x70xf32>
  %m = linalg.matmul ins(%a, %b : tensor<100x37xf32>, tensor<37x70xf32>) outs(%init : tensor<100x70xf32>) -> tensor<100x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<100x70xf32>) outs(%e : tensor<100x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<100x70xf32>
  return %r : tensor<100x70xf32>
}

func.func @a_transposed(%a: tensor<53x130xf32>, %b: tensor<53x96xf32>) -> tensor<130x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<130x96xf32>) -> tensor<130x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<53x130xf32>, tensor<53x96xf32>) outs(%acc : tensor<130x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<130x96xf32>
  return %r : tensor<130x96xf32>
}

func.func @b_transposed_scaled(%a: tensor<192x200xf32>, %b: tensor<72x200xf32>) -> tensor<192x72xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<192x72xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<192x72xf32>) -> tensor<192x72xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<192x200xf32>, tensor<72x200xf32>) outs(%acc : tensor<192x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<192x72xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<192x72xf32>) outs(%e : tensor<192x72xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %scale : f32
    linalg.yield %y : f32
  } -> tensor<192x72xf32>
  return %r : tensor<192x72xf32>
}

func.func @batched_bf16(%a: tensor<3x33x40xbf16>, %b: tensor<3x40x65xbf16>) -> tensor<3x33x65xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x33x65xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x33x65xf32>) -> tensor<3x33x65xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x33x40xbf16>, tensor<3x40x65xbf16>) outs(%acc : tensor<3x33x65xf32>) -> tensor<3x33x65xf32>
  return %r : tensor<3x33x65xf32>
}

func.func @f16_to_f16(%a: tensor<64x128xf16>, %b: tensor<128x48xf16>) -> tensor<64x48xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x48xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<64x48xf16>) -> tensor<64x48xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x48xf16>) outs(%acc : tensor<64x48xf16>) -> tensor<64x48xf16>
  return %r : tensor<64x48xf16>
}

// An f32 batch whose A is computed in the region (an elementwise producer,
// x * 0.5 + 0.5, which is not a scale the outliner moves to the result):
// the tensor-core kernels read it through the producer.
func.func @batched_scaled_a(%a: tensor<2x40x24xf32>, %b: tensor<2x24x36xf32>) -> tensor<2x40x36xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %ea = tensor.empty() : tensor<2x40x24xf32>
  %as = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<2x40x24xf32>) outs(%ea : tensor<2x40x24xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %half : f32
    %z = arith.addf %y, %half : f32
    linalg.yield %z : f32
  } -> tensor<2x40x24xf32>
  %e = tensor.empty() : tensor<2x40x36xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  %r = linalg.batch_matmul ins(%as, %b : tensor<2x40x24xf32>, tensor<2x24x36xf32>) outs(%acc : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  return %r : tensor<2x40x36xf32>
}

func.func @split_k_odd(%a: tensor<72x517xf32>, %b: tensor<517x70xf32>, %bias: tensor<70xf32>) -> tensor<72x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<72x70xf32>
  %init = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<70xf32>) outs(%e : tensor<72x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<72x70xf32>
  %m = linalg.matmul ins(%a, %b : tensor<72x517xf32>, tensor<517x70xf32>) outs(%init : tensor<72x70xf32>) -> tensor<72x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<72x70xf32>) outs(%e : tensor<72x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<72x70xf32>
  return %r : tensor<72x70xf32>
}

// A linear layer as torch-mlir writes it: the weight (out x in) transposed by
// a linalg.transpose, the bias broadcast by a generic and added, then relu;
// the kernels read the weight where it lies.
func.func @linear_transposed(%x: tensor<96x72xf32>, %w: tensor<40x72xf32>, %bias: tensor<40xf32>) -> tensor<96x40xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<72x40xf32>
  %wt = linalg.transpose ins(%w : tensor<40x72xf32>) outs(%et : tensor<72x40xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<96x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<96x40xf32>) -> tensor<96x40xf32>
  %m = linalg.matmul ins(%x, %wt : tensor<96x72xf32>, tensor<72x40xf32>) outs(%acc : tensor<96x40xf32>) -> tensor<96x40xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<96x40xf32>, tensor<40xf32>) outs(%e : tensor<96x40xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<96x40xf32>
  return %r : tensor<96x40xf32>
}

// A reduction past 1024 (69 steps of 16, rows not whole 16-byte vectors):
// the 3xTF32 kernels over the whole of it add their tensor-core sums to the
// accumulators in f32 every 8 steps and after the last (-sum8); the split-K
// parts (35 steps) keep one accumulator.
func.func @long_k(%a: tensor<40x1100xf32>, %b: tensor<1100x24xf32>) -> tensor<40x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<40x24xf32>) -> tensor<40x24xf32>
  %m = linalg.matmul ins(%a, %b : tensor<40x1100xf32>, tensor<1100x24xf32>) outs(%acc : tensor<40x24xf32>) -> tensor<40x24xf32>
  return %m : tensor<40x24xf32>
}

// `torch.bmm(a, b).transpose(1, 2)` then a relu: the outliner folds the
// transpose into the product's output map, (b, m, n, k) -> (b, n, m), and the
// relu reads the transposed result as its epilogue.
func.func @batched_transposed_result(%a: tensor<2x40x24xf32>, %b: tensor<2x24x36xf32>) -> tensor<2x36x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x36xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x40x24xf32>, tensor<2x24x36xf32>) outs(%acc : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  %et = tensor.empty() : tensor<2x36x40xf32>
  %t = linalg.transpose ins(%p : tensor<2x40x36xf32>) outs(%et : tensor<2x36x40xf32>) permutation = [0, 2, 1]
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x36x40xf32>) outs(%et : tensor<2x36x40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<2x36x40xf32>
  return %r : tensor<2x36x40xf32>
}
