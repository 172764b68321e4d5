// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: x[:, 2:10].exp() and x[1:3] (a plain slice returned as is) with x
// of 4x16 f32: a slice read by a kernel, and a slice copied by a kernel.
func.func @slices(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<2x16xf32>) {
  %s = tensor.extract_slice %x[0, 2] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.exp ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.extract_slice %x[1, 0] [2, 16] [1, 1] : tensor<4x16xf32> to tensor<2x16xf32>
  return %y, %r : tensor<4x8xf32>, tensor<2x16xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @slices(
// LLVM-COUNT-2: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @slices(
// AGENT: llvm.call @slices_region0(

// The whole-program bundle: 2 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs 2 kernels: the region, which reads
// x[:, 2:10] through its map (the slice folded, no copy before it), and the
// copy of the returned slice.
// OUTLINED: "launches"
// OUTLINED-COUNT-2: "kernel":
// OUTLINED-NOT: "kernel":
