// 28 rows too long for a block's registers (384 KB), staged over blocks that
// exchange their reductions through the workspace (RowsCluster.cpp,
// rows-exchange): a softmax (its exponentials written over the staged
// chunk), a log-softmax (x read again by the output: the online pass), a
// layer norm (two exchanges, the second after the mean) and a max and an f64
// sum of one pass (one exchange of both).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_exchange(%x: tensor<28x98304xf32>) -> tensor<28x98304xf32> {
  %e = tensor.empty() : tensor<28x98304xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<28x98304xf32>) outs(%e : tensor<28x98304xf32>) -> tensor<28x98304xf32>
  return %r : tensor<28x98304xf32>
}

func.func @log_softmax_exchange(%x: tensor<28x98304xf32>) -> tensor<28x98304xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<28xf32>
  %macc = linalg.fill ins(%ninf : f32) outs(%er : tensor<28xf32>) -> tensor<28xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<28x98304xf32>) outs(%macc : tensor<28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<28xf32>
  %ee = tensor.empty() : tensor<28x98304xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<28x98304xf32>, tensor<28xf32>) outs(%ee : tensor<28x98304xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<28x98304xf32>
  %sacc = linalg.fill ins(%zero : f32) outs(%er : tensor<28xf32>) -> tensor<28xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<28x98304xf32>) outs(%sacc : tensor<28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<28xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<28x98304xf32>, tensor<28xf32>, tensor<28xf32>) outs(%ee : tensor<28x98304xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %l = math.log %s : f32
    %v = arith.subf %d, %l : f32
    linalg.yield %v : f32
  } -> tensor<28x98304xf32>
  return %r : tensor<28x98304xf32>
}

func.func @layernorm_exchange(%x: tensor<28x98304xf32>) -> tensor<28x98304xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 9.830400000e+04 : f32
  %eps = arith.constant 1.000000000e-05 : f32
  %er = tensor.empty() : tensor<28xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<28xf32>) -> tensor<28xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<28x98304xf32>) outs(%acc : tensor<28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<28xf32>
  %er2 = tensor.empty() : tensor<28xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<28xf32>) outs(%er2 : tensor<28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %n : f32
    linalg.yield %q : f32
  } -> tensor<28xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%er : tensor<28xf32>) -> tensor<28xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<28x98304xf32>, tensor<28xf32>) outs(%acc2 : tensor<28xf32>) {
  ^bb0(%a: f32, %mu: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<28xf32>
  %e = tensor.empty() : tensor<28x98304xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %sq : tensor<28x98304xf32>, tensor<28xf32>, tensor<28xf32>)
      outs(%e : tensor<28x98304xf32>) {
  ^bb0(%a: f32, %mu: f32, %q: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mu : f32
    %nrm = arith.mulf %d, %rs : f32
    linalg.yield %nrm : f32
  } -> tensor<28x98304xf32>
  return %r : tensor<28x98304xf32>
}

// Two reductions of one pass, of different types and combiners (the max in
// f32, the sum in f64): one exchange of both.
func.func @max_and_sum_exchange(%x: tensor<28x98304xf32>) -> tensor<28x98304xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f64
  %er = tensor.empty() : tensor<28xf32>
  %macc = linalg.fill ins(%ninf : f32) outs(%er : tensor<28xf32>) -> tensor<28xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<28x98304xf32>) outs(%macc : tensor<28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<28xf32>
  %ed = tensor.empty() : tensor<28xf64>
  %sacc = linalg.fill ins(%zero : f64) outs(%ed : tensor<28xf64>) -> tensor<28xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<28x98304xf32>) outs(%sacc : tensor<28xf64>) {
  ^bb0(%a: f32, %o: f64):
    %d = arith.extf %a : f32 to f64
    %s = arith.addf %d, %o : f64
    linalg.yield %s : f64
  } -> tensor<28xf64>
  %ee = tensor.empty() : tensor<28x98304xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : tensor<28x98304xf32>, tensor<28xf32>, tensor<28xf64>) outs(%ee : tensor<28x98304xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f64, %o: f32):
    %d = arith.subf %a, %m : f32
    %sf = arith.truncf %s : f64 to f32
    %v = arith.addf %d, %sf : f32
    linalg.yield %v : f32
  } -> tensor<28x98304xf32>
  return %r : tensor<28x98304xf32>
}
