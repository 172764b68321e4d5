// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x + bias.unsqueeze(0) with x of 8x16 and bias of 16 f32, then
// .view(2, 4, 16): an unsqueeze view feeding a kernel and a view of the result.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row0 = affine_map<(d0, d1) -> (0, d1)>
func.func @unsqueeze_add_view(%x: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %u = tensor.expand_shape %bias [[0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row0, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %u : tensor<8x16xf32>, tensor<1x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %v = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  return %v : tensor<2x4x16xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @unsqueeze_add_view(
// LLVM-COUNT-1: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @unsqueeze_add_view(
// AGENT: llvm.call @unsqueeze_add_view_region0(

// The whole-program bundle: 1 kernel launch and no copy step, with view0 a
// view of in1 as 1x16, view1 a view of out0 as 8x16 (the same pointer, another
// shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "in1"
// PLAN:      "name": "view1",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first (the unit dimension dropped from the generic, so the bias is
// read through its map), the whole program runs its region's 1 kernel with 1
// view: the output seen as 8x16.
// OUTLINED: "role": "view",
// OUTLINED-NOT: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-1: "kernel":
