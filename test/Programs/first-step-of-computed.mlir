// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: y = x.exp(); relu(y[0]) with x of 4x2x32 f32, the way nn.LSTM reads
// its first time step of the input projection: a slice from offset 0 of a
// computed tensor, reshaped (the step's dimension dropped) and read by the
// next region. Bufferization passes that part of the buffer to the region's
// function by a cast (its strides are a whole buffer's); the default
// lowering copies it into a buffer of its own first (a copy kernel), where
// it failed with "'memref.subview' was left on the host".
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @first_step(%x: tensor<4x2x32xf32>) -> tensor<2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<4x2x32xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x2x32xf32>) outs(%e3 : tensor<4x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<4x2x32xf32>
  %s = tensor.extract_slice %y[0, 0, 0] [1, 2, 32] [1, 1, 1] : tensor<4x2x32xf32> to tensor<1x2x32xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<1x2x32xf32> into tensor<2x32xf32>
  %e2 = tensor.empty() : tensor<2x32xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<2x32xf32>) outs(%e2 : tensor<2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<2x32xf32>
  return %r : tensor<2x32xf32>
}


// Lowered fully to LLVM by the default lowering alone (the copy kernel), and
// by --agent-lower with an empty database: there the slice, read through its
// collapse, is folded into the second region's map (SliceReads.h), which
// reads the first region's output in place: two regions and no copy.
// LLVM-LABEL: llvm.func @first_step(
// LLVM: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @first_step(
// AGENT: llvm.call @first_step_region0(
// AGENT-NOT: gpu.launch_func
// AGENT: llvm.call @first_step_region1(

// PLAN: "launches"
// OUTLINED: "launches"
// OUTLINED-COUNT-2: "kernel":
// OUTLINED-NOT: "kernel":
