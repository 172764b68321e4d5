// RUN: %mlir_opt %s --load-pass-plugin=%cuda_agent_lib/CudaAgentPlugin.so --pass-pipeline='builtin.module(agent-outline)' | FileCheck %s
// RUN: %mlir_opt %s --load-pass-plugin=%cuda_agent_lib/CudaAgentPlugin.so --pass-pipeline='builtin.module(agent-outline{fusion=none})' | FileCheck %s --check-prefix=NONE

// Stock mlir-opt runs agent-outline from the plugin, options included.

#id = affine_map<(d0) -> (d0)>
func.func @exp_relu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
// CHECK-LABEL: func.func @exp_relu(
//  CHECK-NEXT:   %[[R:.+]] = call @exp_relu_region0(%{{.+}})
//  CHECK-NEXT:   return %[[R]]
// CHECK-LABEL: func.func private @exp_relu_region0(
//  CHECK-SAME:     cuda_agent.region = {bytes = 8192 : i64, flops = 2048 : i64, hash = "{{[0-9a-f]{64}"}}, kind = "elementwise"}
//       CHECK:   linalg.exp
//       CHECK:   arith.maximumf

// NONE-LABEL: func.func @exp_relu(
//  NONE-NEXT:   %[[A:.+]] = call @exp_relu_region0(%{{.+}})
//  NONE-NEXT:   %[[R:.+]] = call @exp_relu_region1(%[[A]])
//  NONE-NEXT:   return %[[R]]
