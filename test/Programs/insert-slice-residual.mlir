// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | FileCheck %s --check-prefix=OUTLINE
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: out = x.clone(); out[:, :8] += y (an in-place update of a slice)
// with x of 4x16 and y of 4x8 f32: a slice, an add, and an insert_slice
// written back by a copy kernel; linalg.copy makes the clone.
func.func @insert_slice_residual(%x: tensor<4x16xf32>, %y: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %eo = tensor.empty() : tensor<4x16xf32>
  %out = linalg.copy ins(%x : tensor<4x16xf32>) outs(%eo : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.add ins(%s, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.insert_slice %a into %out[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @insert_slice_residual(
// LLVM-COUNT-3: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @insert_slice_residual(
// AGENT: llvm.call @insert_slice_residual_region0(

// The whole-program bundle: 3 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, one region holds the clone, the add (reading x's first 8
// columns through a view of x split in two halves, no copy of the slice)
// and the insert_slice, its output (lib/Outline/Assemblies.cpp).
// OUTLINE-LABEL: func.func @insert_slice_residual(
// OUTLINE: call @insert_slice_residual_region0(
// OUTLINE-NEXT: return
// OUTLINE-LABEL: func.func private @insert_slice_residual_region0(
// OUTLINE: linalg.generic
// OUTLINE: linalg.copy
// OUTLINE: tensor.insert_slice

// The region's default lowering runs 3 kernels: the clone, the add and the
// write-back of the insert_slice.
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
// OUTLINED-NOT: "kernel":

// The builtin agent's kernel writes each element once: x + y on the box,
// x elsewhere.
// KERNEL: ----- variant flat-v4-t256 -----
// KERNEL: if (i1 < 8) {
// KERNEL: (v0.v[0] + v1.v[0])
// KERNEL: else {
// KERNEL: in2 + ((long long)((i0)) * 16 + ((i1)))
