// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x @ w with x 48x64, w 64x1 f32 (KernelBench level 1 "Matrix vector
// multiplication" as torch writes it: a matmul whose second operand has one
// column). Outlined, it is a matvec over w's column, its reshapes views.
func.func @matmul_one_column(%x: tensor<48x64xf32>, %w: tensor<64x1xf32>) -> tensor<48x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x1xf32>) -> tensor<48x1xf32>
  %m = linalg.matmul ins(%x, %w : tensor<48x64xf32>, tensor<64x1xf32>) outs(%f : tensor<48x1xf32>) -> tensor<48x1xf32>
  return %m : tensor<48x1xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @matmul_one_column(
// LLVM-COUNT-2: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @matmul_one_column(
// AGENT: llvm.call @matmul_one_column_region0(

// The whole-program bundle: 2 kernel launches (fill, matmul) and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the matvec region's 2 kernels read w's column through a
// view of in1 and write the result through a view of out0.
// OUTLINED:      "role": "view",
// OUTLINED-NEXT: "shape": [
// OUTLINED-NEXT: 64
// OUTLINED-NEXT: ],
// OUTLINED-NEXT: "view_of": "in1"
// OUTLINED:      "role": "view",
// OUTLINED:      "view_of": "out0"
// OUTLINED: "launches"
// OUTLINED-COUNT-2: "kernel":
// OUTLINED-NOT: "kernel":
