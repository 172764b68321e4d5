// Reductions whose reduced loops are not the trailing ones, with the innermost
// loop reduced: rows strided in memory (Rows.h, RowShape).
#full4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
#keep02 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#full2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
module {
  // A batch norm's statistics over n, h and w for each channel (two passes:
  // the mean, then the variance around it), and x normalized: rows of
  // 4 x 64 x 64 = 16384 columns, too long for the row to stay in registers
  // in the smaller groups.
  func.func @channel_norm(%x: tensor<4x8x64x64xf32>) -> (tensor<8xf32>, tensor<4x8x64x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %count = arith.constant 16384.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %e8 = tensor.empty() : tensor<8xf32>
    %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
    %sum = linalg.generic {indexing_maps = [#full4, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<4x8x64x64xf32>) outs(%z8 : tensor<8xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<8xf32>
    %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sum : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.divf %in, %count : f32
      linalg.yield %m : f32
    } -> tensor<8xf32>
    %sq = linalg.generic {indexing_maps = [#full4, #chan, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x, %mean : tensor<4x8x64x64xf32>, tensor<8xf32>) outs(%z8 : tensor<8xf32>) {
    ^bb0(%in: f32, %m: f32, %acc: f32):
      %d = arith.subf %in, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %s = arith.addf %d2, %acc : f32
      linalg.yield %s : f32
    } -> tensor<8xf32>
    %e = tensor.empty() : tensor<4x8x64x64xf32>
    %y = linalg.generic {indexing_maps = [#full4, #chan, #chan, #full4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mean, %sq : tensor<4x8x64x64xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<4x8x64x64xf32>) {
    ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
      %var = arith.divf %s, %count : f32
      %ve = arith.addf %var, %eps : f32
      %r = math.rsqrt %ve : f32
      %d = arith.subf %in, %m : f32
      %n = arith.mulf %d, %r : f32
      linalg.yield %n : f32
    } -> tensor<4x8x64x64xf32>
    return %mean, %y : tensor<8xf32>, tensor<4x8x64x64xf32>
  }

  // Two row loops around the reduced ones (sums over d1 and d3 for each
  // (d0, d2)), and each element less its row's sum: a row is 8 runs of 36
  // columns, 36 apart by 6 x 36.
  func.func @keep_outer(%x: tensor<3x8x6x36xf32>) -> (tensor<3x6xf32>, tensor<3x8x6x36xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<3x6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x6xf32>) -> tensor<3x6xf32>
    %sum = linalg.generic {indexing_maps = [#full4, #keep02], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%x : tensor<3x8x6x36xf32>) outs(%z : tensor<3x6xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<3x6xf32>
    %ef = tensor.empty() : tensor<3x8x6x36xf32>
    %y = linalg.generic {indexing_maps = [#full4, #keep02, #full4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<3x8x6x36xf32>, tensor<3x6xf32>) outs(%ef : tensor<3x8x6x36xf32>) {
    ^bb0(%in: f32, %s: f32, %out: f32):
      %d = arith.subf %in, %s : f32
      linalg.yield %d : f32
    } -> tensor<3x8x6x36xf32>
    return %sum, %y : tensor<3x6xf32>, tensor<3x8x6x36xf32>
  }

  // Few long strided rows (4 channels of 2 x 128 x 256 = 65536), two sums,
  // one in f64: the rows go over the blocks of a cluster (f64 partials
  // combined through distributed shared memory), as at KernelBench's batch
  // norm size.
  func.func @long_channels(%x: tensor<2x4x128x256xf32>) -> tensor<2x4x128x256xf32> {
    %zero = arith.constant 0.0 : f64
    %zerof = arith.constant 0.0 : f32
    %e4f = tensor.empty() : tensor<4xf32>
    %z4f = linalg.fill ins(%zerof : f32) outs(%e4f : tensor<4xf32>) -> tensor<4xf32>
    %sum = linalg.generic {indexing_maps = [#full4, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x4x128x256xf32>) outs(%z4f : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %e4 = tensor.empty() : tensor<4xf64>
    %z4 = linalg.fill ins(%zero : f64) outs(%e4 : tensor<4xf64>) -> tensor<4xf64>
    %sq = linalg.generic {indexing_maps = [#full4, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x4x128x256xf32>) outs(%z4 : tensor<4xf64>) {
    ^bb0(%in: f32, %acc: f64):
      %w = arith.extf %in : f32 to f64
      %w2 = arith.mulf %w, %w : f64
      %s = arith.addf %w2, %acc : f64
      linalg.yield %s : f64
    } -> tensor<4xf64>
    %e = tensor.empty() : tensor<2x4x128x256xf32>
    %y = linalg.generic {indexing_maps = [#full4, #chan, #chan, #full4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %sum, %sq : tensor<2x4x128x256xf32>, tensor<4xf32>, tensor<4xf64>) outs(%e : tensor<2x4x128x256xf32>) {
    ^bb0(%in: f32, %m: f32, %s: f64, %out: f32):
      %r = arith.truncf %s : f64 to f32
      %d = arith.subf %in, %m : f32
      %n = arith.divf %d, %r : f32
      linalg.yield %n : f32
    } -> tensor<2x4x128x256xf32>
    return %y : tensor<2x4x128x256xf32>
  }

  // A batch norm over (n, c) (BatchNorm1d after a GEMM): the mean and the
  // variance of each column of a 72 x 96 matrix (72 values a row: too many for
  // registers), and x normalized. The
  // innermost loop is a row's: rows interleaved, a thread per row.
  func.func @columns_norm(%x: tensor<72x96xf32>) -> tensor<72x96xf32> {
    %zero = arith.constant 0.0 : f32
    %count = arith.constant 72.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %e = tensor.empty() : tensor<96xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<96xf32>) -> tensor<96xf32>
    %sum = linalg.generic {indexing_maps = [#full2, #col2], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<72x96xf32>) outs(%z : tensor<96xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<96xf32>
    %sq = linalg.generic {indexing_maps = [#full2, #col2, #col2], iterator_types = ["reduction", "parallel"]} ins(%x, %sum : tensor<72x96xf32>, tensor<96xf32>) outs(%z : tensor<96xf32>) {
    ^bb0(%in: f32, %s: f32, %acc: f32):
      %m = arith.divf %s, %count : f32
      %d = arith.subf %in, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %a = arith.addf %d2, %acc : f32
      linalg.yield %a : f32
    } -> tensor<96xf32>
    %ef = tensor.empty() : tensor<72x96xf32>
    %y = linalg.generic {indexing_maps = [#full2, #col2, #col2, #full2], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %sq : tensor<72x96xf32>, tensor<96xf32>, tensor<96xf32>) outs(%ef : tensor<72x96xf32>) {
    ^bb0(%in: f32, %s: f32, %q: f32, %out: f32):
      %m = arith.divf %s, %count : f32
      %var = arith.divf %q, %count : f32
      %ve = arith.addf %var, %eps : f32
      %r = math.rsqrt %ve : f32
      %d = arith.subf %in, %m : f32
      %n = arith.mulf %d, %r : f32
      linalg.yield %n : f32
    } -> tensor<72x96xf32>
    return %y : tensor<72x96xf32>
  }
}
