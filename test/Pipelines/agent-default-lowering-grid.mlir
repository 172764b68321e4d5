// RUN: rm -rf %t && cuda-agent-opt %s --agent-default-lowering="host=gpu" | FileCheck %s
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t" -o /dev/null
// RUN: cat %t/plan.json | FileCheck %s --check-prefix=PLAN
// KernelBench's Conv2d(64, 128, 3) + bias + relu at its full batch (NCHW,
// 128x64x128x128 -> 128x128x126x126): every loop nest is 2064384 rows of 126,
// 258048 tiles of 8 rows, more than blockIdx.y takes (65535). The row tiles go
// on blockIdx.x, the 4 column tiles on blockIdx.y, so every launch fits
// CUDA's grid (before, the grid was 4 x 258048 and the runner refused it).

#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#ch = affine_map<(n, f, h, w) -> (f)>
func.func @kb_conv3x3_bias_relu(%x: tensor<128x64x128x128xf32>, %w: tensor<128x64x3x3xf32>,
                                %bias: tensor<128xf32>) -> tensor<128x128x126x126xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128x126x126xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128x126x126xf32>) -> tensor<128x128x126x126xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<128x64x128x128xf32>, tensor<128x64x3x3xf32>)
      outs(%f : tensor<128x128x126x126xf32>) -> tensor<128x128x126x126xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<128x128x126x126xf32>, tensor<128xf32>) outs(%e : tensor<128x128x126x126xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x128x126x126xf32>
  return %r : tensor<128x128x126x126xf32>
}
// CHECK-LABEL: func.func @kb_conv3x3_bias_relu(
//   CHECK-DAG:   %[[X:.+]] = arith.constant 258048 : index
//   CHECK-DAG:   %[[Y:.+]] = arith.constant 4 : index
//       CHECK:   gpu.launch_func @{{.+}} blocks in (%[[X]], %[[Y]], %{{.+}}) threads in
//       CHECK:   gpu.launch_func @{{.+}} blocks in (%[[X]], %[[Y]], %{{.+}}) threads in
//       CHECK:   gpu.launch_func @{{.+}} blocks in (%[[X]], %[[Y]], %{{.+}}) threads in
//   CHECK-NOT:   gpu.launch_func

// PLAN:        "grid": [
// PLAN-NEXT:     258048,
// PLAN-NEXT:     4,
// PLAN-NEXT:     1
// PLAN:        "grid": [
// PLAN-NEXT:     258048,
// PLAN-NEXT:     4,
// PLAN-NEXT:     1
// PLAN:        "grid": [
// PLAN-NEXT:     258048,
// PLAN-NEXT:     4,
// PLAN-NEXT:     1
// PLAN-NOT:    "grid"
