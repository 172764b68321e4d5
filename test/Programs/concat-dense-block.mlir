// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | FileCheck %s --check-prefix=OUTLINE
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: a dense block's step over NCHW x of 2x8x6x6 f32,
//   y = torch.cat([x, torch.relu(x * s + b), torch.sigmoid(x)], dim=1)
// with s and b per channel (8): the block's input copied into the first
// third, the new features written into the others where they are computed.
#x4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @concat_dense_block(%x: tensor<2x8x6x6xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x24x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %f = linalg.generic {indexing_maps = [#x4, #ch, #ch, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s, %b : tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<2x8x6x6xf32>) {
  ^bb0(%v: f32, %sc: f32, %bi: f32, %o: f32):
    %m = arith.mulf %v, %sc : f32
    %a = arith.addf %m, %bi : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x6x6xf32>
  %g = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x6x6xf32>) outs(%e : tensor<2x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %q = arith.divf %one, %d : f32
    linalg.yield %q : f32
  } -> tensor<2x8x6x6xf32>
  %c = tensor.concat dim(1) %x, %f, %g : (tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>) -> tensor<2x24x6x6xf32>
  return %c : tensor<2x24x6x6xf32>
}

// Lowered fully to LLVM by the default lowering alone, and by --agent-lower
// with an empty database (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @concat_dense_block(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @concat_dense_block(
// AGENT: llvm.call @concat_dense_block_region0(

// Outlined: one region holds the two computed parts and the concatenation,
// which is its output; no copy in the caller.
// OUTLINE-LABEL: func.func @concat_dense_block(
// OUTLINE-NEXT: call @concat_dense_block_region0({{.*}}) -> tensor<2x24x6x6xf32>
// OUTLINE-NEXT: return
// OUTLINE: func.func private @concat_dense_block_region0(
// OUTLINE-SAME: kind = "elementwise"
// OUTLINE: tensor.concat dim(1)

// The whole program: the region's default lowering (two kernels for the
// features, a copy kernel per part), no copy step.
// OUTLINED: "launches"
// OUTLINED-COUNT-5: "kernel":
// OUTLINED-NOT: "kernel":
// OUTLINED-NOT: "copy"
