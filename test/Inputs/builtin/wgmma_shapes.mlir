// Contractions the warpgroup (wgmma) kernels cover, in the layouts they
// stage differently: a batched bf16 Q K^T (both operands k-contiguous,
// cp.async), an f16 matmul with B n-contiguous (MN-major, transposed wgmma
// operand) and a bias epilogue, A transposed with rows that are not whole
// 16-byte chunks (loaded through registers), and a bf16 product whose k
// (37) is neither a step nor a chunk multiple.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @qkt_bf16(%q: tensor<4x128x64xbf16>, %k: tensor<4x256x64xbf16>) -> tensor<4x128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x128x64xbf16>, tensor<4x256x64xbf16>) outs(%acc : tensor<4x128x256xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x128x256xf32>
  return %r : tensor<4x128x256xf32>
}

func.func @f16_bias(%a: tensor<256x512xf16>, %b: tensor<512x384xf16>, %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %e = tensor.empty() : tensor<256x384xf32>
  %init = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<384xf32>) outs(%e : tensor<256x384xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<256x384xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf16>, tensor<512x384xf16>) outs(%init : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

func.func @a_transposed_f16(%a: tensor<72x100xf16>, %b: tensor<72x96xf16>) -> tensor<100x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<100x96xf32>) -> tensor<100x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<72x100xf16>, tensor<72x96xf16>) outs(%acc : tensor<100x96xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<100x96xf32>
  return %r : tensor<100x96xf32>
}

func.func @odd_k_bf16(%a: tensor<70x37xbf16>, %b: tensor<37x50xbf16>) -> tensor<70x50xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<70x50xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<70x50xbf16>) -> tensor<70x50xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<70x37xbf16>, tensor<37x50xbf16>) outs(%acc : tensor<70x50xbf16>) -> tensor<70x50xbf16>
  return %r : tensor<70x50xbf16>
}
