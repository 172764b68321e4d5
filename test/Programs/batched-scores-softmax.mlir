// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: softmax(q @ k.transpose(-1, -2) * 0.125, dim=-1) with q, k of
// 2x16x64 f32 (attention scores of 2 heads): a batched matmul against a
// transposed key, scaled, then a softmax over the flattened batch rows.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @attention_scores(%q: tensor<2x16x64xf32>, %k: tensor<2x16x64xf32>) -> tensor<2x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %et = tensor.empty() : tensor<2x64x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x16x64xf32>) outs(%et : tensor<2x64x16xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<2x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x16x64xf32>, tensor<2x64x16xf32>) outs(%f : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sc = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e : tensor<2x16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x16x16xf32>
  %rows = tensor.collapse_shape %sc [[0, 1], [2]] : tensor<2x16x16xf32> into tensor<32x16xf32>
  %er = tensor.empty() : tensor<32x16xf32>
  %p = linalg.softmax dimension(1) ins(%rows : tensor<32x16xf32>) outs(%er : tensor<32x16xf32>) -> tensor<32x16xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 16, 16] : tensor<32x16xf32> into tensor<2x16x16xf32>
  return %y : tensor<2x16x16xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @attention_scores(
// LLVM-COUNT-10: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @attention_scores(
// AGENT: llvm.call @attention_scores_region0(

// The whole-program bundle: 10 kernel launches and no copy step, with view0 a
// view of tmp1 as 32x16, view1 a view of out0 as 32x16 (the same pointer,
// another shape).
// PLAN:      "name": "view0",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "tmp1"
// PLAN:      "name": "view1",
// PLAN-NEXT: "role": "view",
// PLAN:      "view_of": "out0"
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 10 kernels with 2 views.
// OUTLINED: "role": "view",
// OUTLINED: "role": "view",
// OUTLINED: "launches"
// OUTLINED-COUNT-10: "kernel":
