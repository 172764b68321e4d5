// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: nn.LayerNorm(64)(x) over 32x64 f32 with eps 1e-5 and affine
// weight and bias: mean, biased variance, normalize, scale and shift.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @layer_norm(%x: tensor<32x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.reduce ins(%x : tensor<32x64xf32>) outs(%z : tensor<32xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
    }
  %var = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<32x64xf32>, tensor<32xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %sq = arith.mulf %d, %d : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %var, %g, %b : tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<64xf32>, tensor<64xf32>)
      outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %s: f32, %v: f32, %gv: f32, %bv: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %vn = arith.divf %v, %n : f32
    %ve = arith.addf %vn, %eps : f32
    %r = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %h = arith.mulf %d, %r : f32
    %sc = arith.mulf %h, %gv : f32
    %t = arith.addf %sc, %bv : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @layer_norm(
// LLVM-COUNT-4: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @layer_norm(
// AGENT: llvm.call @layer_norm_region0(

// The whole-program bundle: 4 kernel launches and 1 copy steps.
// PLAN: "launches"

// Outlined first, the whole program runs its regions' 5 kernels.
// OUTLINED: "launches"
// OUTLINED-COUNT-5: "kernel":
