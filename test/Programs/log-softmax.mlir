// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: torch.log_softmax(x, dim=1) over 16x100 f32: x - max - log(sum(exp(x - max))).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @log_softmax(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.reduce ins(%x : tensor<16x100xf32>) outs(%m0 : tensor<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %t = arith.maximumf %a, %b : f32
      linalg.yield %t : f32
    }
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<16x100xf32>, tensor<16xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %x2 = math.exp %d : f32
    %t = arith.addf %x2, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %e = tensor.empty() : tensor<16x100xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<16x100xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %l = math.log %c : f32
    %r = arith.subf %d, %l : f32
    linalg.yield %r : f32
  } -> tensor<16x100xf32>
  return %y : tensor<16x100xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @log_softmax(
// LLVM-COUNT-5: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @log_softmax(
// AGENT: llvm.call @log_softmax_region0(

// The whole-program bundle: 5 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 5 kernels.
// OUTLINED: "launches"
// OUTLINED-COUNT-5: "kernel":
