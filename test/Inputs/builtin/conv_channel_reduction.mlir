// Convolutions whose region ends in a reduction over the output channels
// (the outliner fuses it: agent-outline-fusion.mlir), written by the
// tensor-core kernels with the reduction in their tail
// (builtin-conv-channel-reduction.test, builtin-conv-channel-reduction-emulated.test).
// Sizes are small and not tile multiples. Edges: rows past M in the last
// block, fewer channels than the tile's columns (12 of 64 or 128, not a
// multiple of 8), a bias broadcast as the conv's init as torch-mlir writes it,
// the min (NaN-propagating), a sum and a max of f16 products.

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#minc = affine_map<(n, f, h, w) -> (n, h, w)>
#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
#sumc = affine_map<(n, h, w, f) -> (n, h, w)>

// KernelBench's conv + scale + min over channels in small: 3x3 pad 1 NCHW,
// bias as the init, x 2, then the min; M = 2 x 6 x 18 = 216 rows.
func.func @reduce_min_scale(%x: tensor<2x4x6x18xf32>, %w: tensor<8x4x3x3xf32>,
                            %bias: tensor<8xf32>) -> tensor<2x6x18xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x6x18xf32> to tensor<2x4x8x20xf32>
  %e = tensor.empty() : tensor<2x8x6x18xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<2x8x6x18xf32>) dimensions = [0, 2, 3]
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x4x8x20xf32>, tensor<8x4x3x3xf32>) outs(%b : tensor<2x8x6x18xf32>) -> tensor<2x8x6x18xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x6x18xf32>) outs(%e : tensor<2x8x6x18xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x8x6x18xf32>
  %re = tensor.empty() : tensor<2x6x18xf32>
  %init = linalg.fill ins(%inf : f32) outs(%re : tensor<2x6x18xf32>) -> tensor<2x6x18xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #minc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%s : tensor<2x8x6x18xf32>) outs(%init : tensor<2x6x18xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x6x18xf32>
  return %r : tensor<2x6x18xf32>
}

// NHWC, relu, then the sum over 12 channels.
func.func @reduce_sum_nhwc(%x: tensor<2x10x10x8xf32>, %w: tensor<3x3x8x12xf32>) -> tensor<2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x12xf32>) -> tensor<2x8x8x12xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x8xf32>, tensor<3x3x8x12xf32>) outs(%f : tensor<2x8x8x12xf32>) -> tensor<2x8x8x12xf32>
  %relu = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x8x12xf32>) outs(%e : tensor<2x8x8x12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x12xf32>
  %re = tensor.empty() : tensor<2x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%re : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #sumc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%relu : tensor<2x8x8x12xf32>) outs(%init : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}

// f16 operands summed in f32 (the mma.sync kernels), the max over 40
// channels.
func.func @reduce_max_f16(%x: tensor<2x8x8x16xf16>, %w: tensor<3x3x16x40xf16>) -> tensor<2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x6x6x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6x40xf32>) -> tensor<2x6x6x40xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x8x16xf16>, tensor<3x3x16x40xf16>) outs(%f : tensor<2x6x6x40xf32>) -> tensor<2x6x6x40xf32>
  %re = tensor.empty() : tensor<2x6x6xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%re : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #sumc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c : tensor<2x6x6x40xf32>) outs(%init : tensor<2x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<2x6x6xf32>
  return %r : tensor<2x6x6xf32>
}
