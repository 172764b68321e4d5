// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x * rsqrt(mean(x^2, dim=-1, keepdim=True) + 1e-6) * weight over
// 4x8x64 f32: the batch dims are flattened (a view) around the row kernels.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @rms_norm(%x3: tensor<4x8x64xf32>, %w: tensor<64xf32>) -> tensor<4x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<4x8x64xf32> into tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<32x64xf32>, tensor<32xf32>, tensor<64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %s: f32, %wv: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %me = arith.addf %m, %eps : f32
    %r = math.rsqrt %me : f32
    %h = arith.mulf %a, %r : f32
    %t = arith.mulf %h, %wv : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [4, 8, 64] : tensor<32x64xf32> into tensor<4x8x64xf32>
  return %y3 : tensor<4x8x64xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @rms_norm(
// LLVM-COUNT-3: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @rms_norm(
// AGENT: llvm.call @rms_norm_region0(

// The whole-program bundle: 3 kernel launches and no copy step, with view0 a
// view of in0 as 32x64, view1 a view of out0 as 32x64 (the same pointer,
// another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "in0"
// PLAN:      "name": "view1",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 3 kernels with 2 views.
// OUTLINED: "role": "view",
// OUTLINED: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
