// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s

// torch-mlir's ConvTranspose1d(4, 6, 3, stride=2, padding=1,
// output_padding=1) on 2x4x5: the input spread onto a zero grid of 12 (x[i]
// at 1 + 2i), then a stride-1 conv with the flipped filter. The outliner
// splits it by output phase (lib/Outline/TransposedConvolutions.cpp): the
// even outputs read tap 1 only, over x as it is; the odd ones taps 0 and 2,
// over x with one zero after it; each written into its phase of the output,
// each with its part of the bias. The grid is gone.

func.func @conv_transpose_s2(%x: tensor<2x4x5xf32>, %w: tensor<6x4x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x12xf32>
  %grid0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x12xf32>) -> tensor<2x4x12xf32>
  %grid = tensor.insert_slice %x into %grid0[0, 0, 1] [2, 4, 5] [1, 1, 2] : tensor<2x4x5xf32> into tensor<2x4x12xf32>
  %eo = tensor.empty() : tensor<2x6x10xf32>
  %bias = linalg.broadcast ins(%b : tensor<6xf32>) outs(%eo : tensor<2x6x10xf32>) dimensions = [0, 2]
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%grid, %w : tensor<2x4x12xf32>, tensor<6x4x3xf32>) outs(%bias : tensor<2x6x10xf32>) -> tensor<2x6x10xf32>
  return %y : tensor<2x6x10xf32>
}

// CHECK-LABEL: func.func @conv_transpose_s2(
// CHECK-NOT: tensor<2x4x12xf32>
// CHECK: %[[EVEN_TAPS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1] [6, 4, 1] [1, 1, 2]
// CHECK: %[[EVEN:.*]] = call @conv_transpose_s2_region0(%{{.*}}, %[[EVEN_TAPS]], %{{.*}}) : (tensor<2x4x5xf32>, tensor<6x4x1xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
// CHECK: %[[PART:.*]] = tensor.insert_slice %[[EVEN]] into %{{.*}}[0, 0, 0] [2, 6, 5] [1, 1, 2]
// CHECK: %[[ODD_TAPS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [6, 4, 2] [1, 1, 2]
// CHECK: %[[ODD:.*]] = call @conv_transpose_s2_region1(%{{.*}}, %[[ODD_TAPS]], %{{.*}}) : (tensor<2x4x5xf32>, tensor<6x4x2xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
// CHECK: tensor.insert_slice %[[ODD]] into %[[PART]][0, 0, 1] [2, 6, 5] [1, 1, 2]
// CHECK-LABEL: func.func private @conv_transpose_s2_region1(
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 1]
// CHECK: linalg.conv_1d_ncw_fcw {{.*}} : tensor<2x4x6xf32>, tensor<6x4x2xf32>) outs(%{{.*}} : tensor<2x6x5xf32>)

// -----

// A dilated filter: ConvTranspose1d(4, 6, 5, stride=3, padding=1,
// dilation=2) on 2x4x7 (x[i] at 7 + 3i of a grid of 33, a conv of dilation
// 2). The taps of output phase p are those with 2k = 7 - p (mod 3): tap 2
// for phase 0, taps 0 and 3 for phase 1, taps 1 and 4 for phase 2, every
// third tap; each phase a stride-1 conv of dilation 2 over x padded.

func.func @conv_transpose_dilated(%x: tensor<2x4x7xf32>, %w: tensor<6x4x5xf32>) -> tensor<2x6x25xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x33xf32>
  %grid0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x33xf32>) -> tensor<2x4x33xf32>
  %grid = tensor.insert_slice %x into %grid0[0, 0, 7] [2, 4, 7] [1, 1, 3] : tensor<2x4x7xf32> into tensor<2x4x33xf32>
  %eo = tensor.empty() : tensor<2x6x25xf32>
  %init = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x6x25xf32>) -> tensor<2x6x25xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<2> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%grid, %w : tensor<2x4x33xf32>, tensor<6x4x5xf32>) outs(%init : tensor<2x6x25xf32>) -> tensor<2x6x25xf32>
  return %y : tensor<2x6x25xf32>
}

// CHECK-LABEL: func.func @conv_transpose_dilated(
// CHECK-NOT: tensor<2x4x33xf32>
// CHECK: tensor.extract_slice %arg1[0, 0, 2] [6, 4, 1] [1, 1, 3]
// CHECK: call @conv_transpose_dilated_region0({{.*}}) : (tensor<2x4x7xf32>, tensor<6x4x1xf32>) -> tensor<2x6x9xf32>
// CHECK: tensor.insert_slice {{.*}}[0, 0, 0] [2, 6, 9] [1, 1, 3]
// CHECK: tensor.extract_slice %arg1[0, 0, 0] [6, 4, 2] [1, 1, 3]
// CHECK: call @conv_transpose_dilated_region1({{.*}}) -> tensor<2x6x8xf32>
// CHECK: tensor.insert_slice {{.*}}[0, 0, 1] [2, 6, 8] [1, 1, 3]
// CHECK: tensor.extract_slice %arg1[0, 0, 1] [6, 4, 2] [1, 1, 3]
// CHECK: call @conv_transpose_dilated_region2({{.*}}) -> tensor<2x6x8xf32>
// CHECK: tensor.insert_slice {{.*}}[0, 0, 2] [2, 6, 8] [1, 1, 3]
// CHECK-LABEL: func.func private @conv_transpose_dilated_region1(
// CHECK: tensor.pad %arg0 low[0, 0, 2] high[0, 0, 1]
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<2> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%{{.*}}, %arg1 : tensor<2x4x10xf32>, tensor<6x4x2xf32>)

// -----

// A grid of ones is no transposed conv: the conv stays as it is.

func.func @ones_grid(%x: tensor<2x4x5xf32>, %w: tensor<6x4x3xf32>) -> tensor<2x6x10xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x12xf32>
  %grid0 = linalg.fill ins(%one : f32) outs(%e : tensor<2x4x12xf32>) -> tensor<2x4x12xf32>
  %grid = tensor.insert_slice %x into %grid0[0, 0, 1] [2, 4, 5] [1, 1, 2] : tensor<2x4x5xf32> into tensor<2x4x12xf32>
  %eo = tensor.empty() : tensor<2x6x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x6x10xf32>) -> tensor<2x6x10xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%grid, %w : tensor<2x4x12xf32>, tensor<6x4x3xf32>) outs(%init : tensor<2x6x10xf32>) -> tensor<2x6x10xf32>
  return %y : tensor<2x6x10xf32>
}

// CHECK-LABEL: func.func @ones_grid(
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1] [2, 4, 5] [1, 1, 2] : tensor<2x4x5xf32> into tensor<2x4x12xf32>
// CHECK: call @ones_grid_region0(%{{.*}}, %{{.*}}) : (tensor<2x4x12xf32>, tensor<6x4x3xf32>) -> tensor<2x6x10xf32>
