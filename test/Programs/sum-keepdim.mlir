// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x.sum(dim=1, keepdim=True) over a 16x64 f32 tensor. The reduction's
// 16 sums are reshaped to 16x1: a view of the result, no copy.
func.func @sum_keepdim(%x: tensor<16x64xf32>) -> tensor<16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.reduce ins(%x : tensor<16x64xf32>) outs(%f : tensor<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %k = tensor.expand_shape %r [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  return %k : tensor<16x1xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @sum_keepdim(
// LLVM-COUNT-2: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @sum_keepdim(
// AGENT: llvm.call @sum_keepdim_region0(

// The whole-program bundle: 2 kernel launches and no copy step, with view0 a
// view of out0 as 16 (the same pointer, another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 2 kernels with 1 views.
// OUTLINED: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-2: "kernel":
