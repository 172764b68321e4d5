// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x.mean(dim=-1, keepdim=True) over 8x16x32 f32, then x - mean
// (centering): the keepdim result is read back broadcast.
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @center_last_dim(%x: tensor<8x16x32xf32>) -> tensor<8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = linalg.reduce ins(%x : tensor<8x16x32xf32>) outs(%f : tensor<8x16xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %n : f32
    linalg.yield %d : f32
  } -> tensor<8x16xf32>
  %k = tensor.expand_shape %m [[0], [1, 2]] output_shape [8, 16, 1] : tensor<8x16xf32> into tensor<8x16x1xf32>
  %e3 = tensor.empty() : tensor<8x16x32xf32>
  %c = linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %k : tensor<8x16x32xf32>, tensor<8x16x1xf32>) outs(%e3 : tensor<8x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x16x32xf32>
  return %c : tensor<8x16x32xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @center_last_dim(
// LLVM-COUNT-4: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @center_last_dim(
// AGENT: llvm.call @center_last_dim_region0(

// The whole-program bundle: 4 kernel launches and no copy step, with view0 a
// view of tmp0 as 8x16x1 (the same pointer, another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "tmp0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the unit dimension is dropped from the generics, so the
// regions pass the 8x16 means in temporaries and need no view.
// OUTLINED-NOT: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-4: "kernel":
