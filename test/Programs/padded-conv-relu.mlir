// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/region" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=REGION < %t/region/*/region.mlir
// RUN: cat %t/region/*/plan.json | FileCheck %s --check-prefix=REGION-PLAN
// torch: relu(conv2d(x, w, padding=1)) in NHWC: x 1x8x8x4, w 3x3x4x8 (HWCF)
// f32. The pad runs on the device: a fill, then a copy into the interior.
// Outlined, the pad is inside the conv's region, which takes x unpadded.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded_conv_relu(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @padded_conv_relu(
// LLVM-COUNT-5: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @padded_conv_relu(
// AGENT: llvm.call @padded_conv_relu_region0(

// The whole-program bundle: 5 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, the whole program runs its regions' 5 kernels.
// OUTLINED: "launches"
// OUTLINED-COUNT-5: "kernel":

// The one region (the pad, the conv and the relu) takes x unpadded; its
// default lowering builds the padded input in a temporary.
// REGION: func.func @region(%arg0: tensor<1x8x8x4xf32>, %arg1: tensor<3x3x4x8xf32>) -> tensor<1x8x8x8xf32>
// REGION: tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// REGION: linalg.conv_2d_nhwc_hwcf
// REGION-PLAN:      "name": "in0",
// REGION-PLAN-NEXT: "role": "input",
// REGION-PLAN-NEXT: "shape": [
// REGION-PLAN-NEXT:   1,
// REGION-PLAN-NEXT:   8,
// REGION-PLAN-NEXT:   8,
// REGION-PLAN-NEXT:   4
// REGION-PLAN:      "name": "tmp0",
// REGION-PLAN-NEXT: "role": "temp",
// REGION-PLAN-NEXT: "shape": [
// REGION-PLAN-NEXT:   1,
// REGION-PLAN-NEXT:   10,
