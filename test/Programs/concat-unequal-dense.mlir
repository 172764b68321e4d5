// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | FileCheck %s --check-prefix=OUTLINE
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: a DenseNet layer's concatenation over NCHW channels of parts of
// different sizes (x of 2x8x6x6, new features of 4 channels from y, and
// sigmoid(x)),
//   out = torch.cat([x, torch.relu(y * s + b), torch.sigmoid(x)], dim=1)
// with s and b per channel (4): 8 + 4 + 8 = 20 channels. The parts cannot
// be views of one (parts, size) tensor; the concatenation joins the region
// of the parts computed for it alone, whose kernel writes each element once.
#x4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @concat_unequal(%x: tensor<2x8x6x6xf32>, %y: tensor<2x4x6x6xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x20x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e4 = tensor.empty() : tensor<2x4x6x6xf32>
  %e8 = tensor.empty() : tensor<2x8x6x6xf32>
  %f = linalg.generic {indexing_maps = [#x4, #ch, #ch, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s, %b : tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<2x4x6x6xf32>) {
  ^bb0(%v: f32, %sc: f32, %bi: f32, %o: f32):
    %m = arith.mulf %v, %sc : f32
    %a = arith.addf %m, %bi : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6x6xf32>
  %g = linalg.generic {indexing_maps = [#x4, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x6x6xf32>) outs(%e8 : tensor<2x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %q = arith.divf %one, %d : f32
    linalg.yield %q : f32
  } -> tensor<2x8x6x6xf32>
  %c = tensor.concat dim(1) %x, %f, %g : (tensor<2x8x6x6xf32>, tensor<2x4x6x6xf32>, tensor<2x8x6x6xf32>) -> tensor<2x20x6x6xf32>
  return %c : tensor<2x20x6x6xf32>
}

// Lowered fully to LLVM by the default lowering alone, and by --agent-lower
// with an empty database (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @concat_unequal(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @concat_unequal(
// AGENT: llvm.call @concat_unequal_region0(

// Outlined: one region holds both computed parts and the concatenation,
// which is its output.
// OUTLINE-LABEL: func.func @concat_unequal(
// OUTLINE-NEXT: call @concat_unequal_region0({{.*}}) -> tensor<2x20x6x6xf32>
// OUTLINE-NEXT: return
// OUTLINE: func.func private @concat_unequal_region0(
// OUTLINE-SAME: kind = "elementwise"
// OUTLINE-COUNT-2: linalg.generic
// OUTLINE: tensor.concat dim(1)
// OUTLINE-NEXT: return

// The whole program: no copy step in the plan (the default lowering's
// copies are kernels of the region).
// OUTLINED: "launches"
// OUTLINED-NOT: "copy"

// The builtin kernel: one flat loop over the 20 channels, a branch per part
// by its channel range, each part read at the channel less its offset.
// KERNEL: ----- variant flat-v2-t256 -----
// KERNEL: if (i1 < 8) {
// KERNEL: in0 + ((((long long)((i0)) * 8 + ((i1)))
// KERNEL: else if (i1 >= 8 && i1 < 12) {
// KERNEL: in1 + ((((long long)((i0)) * 4 + (((i1) - 8)))
// KERNEL: else {
// KERNEL: in0 + ((((long long)((i0)) * 8 + (((i1) - 12)))
// KERNEL: expf
