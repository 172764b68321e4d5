// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: out = torch.zeros(6, 16); out[1:5, 4:12] = x.exp() with x of 4x8
// f32: a computed value inserted into a zero fill (a pad written as a slice
// update). The fill is cloned into the region as a splat, the destination
// part is the literal zero.
func.func @insert_zeros(%x: tensor<4x8xf32>) -> tensor<6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %eo = tensor.empty() : tensor<6x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%eo : tensor<6x16xf32>) -> tensor<6x16xf32>
  %r = tensor.insert_slice %a into %z[1, 4] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}

// LLVM-LABEL: llvm.func @insert_zeros(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @insert_zeros(
// AGENT: llvm.call @insert_zeros_region0(

// KERNEL: ----- variant flat-v4-t256 -----
// KERNEL: if (i0 >= 1 && i0 < 5 && i1 >= 4 && i1 < 12) {
// KERNEL: expf
// KERNEL: else {
// KERNEL-NEXT: {
// KERNEL-NEXT: ca_vec<float, 4> s;
// KERNEL-NEXT: s.v[0] = (float)(__int_as_float(0x00000000));
