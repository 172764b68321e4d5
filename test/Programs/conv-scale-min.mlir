// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline -o %t/outlined.mlir 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined.mlir
// torch: torch.min(conv2d(x, w, b, padding=1) * 2, dim=1, keepdim=True).values
// (KernelBench level 2's conv + scaling + min, as python/cuda_agent/models.py's
// ConvScaleMin) in NCHW: x 1x4x8x8, w 8x4x3x3, b 8, f32; the bias is the
// conv's init (a linalg.broadcast) and the keepdim a view, as torch-mlir
// writes them.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#minc = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
func.func @conv_scale_min(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %bias = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) dimensions = [0, 2, 3]
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%bias : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %re = tensor.empty() : tensor<1x8x8xf32>
  %init = linalg.fill ins(%inf : f32) outs(%re : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #minc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%s : tensor<1x8x8x8xf32>) outs(%init : tensor<1x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.minimumf %v, %o : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8xf32>
  %k = tensor.expand_shape %r [[0, 1], [2], [3]] output_shape [1, 1, 8, 8] : tensor<1x8x8xf32> into tensor<1x1x8x8xf32>
  return %k : tensor<1x1x8x8xf32>
}

// Lowered fully to LLVM by the default lowering alone (7 kernels: the pad's
// fill and copy, the bias broadcast, the conv, the scale, the min's fill
// and the min), and by --agent-lower with an empty database.
// LLVM-LABEL: llvm.func @conv_scale_min(
// LLVM-COUNT-7: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// AGENT-LABEL: llvm.func @conv_scale_min(
// AGENT: llvm.call @conv_scale_min_region0(

// The whole-program bundle: the keepdim is a view of the min's output.
// PLAN: "role": "view"
// PLAN-NOT: "copy"

// Outlined, the min over the channels joins the conv's region (fusion=rows):
// the conv's output never leaves it, only the min's.
// OUTLINED-LABEL: func.func @conv_scale_min(
// OUTLINED-NEXT: call @conv_scale_min_region0(%arg0, %arg1, %arg2) : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8xf32>
// OUTLINED-NEXT: tensor.expand_shape
// OUTLINED: func.func private @conv_scale_min_region0({{.*}}kind = "convolution"
