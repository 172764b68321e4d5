// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x.view(6, 4).relu().view(24).view(4, 6) on a 2x3x4 f32 input: a
// chain of views around one kernel, at the input and at the result.
func.func @view_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %a = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  %flat = tensor.collapse_shape %r [[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
  %y = tensor.expand_shape %flat [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @view_chain(
// LLVM-COUNT-1: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @view_chain(
// AGENT: llvm.call @view_chain_region0(

// The whole-program bundle: 1 kernel launch and no copy step, with view0 a
// view of in0 as 6x4, view1 a view of out0 as 24, view2 a view of out0 as 6x4
// (the same pointer, another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "in0"
// PLAN:      "name": "view1",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN:      "name": "view2",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 1 kernel with 3 views.
// OUTLINED: "role": "view",
// OUTLINED: "role": "view",
// OUTLINED: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-1: "kernel":
