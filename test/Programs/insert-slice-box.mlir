// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=PROGRAM < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: out = x.clone(); out[1:3, 4:12] = torch.tanh(y) * s (a slice
// assignment, torch's slice_scatter) with x of 4x16, y of 2x8 and s of 8
// f32: a box inside both dimensions of the destination.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @insert_box(%x: tensor<4x16xf32>, %y: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %s : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%v: f32, %sc: f32, %o: f32):
    %h = math.tanh %v : f32
    %m = arith.mulf %h, %sc : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  %r = tensor.insert_slice %t into %x[1, 4] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// LLVM-LABEL: llvm.func @insert_box(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @insert_box(
// AGENT: llvm.call @insert_box_region0(

// Outlined, the region (a private function) writes the box into its
// argument in place, so the caller passes it a copy of x, never x itself.
// OUTLINED: "launches"
// OUTLINED: "copy": {
// OUTLINED-NEXT: "from": "in0",
// OUTLINED-NEXT: "to": "[[COPY:tmp[0-9]+]]"
// OUTLINED: "args": [
// OUTLINED: "[[COPY]]",
// OUTLINED: "copy": {
// OUTLINED-NEXT: "from": "[[COPY]]",
// OUTLINED-NEXT: "to": "out0"

// The whole program's default lowering: x is the caller's value, so it is
// copied into the output before the box is written there, never written in
// place (the runner rejects a plan that writes into an input buffer).
// PROGRAM: "launches"
// PROGRAM: "copy": {
// PROGRAM-NEXT: "from": "in0",
// PROGRAM-NEXT: "to": "out0"
// PROGRAM: "args": [
// PROGRAM-NEXT: "out0",
// PROGRAM-NEXT: "tmp0"
// PROGRAM-NOT: "in0"

// One kernel: the box's condition in both dimensions, the source read at
// the index less the box's offsets, the destination elsewhere.
// KERNEL: ----- variant flat-v4-t256 -----
// KERNEL: if (i0 >= 1 && i0 < 3 && i1 >= 4 && i1 < 12) {
// KERNEL: ca_vec<float, 4> *>(in0 + ((long long)(((i0) - 1)) * 8 + (((i1) - 4))))
// KERNEL: tanhf
// KERNEL: else {
// KERNEL: ca_vec<float, 4> *>(in2 + ((long long)((i0)) * 16 + ((i1))))
