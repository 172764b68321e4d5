// Contractions that fill 132 SMs twice with 128 x 256 tiles, so that the
// warp-specialized wgmma kernels come in all three tilings: an f16 matmul
// with B n-contiguous (MN-major) and f32 output, and a bf16 linear layer
// (B k-contiguous, as torch-mlir's transposed weight reads) with a bias and
// relu epilogue; and a small f16 product with edges in all three
// dimensions. K is short: only the kernel text is checked here.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @f16_wide(%a: tensor<4096x640xf16>, %b: tensor<640x4096xf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4096x640xf16>, tensor<640x4096xf16>) outs(%acc : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

func.func @bf16_linear_relu(%x: tensor<4096x192xbf16>, %w: tensor<4096x192xbf16>, %bias: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4096x192xbf16>, tensor<4096x192xbf16>) outs(%acc : tensor<4096x4096xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %m = arith.mulf %pf, %qf : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4096x4096xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%e : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %t = arith.addf %v, %bb : f32
    %z = arith.maximumf %t, %zero : f32
    linalg.yield %z : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}

// Edges everywhere: 200 rows (not 128's multiple), 296 columns, k = 136
// (two steps of 64 and 8 more).
func.func @f16_edges(%a: tensor<200x136xf16>, %b: tensor<136x296xf16>) -> tensor<200x296xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x296xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<200x296xf32>) -> tensor<200x296xf32>
  %r = linalg.matmul ins(%a, %b : tensor<200x136xf16>, tensor<136x296xf16>) outs(%acc : tensor<200x296xf32>) -> tensor<200x296xf32>
  return %r : tensor<200x296xf32>
}
