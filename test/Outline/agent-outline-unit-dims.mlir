// torch-mlir keeps reduced dimensions as size-1 dimensions (keepdim): the
// softmax's max is expanded to 16x1 by a tensor.expand_shape and the sum is
// written into a 16x1 tensor read through (d0, d1) -> (d0, 0). The outliner
// drops those dimensions from the generics first, so the reshape folds away
// and the softmax is one row region, which the builtin agent's row strategy
// writes one-pass kernels for. Named ops keep their unit dimensions (but for
// contractions with a unit batch, row or column: agent-outline-rank-reduce.mlir).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>&1 | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline -o %t.mlir
// RUN: cuda-agent-opt %t.mlir --split-input-file --agent-test-builtin-variants="strategy=rows" -o /dev/null | FileCheck %s --check-prefix=ROWS

// CHECK-NOT: remark: kept outside
// CHECK-LABEL: func.func @softmax_keepdim(
// CHECK-NEXT: call @softmax_keepdim_region0(%arg0)
// CHECK-NEXT: return
// CHECK-NOT: expand_shape
// CHECK: func.func private @softmax_keepdim_region0(%arg0: tensor<16x100xf32>) -> tensor<16x100xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs({{.*}} : tensor<16xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs({{.*}} : tensor<16xf32>)
// CHECK: arith.divf
// ROWS: ===== rows variants of @softmax_keepdim_region0 =====
// ROWS: ----- variant rows-
// ROWS: extern "C" __global__
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @softmax_keepdim(%arg0: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<16xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16xf32>) -> tensor<16xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<16x100xf32>) outs(%3 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<16xf32>
  %expanded = tensor.expand_shape %4 [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %5 = tensor.empty() : tensor<16x100xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<16x100xf32>, tensor<16x1xf32>) outs(%5 : tensor<16x100xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.subf %in, %in_1 : f32
    %13 = math.exp %12 : f32
    linalg.yield %13 : f32
  } -> tensor<16x100xf32>
  %8 = tensor.empty() : tensor<16x1xf32>
  %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<16x1xf32>) -> tensor<16x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<16x100xf32>) outs(%9 : tensor<16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %in, %out : f32
    linalg.yield %12 : f32
  } -> tensor<16x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %10 : tensor<16x100xf32>, tensor<16x1xf32>) outs(%5 : tensor<16x100xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %12 = arith.divf %in, %in_1 : f32
    linalg.yield %12 : f32
  } -> tensor<16x100xf32>
  return %11 : tensor<16x100xf32>
}

// -----

// A batch-1 convolution keeps its named form and its unit dimension (a
// contraction with a unit batch is rank-reduced instead:
// agent-outline-rank-reduce.mlir).
// CHECK-LABEL: func.func private @conv_batch_one_region0(
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} tensor<1x6x6x8xf32>
func.func @conv_batch_one(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

// -----

// A softmax after a linear layer, as torch-mlir writes it: the subtraction
// of the row's max and the division by its sum read keepdim values, so they
// are no epilogue of the product (which cannot fuse them) and lose their
// unit dimensions like any other generic: the product is one region and the
// whole softmax one row region, with no 16x1 tensor left in it.
// CHECK-NOT: remark: kept outside
// CHECK-LABEL: func.func @linear_softmax(
// CHECK-NEXT: %[[Y:.*]] = call @linear_softmax_region0(
// CHECK-NEXT: %[[P:.*]] = call @linear_softmax_region1(%[[Y]])
// CHECK-NEXT: return %[[P]]
// CHECK: func.func private @linear_softmax_region0({{.*}}kind = "contraction"
// CHECK: func.func private @linear_softmax_region1(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {{.*}}kind = "reduction"
// CHECK-NOT: 16x1xf32
// CHECK: return
// ROWS: ===== rows variants of @linear_softmax_region1 =====
// ROWS: ----- variant rows-
#lin = affine_map<(d0, d1) -> (d0, d1)>
#lin_col = affine_map<(d0, d1) -> (d1)>
#lin_row = affine_map<(d0, d1) -> (d0)>
#lin_keep = affine_map<(d0, d1) -> (d0, 0)>
func.func @linear_softmax(%w: tensor<32x64xf32>, %b: tensor<32xf32>, %x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %et = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%et : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %bb = linalg.generic {indexing_maps = [#lin_col, #lin], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#lin, #lin, #lin], iterator_types = ["parallel", "parallel"]} ins(%mm, %bb : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %em = tensor.empty() : tensor<16xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [#lin, #lin_row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<16x32xf32>) outs(%fm : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %maxk = tensor.expand_shape %max [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %d = linalg.generic {indexing_maps = [#lin, #lin_keep, #lin], iterator_types = ["parallel", "parallel"]} ins(%y, %maxk : tensor<16x32xf32>, tensor<16x1xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.subf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %x2 = linalg.generic {indexing_maps = [#lin, #lin], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %es = tensor.empty() : tensor<16x1xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<16x1xf32>) -> tensor<16x1xf32>
  %sum = linalg.generic {indexing_maps = [#lin, #lin_keep], iterator_types = ["parallel", "reduction"]} ins(%x2 : tensor<16x32xf32>) outs(%fs : tensor<16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<16x1xf32>
  %p = linalg.generic {indexing_maps = [#lin, #lin_keep, #lin], iterator_types = ["parallel", "parallel"]} ins(%x2, %sum : tensor<16x32xf32>, tensor<16x1xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %q = arith.divf %in, %in_1 : f32
    linalg.yield %q : f32
  } -> tensor<16x32xf32>
  return %p : tensor<16x32xf32>
}

// -----

// A keepdim sum after a linear layer's epilogue (KernelBench's Gemm +
// Sigmoid + Sum): the grouping never fuses a reduction into a contraction's
// region, so the sum is no part of the product's neighbourhood and loses its
// unit dimension: a row region writing 16 values, viewed as 16x1 in the
// caller. (A reduction after a convolution keeps it: a min over the output
// channels fuses into the convolution's region, conv-scale-min.mlir.)
// CHECK-NOT: remark: kept outside
// CHECK-LABEL: func.func @linear_sigmoid_sum(
// CHECK-NEXT: %[[Y:.*]] = call @linear_sigmoid_sum_region0(
// CHECK-NEXT: %[[S:.*]] = call @linear_sigmoid_sum_region1(%[[Y]])
// CHECK-NEXT: %[[K:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
// CHECK-NEXT: return %[[K]]
// CHECK: func.func private @linear_sigmoid_sum_region0({{.*}}kind = "contraction"
// CHECK: math.exp
// CHECK: func.func private @linear_sigmoid_sum_region1(%arg0: tensor<16x32xf32>) -> tensor<16xf32> {{.*}}kind = "reduction"
// CHECK-NOT: 16x1xf32
// CHECK: return
// ROWS: ===== rows variants of @linear_sigmoid_sum_region1 =====
// ROWS: ----- variant rows-
#sig = affine_map<(d0, d1) -> (d0, d1)>
#sig_keep = affine_map<(d0, d1) -> (d0, 0)>
func.func @linear_sigmoid_sum(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x1xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %sg = linalg.generic {indexing_maps = [#sig, #sig], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %x2 = math.exp %n : f32
    %d = arith.addf %x2, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  %es = tensor.empty() : tensor<16x1xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<16x1xf32>) -> tensor<16x1xf32>
  %sum = linalg.generic {indexing_maps = [#sig, #sig_keep], iterator_types = ["parallel", "reduction"]} ins(%sg : tensor<16x32xf32>) outs(%fs : tensor<16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<16x1xf32>
  return %sum : tensor<16x1xf32>
}

// -----

// A mean over the pixels after a pooling (KernelBench's max pool then adaptive
// average pooling to 1x1): the pooling's window has no channels, so the sum is
// no reduction the grouping fuses into the pooling's region; it loses its
// keepdim dimensions like any other reduction, and the division joins it in
// one row region of 16 rows of 16 pixels.
// CHECK-LABEL: func.func @pool_then_mean(
// CHECK-NEXT: %[[P:.*]] = call @pool_then_mean_region0(
// CHECK-NEXT: %[[M:.*]] = call @pool_then_mean_region1(%[[P]])
// CHECK: func.func private @pool_then_mean_region0({{.*}}kind = "convolution"
// CHECK: func.func private @pool_then_mean_region1(%arg0: tensor<2x8x4x4xf32>) -> tensor<2x8xf32> {{.*}}kind = "reduction"
// CHECK-NOT: 2x8x1x1xf32
// CHECK: arith.divf
// CHECK: return
// ROWS: ===== rows variants of @pool_then_mean_region1 =====
// ROWS: ----- variant rows-
#p4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#p4_keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @pool_then_mean(%x: tensor<2x8x8x8xf32>) -> tensor<2x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %count = arith.constant 1.600000e+01 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %win : tensor<2x8x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %es = tensor.empty() : tensor<2x8x1x1xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  %sum = linalg.generic {indexing_maps = [#p4, #p4_keep], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%pool : tensor<2x8x4x4xf32>) outs(%fs : tensor<2x8x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x8x1x1xf32>
  %mean = linalg.generic {indexing_maps = [#p4, #p4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<2x8x1x1xf32>) outs(%es : tensor<2x8x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  } -> tensor<2x8x1x1xf32>
  %c = tensor.collapse_shape %mean [[0], [1, 2, 3]] : tensor<2x8x1x1xf32> into tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}
