// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: torch.cat([x.exp(), x.relu()], dim=1) with x of 8x16 f32: two
// branches written into the two halves of one result, by copy kernels in
// the default lowering; outlined, one region whose builtin kernel computes
// both halves in place.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat_branches(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.exp ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %c = tensor.concat dim(1) %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @concat_branches(
// LLVM-COUNT-4: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @concat_branches(
// AGENT: llvm.call @concat_branches_region0(

// The whole-program bundle: 4 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, one region holds both branches and the concatenation;
// its default lowering (the fallback when no agent kernel is verified) runs
// a kernel per branch and a copy kernel per half, with no copy step. The
// builtin agent's kernel for the region writes each element once
// (builtin-emulated.test: concat_branches).
// OUTLINED: "launches"
// OUTLINED-COUNT-4: "kernel":
// OUTLINED-NOT: "kernel":
// OUTLINED-NOT: "copy"
