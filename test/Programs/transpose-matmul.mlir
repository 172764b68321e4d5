// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x @ w.T with x 16x32 and w 24x32 f32 (nn.Linear without bias,
// weight stored out x in): a transpose kernel, then the matmul.
func.func @transpose_matmul(%x: tensor<16x32xf32>, %w: tensor<24x32xf32>) -> tensor<16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<32x24xf32>
  %wt = linalg.transpose ins(%w : tensor<24x32xf32>) outs(%et : tensor<32x24xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %m = linalg.matmul ins(%x, %wt : tensor<16x32xf32>, tensor<32x24xf32>) outs(%f : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %m : tensor<16x24xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @transpose_matmul(
// LLVM-COUNT-3: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @transpose_matmul(
// AGENT: llvm.call @transpose_matmul_region0(

// The whole-program bundle: 3 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 3 kernels.
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
