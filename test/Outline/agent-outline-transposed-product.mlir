// A product's result transposed by a linalg.transpose is the product writing
// the transposed result: its output map permuted (lib/Outline/
// TransposedProducts.cpp), so the product's region has one output of the
// product's own loops and no transpose. Kernels of such a region:
// Generate/builtin-matmul-emulated.test (batched_transposed_result).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s

// torch.bmm(a, b).transpose(1, 2): the fill is remade at the transposed shape.
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @bmm_transposed(
// CHECK-NEXT: call @bmm_transposed_region0(%arg0, %arg1) : (tensor<2x40x24xf32>, tensor<2x24x36xf32>) -> tensor<2x36x40xf32>
// CHECK: func.func private @bmm_transposed_region0(
// CHECK-SAME: kind = "contraction"
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x36x40xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : {{.+}}) outs(%[[FILL]] : tensor<2x36x40xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @bmm_transposed(%a: tensor<2x40x24xf32>, %b: tensor<2x24x36xf32>) -> tensor<2x36x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x36xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x40x24xf32>, tensor<2x24x36xf32>) outs(%acc : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  %et = tensor.empty() : tensor<2x36x40xf32>
  %t = linalg.transpose ins(%p : tensor<2x40x36xf32>) outs(%et : tensor<2x36x40xf32>) permutation = [0, 2, 1]
  return %t : tensor<2x36x40xf32>
}

// -----

// A product whose init is not a fill (a bias broadcast): the init is
// transposed instead, and the product accumulates into it.
// CHECK-DAG: #[[$OUT2:.+]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @bias_init_transposed(
// CHECK: func.func private @bias_init_transposed_region0(
// CHECK: %[[INIT:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x8xf32>) outs(%{{.+}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[$OUT2]]], {{.+}} outs(%[[INIT]] : tensor<8x16xf32>)
func.func @bias_init_transposed(%x: tensor<16x32xf32>, %w: tensor<32x8xf32>, %bias: tensor<8xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %init = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<16x8xf32>) dimensions = [0]
  %p = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  %et = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%p : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) permutation = [1, 0]
  return %t : tensor<8x16xf32>
}

// -----

// The product's result read by another op too: not folded (the product
// would be computed twice), the transpose stays.
// CHECK-LABEL: func.func @product_read_twice(
// CHECK: linalg.transpose
func.func @product_read_twice(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> (tensor<16x8xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  %et = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%p : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) permutation = [1, 0]
  return %p, %t : tensor<16x8xf32>, tensor<8x16xf32>
}
