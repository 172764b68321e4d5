// RUN: cuda-agent-opt %s --agent-outline --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// Outlined regions are ordinary functions on tensors: one-shot-bufferize
// turns them into functions on identity-layout memrefs, and the calls into
// calls on buffers.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mlp_layer(%x: tensor<32x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x128xf32>)
                     outs(%f : tensor<32x128xf32>) -> tensor<32x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<32x128xf32>, tensor<128xf32>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<32x128xf32>
  %s = linalg.softmax dimension(1) ins(%r : tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %s : tensor<32x128xf32>
}
// CHECK-LABEL: func.func @mlp_layer(
//  CHECK-SAME:     %[[X:.+]]: memref<32x64xf32>, %[[W:.+]]: memref<64x128xf32>, %[[B:.+]]: memref<128xf32>) -> memref<32x128xf32>
//  CHECK-NEXT:   %[[H:.+]] = call @mlp_layer_region0(%[[X]], %[[W]], %[[B]]) : (memref<32x64xf32>, memref<64x128xf32>, memref<128xf32>) -> memref<32x128xf32>
//  CHECK-NEXT:   %[[S:.+]] = call @mlp_layer_region1(%[[H]]) : (memref<32x128xf32>) -> memref<32x128xf32>
//  CHECK-NEXT:   return %[[S]]
// CHECK-LABEL: func.func private @mlp_layer_region0(
//  CHECK-SAME:     memref<32x64xf32>, %{{.+}}: memref<64x128xf32>, %{{.+}}: memref<128xf32>) -> memref<32x128xf32>
//  CHECK-SAME:     cuda_agent.region
//       CHECK:   memref.alloc() {{.*}}: memref<32x128xf32>
//       CHECK:   linalg.matmul ins(%{{.+}}, %{{.+}} : memref<32x64xf32>, memref<64x128xf32>)
//   CHECK-NOT:   tensor<
//       CHECK:   return
// CHECK-LABEL: func.func private @mlp_layer_region1(
//  CHECK-SAME:     memref<32x128xf32>) -> memref<32x128xf32>
//   CHECK-NOT:   tensor<
//       CHECK:   return
