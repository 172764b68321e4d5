// RUN: cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-test-builtin-variants="strategy=conv" -o /dev/null | FileCheck %s
// RUN: rm -rf %t && cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-generate="samples=8 db=none verify=bundle:%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEN

// The conv strategy's kernels sum input x filter products (Conv.cpp checks
// the body with linalg's isContractionBody): generics with a convolution's
// maps and another body (a max pooling, a sum pooling, whose filter only
// gives the window's shape, and a max of products) get no candidate and the
// reason, and keep their default lowering.

func.func @pool_nchw_max(%x: tensor<1x4x10x10xf32>, %window: tensor<3x3xf32>) -> tensor<1x4x8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<1x4x10x10xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

func.func @pool_nhwc_sum(%x: tensor<2x10x10x8xf32>, %window: tensor<3x3xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<2x10x10x8xf32>, tensor<3x3xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %r : tensor<2x8x8x8xf32>
}

// conv_2d_nhwc_hwcf's maps, the products combined by max instead of a sum.
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @max_of_products(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x12xf32>) -> tensor<1x8x8x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x12xf32>) -> tensor<1x8x8x12xf32>
  %r = linalg.generic {indexing_maps = [#in, #filter, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x12xf32>) outs(%f : tensor<1x8x8x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %m = arith.maximumf %o, %p : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x12xf32>
  return %r : tensor<1x8x8x12xf32>
}

// CHECK-LABEL: // ===== conv variants of @pool_nchw_max_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add of its input and filter (a pooling's max or sum) is not written yet
// CHECK-LABEL: // ===== conv variants of @pool_nhwc_sum_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add
// CHECK-LABEL: // ===== conv variants of @max_of_products_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add

// GEN: @pool_nchw_max_region0 (convolution, {{.*}}): default: agent builtin: a convolution whose body is not a multiply-add
// GEN: @pool_nhwc_sum_region0 (convolution, {{.*}}): default: agent builtin: a convolution whose body is not a multiply-add
// GEN: @max_of_products_region0 (convolution, {{.*}}): default: agent builtin: a convolution whose body is not a multiply-add
// GEN: 0 job(s)
