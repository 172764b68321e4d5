// RUN: cuda-agent-opt %s --agent-outline --agent-default-lowering="host=gpu" | FileCheck %s --implicit-check-not=scf. --implicit-check-not=memref.load --implicit-check-not=memref.alloc

// The private region functions of agent-outline lower like any other: their
// results become out-params, the caller allocates them on the device and
// calls the regions, and each region launches its own kernels. The last
// region writes the caller's out-parameter itself: no copy.

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
//  CHECK-SAME:     %[[X:.+]]: memref<32x64xf32>, %[[W:.+]]: memref<64x128xf32>, %[[B:.+]]: memref<128xf32>, %[[OUT:.+]]: memref<32x128xf32>)
//       CHECK:   %[[H:.+]] = gpu.alloc () : memref<32x128xf32>
//       CHECK:   call @mlp_layer_region0(%[[X]], %[[W]], %[[B]], %[[H]])
//  CHECK-NEXT:   call @mlp_layer_region1(%[[H]], %[[OUT]])
//  CHECK-NEXT:   gpu.dealloc %[[H]]
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @mlp_layer_region0(
//  CHECK-SAME:     memref<32x64xf32>, %{{.+}}: memref<64x128xf32>, %{{.+}}: memref<128xf32>, %{{.+}}: memref<32x128xf32>)
//  CHECK-SAME:     cuda_agent.region
//       CHECK:   gpu.launch_func @mlp_layer_region0_kernel::@mlp_layer_region0_kernel
//       CHECK:   return
//       CHECK: gpu.binary @mlp_layer_region0_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"
// CHECK-LABEL: func.func private @mlp_layer_region1(
//  CHECK-SAME:     memref<32x128xf32>, %{{.+}}: memref<32x128xf32>)
//       CHECK:   gpu.launch_func @mlp_layer_region1_kernel::@mlp_layer_region1_kernel
//       CHECK:   return
//       CHECK: gpu.binary @mlp_layer_region1_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"
