// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: torch.softmax(x, dim=1) over 16x100 f32.
func.func @softmax(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %e = tensor.empty() : tensor<16x100xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<16x100xf32>) outs(%e : tensor<16x100xf32>) -> tensor<16x100xf32>
  return %s : tensor<16x100xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @softmax(
// LLVM-COUNT-6: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @softmax(
// AGENT: llvm.call @softmax_region0(

// The whole-program bundle: 6 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 6 kernels.
// OUTLINED: "launches"
// OUTLINED-COUNT-6: "kernel":
