// Attentions for the flash kernel (FlashAttention.cpp): lengths that are not
// multiples of its 64 queries and 64 keys (several key steps, so the running
// max and sums are rescaled), head dimensions of 16 and 24, keys read
// through a transposed map.
#id = affine_map<(b, m, n) -> (b, m, n)>
#row = affine_map<(b, m, n) -> (b, m)>
#mask = affine_map<(b, m, n) -> (m, n)>
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#kt = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>

// softmax(q k^T * 0.25) v, with exp(s - max) in one generic.
func.func @odd_lengths(%q: tensor<2x80x16xf32>, %k: tensor<2x136x16xf32>,
                       %v: tensor<2x136x24xf32>) -> tensor<2x80x24xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %quarter = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<2x80x136xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x80x136xf32>) -> tensor<2x80x136xf32>
  %prod = linalg.generic {indexing_maps = [#q, #kt, #s],
                          iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x80x16xf32>, tensor<2x136x16xf32>) outs(%fs : tensor<2x80x136xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x80x136xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%prod : tensor<2x80x136xf32>) outs(%es : tensor<2x80x136xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %quarter : f32
    linalg.yield %r : f32
  } -> tensor<2x80x136xf32>
  %er = tensor.empty() : tensor<2x80xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x80xf32>) -> tensor<2x80xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x80x136xf32>) outs(%fm : tensor<2x80xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x80xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<2x80x136xf32>, tensor<2x80xf32>) outs(%es : tensor<2x80x136xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x80x136xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x80xf32>) -> tensor<2x80xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x80x136xf32>) outs(%fz : tensor<2x80xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x80xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x80x136xf32>, tensor<2x80xf32>) outs(%es : tensor<2x80x136xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<2x80x136xf32>
  %eo = tensor.empty() : tensor<2x80x24xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x80x24xf32>) -> tensor<2x80x24xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<2x80x136xf32>, tensor<2x136x24xf32>)
                             outs(%fo : tensor<2x80x24xf32>) -> tensor<2x80x24xf32>
  return %out : tensor<2x80x24xf32>
}

// An additive mask, -inf where it is below -0.5 and along all of row 3
// (torch's masked_fill), with the guard that zeroes a row whose max is -inf, the difference and the exponential in two
// generics, and an epilogue on the output.
func.func @masked_guarded(%q: tensor<2x70x8xf32>, %k: tensor<2x130x8xf32>,
                          %v: tensor<2x130x16xf32>, %m: tensor<70x130xf32>)
    -> tensor<2x70x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<2x70x130xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x70x130xf32>) -> tensor<2x70x130xf32>
  %prod = linalg.generic {indexing_maps = [#q, #kt, #s],
                          iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x70x8xf32>, tensor<2x130x8xf32>) outs(%fs : tensor<2x70x130xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x70x130xf32>
  %x = linalg.generic {indexing_maps = [#id, #mask, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%prod, %m : tensor<2x70x130xf32>, tensor<70x130xf32>) outs(%es : tensor<2x70x130xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %i = linalg.index 1 : index
    %three = arith.constant 3 : index
    %half = arith.constant -0.5 : f32
    %row3 = arith.cmpi eq, %i, %three : index
    %low = arith.cmpf olt, %b, %half : f32
    %drop = arith.ori %row3, %low : i1
    %sum = arith.addf %a, %b : f32
    %r = arith.select %drop, %ninf, %sum : f32
    linalg.yield %r : f32
  } -> tensor<2x70x130xf32>
  %er = tensor.empty() : tensor<2x70xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x70xf32>) -> tensor<2x70xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x70x130xf32>) outs(%fm : tensor<2x70xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x70xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<2x70x130xf32>, tensor<2x70xf32>) outs(%es : tensor<2x70x130xf32>) {
  ^bb0(%a: f32, %mx: f32, %o: f32):
    %r = arith.subf %a, %mx : f32
    linalg.yield %r : f32
  } -> tensor<2x70x130xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d : tensor<2x70x130xf32>) outs(%es : tensor<2x70x130xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x70x130xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x70xf32>) -> tensor<2x70xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x70x130xf32>) outs(%fz : tensor<2x70xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x70xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum, %max : tensor<2x70x130xf32>, tensor<2x70xf32>, tensor<2x70xf32>) outs(%es : tensor<2x70x130xf32>) {
  ^bb0(%a: f32, %l: f32, %mx: f32, %o: f32):
    %pr = arith.divf %a, %l : f32
    %all = arith.cmpf oeq, %mx, %ninf : f32
    %r = arith.select %all, %zero, %pr : f32
    linalg.yield %r : f32
  } -> tensor<2x70x130xf32>
  %eo = tensor.empty() : tensor<2x70x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x70x16xf32>) -> tensor<2x70x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x70x130xf32>, tensor<2x130x16xf32>)
                           outs(%fo : tensor<2x70x16xf32>) -> tensor<2x70x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : tensor<2x70x16xf32>) outs(%eo : tensor<2x70x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x70x16xf32>
  return %y : tensor<2x70x16xf32>
}
