// The regions of a blocked inclusive scan, as cuda_agent.export writes
// torch.cumsum and torch.cumprod (python/cuda_agent/_scan.py) and torch-mlir
// lowers them: within each block of 32, element i reduces the elements
// k <= i (a triangular mask of two torch.arange position tensors, i64, one
// reshaped to a column); then each block is combined with the scan of the
// block totals before it (a pad shifts the totals by one block).
#pos = affine_map<(d0) -> (d0)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#blk = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @scan_blocks(%x: tensor<6x8x32xf32>) -> tensor<6x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<32xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<32xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
  %em = tensor.empty() : tensor<32x32xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<32x1xi64>, tensor<32xi64>) outs(%em : tensor<32x32xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %upto = arith.cmpi sge, %i, %k : i64
    linalg.yield %upto : i1
  } -> tensor<32x32xi1>
  %xr = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [6, 8, 1, 32] : tensor<6x8x32xf32> into tensor<6x8x1x32xf32>
  %e4 = tensor.empty() : tensor<6x8x32x32xf32>
  %masked = linalg.generic {indexing_maps = [#mask, #x, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<32x32xi1>, tensor<6x8x1x32xf32>) outs(%e4 : tensor<6x8x32x32xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<6x8x32x32xf32>
  %e3 = tensor.empty() : tensor<6x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e3 : tensor<6x8x32xf32>) -> tensor<6x8x32xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<6x8x32x32xf32>) outs(%acc : tensor<6x8x32xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<6x8x32xf32>
  return %sum : tensor<6x8x32xf32>
}

func.func @scan_blocks_prod(%x: tensor<6x8x32xf32>) -> tensor<6x8x32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<32xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<32xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
  %em = tensor.empty() : tensor<32x32xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<32x1xi64>, tensor<32xi64>) outs(%em : tensor<32x32xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %upto = arith.cmpi sge, %i, %k : i64
    linalg.yield %upto : i1
  } -> tensor<32x32xi1>
  %xr = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [6, 8, 1, 32] : tensor<6x8x32xf32> into tensor<6x8x1x32xf32>
  %e4 = tensor.empty() : tensor<6x8x32x32xf32>
  %masked = linalg.generic {indexing_maps = [#mask, #x, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<32x32xi1>, tensor<6x8x1x32xf32>) outs(%e4 : tensor<6x8x32x32xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %one : f32
    linalg.yield %s : f32
  } -> tensor<6x8x32x32xf32>
  %e3 = tensor.empty() : tensor<6x8x32xf32>
  %acc = linalg.fill ins(%one : f32) outs(%e3 : tensor<6x8x32xf32>) -> tensor<6x8x32xf32>
  %prod = linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<6x8x32x32xf32>) outs(%acc : tensor<6x8x32xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.mulf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<6x8x32xf32>
  return %prod : tensor<6x8x32xf32>
}

func.func @scan_combine(%within: tensor<6x8x32xf32>, %totals: tensor<6x7xf32>) -> tensor<6x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %before = tensor.pad %totals low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<6x7xf32> to tensor<6x8xf32>
  %e3 = tensor.empty() : tensor<6x8x32xf32>
  %out = linalg.generic {indexing_maps = [#id3, #blk, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%within, %before : tensor<6x8x32xf32>, tensor<6x8xf32>) outs(%e3 : tensor<6x8x32xf32>) {
  ^bb0(%w: f32, %b: f32, %o: f32):
    %r = arith.addf %w, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x8x32xf32>
  return %out : tensor<6x8x32xf32>
}

// The block totals' scan: 6 rows of 8 (8 divides 32: four rows per warp,
// most of the block's rows past the last), and 5 rows of 24 (one row per
// warp, its last 8 lanes idle).
#col3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#x3 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @scan_totals(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<8xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<8xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %em = tensor.empty() : tensor<8x8xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<8x1xi64>, tensor<8xi64>) outs(%em : tensor<8x8xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %upto = arith.cmpi sge, %i, %k : i64
    linalg.yield %upto : i1
  } -> tensor<8x8xi1>
  %xr = tensor.expand_shape %x [[0], [1, 2]] output_shape [6, 1, 8] : tensor<6x8xf32> into tensor<6x1x8xf32>
  %e3 = tensor.empty() : tensor<6x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#col3, #x3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<8x8xi1>, tensor<6x1x8xf32>) outs(%e3 : tensor<6x8x8xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<6x8x8xf32>
  %e2 = tensor.empty() : tensor<6x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x8xf32>) -> tensor<6x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<6x8x8xf32>) outs(%acc : tensor<6x8xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<6x8xf32>
  return %sum : tensor<6x8xf32>
}

// Many rows of 8 (4100, not a whole number of blocks): the unrolled variants.
func.func @scan_many_rows(%x: tensor<4100x8xf32>) -> tensor<4100x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<8xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<8xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %em = tensor.empty() : tensor<8x8xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<8x1xi64>, tensor<8xi64>) outs(%em : tensor<8x8xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %upto = arith.cmpi sge, %i, %k : i64
    linalg.yield %upto : i1
  } -> tensor<8x8xi1>
  %xr = tensor.expand_shape %x [[0], [1, 2]] output_shape [4100, 1, 8] : tensor<4100x8xf32> into tensor<4100x1x8xf32>
  %e3 = tensor.empty() : tensor<4100x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#col3, #x3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<8x8xi1>, tensor<4100x1x8xf32>) outs(%e3 : tensor<4100x8x8xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4100x8x8xf32>
  %e2 = tensor.empty() : tensor<4100x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4100x8xf32>) -> tensor<4100x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<4100x8x8xf32>) outs(%acc : tensor<4100x8xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<4100x8xf32>
  return %sum : tensor<4100x8xf32>
}

func.func @scan_rows_24(%x: tensor<5x24xf32>) -> tensor<5x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<24xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<24xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [24, 1] : tensor<24xi64> into tensor<24x1xi64>
  %em = tensor.empty() : tensor<24x24xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<24x1xi64>, tensor<24xi64>) outs(%em : tensor<24x24xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %upto = arith.cmpi sge, %i, %k : i64
    linalg.yield %upto : i1
  } -> tensor<24x24xi1>
  %xr = tensor.expand_shape %x [[0], [1, 2]] output_shape [5, 1, 24] : tensor<5x24xf32> into tensor<5x1x24xf32>
  %e3 = tensor.empty() : tensor<5x24x24xf32>
  %masked = linalg.generic {indexing_maps = [#col3, #x3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<24x24xi1>, tensor<5x1x24xf32>) outs(%e3 : tensor<5x24x24xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<5x24x24xf32>
  %e2 = tensor.empty() : tensor<5x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5x24xf32>) -> tensor<5x24xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<5x24x24xf32>) outs(%acc : tensor<5x24xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<5x24xf32>
  return %sum : tensor<5x24xf32>
}

// Not a scan: the mask is k < i (an exclusive triangle), which the scan
// strategy does not take; the row kernels do.
func.func @strict_triangle(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi64>
  %pos = linalg.generic {indexing_maps = [#pos], iterator_types = ["parallel"]} outs(%e : tensor<8xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<8xi64>
  %column = tensor.expand_shape %pos [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %em = tensor.empty() : tensor<8x8xi1>
  %mask = linalg.generic {indexing_maps = [#col, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%column, %pos : tensor<8x1xi64>, tensor<8xi64>) outs(%em : tensor<8x8xi1>) {
  ^bb0(%i: i64, %k: i64, %o: i1):
    %before = arith.cmpi sgt, %i, %k : i64
    linalg.yield %before : i1
  } -> tensor<8x8xi1>
  %xr = tensor.expand_shape %x [[0], [1, 2]] output_shape [6, 1, 8] : tensor<6x8xf32> into tensor<6x1x8xf32>
  %e3 = tensor.empty() : tensor<6x8x8xf32>
  %masked = linalg.generic {indexing_maps = [#col3, #x3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %xr : tensor<8x8xi1>, tensor<6x1x8xf32>) outs(%e3 : tensor<6x8x8xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<6x8x8xf32>
  %e2 = tensor.empty() : tensor<6x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x8xf32>) -> tensor<6x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%masked : tensor<6x8x8xf32>) outs(%acc : tensor<6x8xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<6x8xf32>
  return %sum : tensor<6x8xf32>
}
