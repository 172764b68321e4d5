// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: branches of different widths side by side in the last dimension,
// an Inception-style head over rows of features,
//   out = torch.cat([x.exp(), y, torch.tanh(z)], dim=1)
// with x of 8x12, y of 8x4 and z of 8x16 f32: the innermost dimension is
// the concatenated one; its offsets (0, 12, 16) are multiples of 4, so a
// vector of 4 lanes is in one part.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat_unequal_rows(%x: tensor<8x12xf32>, %y: tensor<8x4xf32>, %z: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %e12 = tensor.empty() : tensor<8x12xf32>
  %e16 = tensor.empty() : tensor<8x16xf32>
  %a = linalg.exp ins(%x : tensor<8x12xf32>) outs(%e12 : tensor<8x12xf32>) -> tensor<8x12xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x16xf32>) outs(%e16 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %h = math.tanh %v : f32
    linalg.yield %h : f32
  } -> tensor<8x16xf32>
  %c = tensor.concat dim(1) %a, %y, %t : (tensor<8x12xf32>, tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// LLVM-LABEL: llvm.func @concat_unequal_rows(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @concat_unequal_rows(
// AGENT: llvm.call @concat_unequal_rows_region0(

// OUTLINED: "launches"
// OUTLINED-NOT: "copy"

// The vector variant: each part's branch on the column range.
// KERNEL: ----- variant flat-v4-t256 -----
// KERNEL: if (i1 < 12) {
// KERNEL: expf
// KERNEL: else if (i1 >= 12 && i1 < 16) {
// KERNEL: ca_vec<float, 4> *>(in1 + ((long long)((i0)) * 4 + (((i1) - 12))))
// KERNEL: else {
// KERNEL: tanhf
