// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | FileCheck %s --check-prefix=OUTLINE
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: a DenseNet layer's start over NCHW x of 2x8x6x6 and new features f
// of 2x4x6x6 f32,
//   y = torch.cat([x, f], dim=1); z = torch.relu(y * s + b)
// with s and b per channel (12), y returned for the next layer: the batch
// norm and ReLU read the concatenation elementwise, at the element they
// write.
#x4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @concat_then_norm(%x: tensor<2x8x6x6xf32>, %f: tensor<2x4x6x6xf32>, %s: tensor<12xf32>, %b: tensor<12xf32>) -> (tensor<2x12x6x6xf32>, tensor<2x12x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %y = tensor.concat dim(1) %x, %f : (tensor<2x8x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x12x6x6xf32>
  %e = tensor.empty() : tensor<2x12x6x6xf32>
  %z = linalg.generic {indexing_maps = [#x4, #ch, #ch, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s, %b : tensor<2x12x6x6xf32>, tensor<12xf32>, tensor<12xf32>) outs(%e : tensor<2x12x6x6xf32>) {
  ^bb0(%v: f32, %sc: f32, %bi: f32, %o: f32):
    %m = arith.mulf %v, %sc : f32
    %a = arith.addf %m, %bi : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x12x6x6xf32>
  return %y, %z : tensor<2x12x6x6xf32>, tensor<2x12x6x6xf32>
}

// Lowered fully to LLVM by the default lowering alone, and by --agent-lower
// with an empty database (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @concat_then_norm(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @concat_then_norm(
// AGENT: llvm.call @concat_then_norm_region0(

// Outlined: one region writes the concatenation and the normalized
// features; the builtin agent's kernel reads each input element once.
// OUTLINE-LABEL: func.func @concat_then_norm(
// OUTLINE-NEXT: call @concat_then_norm_region0({{.*}}) -> (tensor<2x12x6x6xf32>, tensor<2x12x6x6xf32>)
// OUTLINE-NEXT: return
// OUTLINE: func.func private @concat_then_norm_region0(
// OUTLINE-SAME: kind = "elementwise"
// OUTLINE: %[[C:.+]] = tensor.concat dim(1)
// OUTLINE: linalg.generic {{.*}} ins(%[[C]],

// The whole program: the region's default lowering (a copy kernel per part,
// the normalization's kernel), no copy step.
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
// OUTLINED-NOT: "kernel":
// OUTLINED-NOT: "copy"
