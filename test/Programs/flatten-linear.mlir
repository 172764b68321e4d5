// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: nn.Linear(64, 32)(x.flatten(1)) with x of 4x8x8 f32: the flatten is
// a view of the input, the linear a matmul plus bias.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @flatten_linear(%x: tensor<4x8x8xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<4x8x8xf32> into tensor<4x64xf32>
  %e = tensor.empty() : tensor<4x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %m = linalg.matmul ins(%flat, %w : tensor<4x64xf32>, tensor<64x32xf32>) outs(%f : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<4x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @flatten_linear(
// LLVM-COUNT-3: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @flatten_linear(
// AGENT: llvm.call @flatten_linear_region0(

// The whole-program bundle: 3 kernel launches and no copy step, with view0 a
// view of in0 as 4x64 (the same pointer, another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "in0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 3 kernels with 1 views.
// OUTLINED: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
