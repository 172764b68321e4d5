// Contractions whose wgmma kernels read operands packed into the workspace
// first: an f32 linear layer (the weight n x k, k-contiguous like A) with a
// bias and relu, rows of 100 floats (not a multiple of a 32-float step) and
// 70 output columns; an f16 product with a B of 37 columns (rows that are
// not whole 16-byte chunks) and a batched f32 product whose packed operands
// would pass the plan's 4 GiB workspace (4.8 GB).

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @f32_linear_relu(%x: tensor<200x100xf32>, %w: tensor<70x100xf32>, %bias: tensor<70xf32>) -> tensor<200x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x70xf32>
  %init = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<70xf32>) outs(%e : tensor<200x70xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<200x70xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<200x100xf32>, tensor<70x100xf32>) outs(%init : tensor<200x70xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<200x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<200x70xf32>) outs(%e : tensor<200x70xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<200x70xf32>
  return %r : tensor<200x70xf32>
}

func.func @f16_narrow_b(%a: tensor<256x64xf16>, %b: tensor<64x37xf16>) -> tensor<256x37xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x37xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256x37xf32>) -> tensor<256x37xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf16>, tensor<64x37xf16>) outs(%acc : tensor<256x37xf32>) -> tensor<256x37xf32>
  return %r : tensor<256x37xf32>
}

func.func @f32_batched_big(%a: tensor<128x512x2048xf32>, %b: tensor<128x2048x1024xf32>) -> tensor<128x512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512x1024xf32>) -> tensor<128x512x1024xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<128x512x2048xf32>, tensor<128x2048x1024xf32>) outs(%acc : tensor<128x512x1024xf32>) -> tensor<128x512x1024xf32>
  return %r : tensor<128x512x1024xf32>
}

// f32 operands whose rows are whole 32-row pack blocks but not whole
// 128-row tiles (96 and 64): the packs must not read past them.
func.func @f32_whole_blocks(%a: tensor<96x40xf32>, %b: tensor<40x64xf32>) -> tensor<96x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<96x64xf32>) -> tensor<96x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<96x40xf32>, tensor<40x64xf32>) outs(%acc : tensor<96x64xf32>) -> tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}
