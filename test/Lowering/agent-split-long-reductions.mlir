// RUN: cuda-agent-opt %s --split-input-file --agent-split-long-reductions | FileCheck %s
// RUN: cuda-agent-opt %s --agent-split-long-reductions --agent-cpu-reference | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -x ir %t.ll -O1 -shared -fPIC -Wno-override-module -o %t.so -lm
// RUN: %python %S/Inputs/run_split_reductions.py %t.so
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=GPU
// REQUIRES: numpy

// The default lowering gives each output element one thread, which runs the
// reduction alone. Few outputs with long reductions are split into partial
// reductions over interleaved parts (up to 65536 threads, parts of at least 64)
// and a reduction of the partials, until no reduction is long. The split
// functions compiled for the CPU must still match NumPy (second to fourth RUN).


// A loss: every element into a scalar. 2^20 elements: 16384 parts of 64, then
// 256 parts of 64, then the original reduction of the last 256.
// CHECK-LABEL: func.func @sum_all
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1024x1024xf32> into tensor<1048576xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [64, 16384]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16384xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}outs(%{{.*}} : tensor<16384xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [64, 256]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}outs(%{{.*}} : tensor<256xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}}outs(%{{.*}} : tensor<f32>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @sum_all(%x: tensor<1024x1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %sq, %acc : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A max over 4 rows of 65536: 4 x 1024 parts of 64, then 4 rows of 1024.
// CHECK-LABEL: func.func @row_max
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 64, 1024]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}}outs(%{{.*}} : tensor<4x1024xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: linalg.generic
func.func @row_max(%x: tensor<4x65536xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x65536xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// A batch norm's sums per channel: the reductions around the channels do not
// collapse into one, so the trailing two (h, w) are collapsed and split into 256
// interleaved parts; the partials per channel and part are summed over n and
// the rest of h x w, then over the parts.
// CHECK: #[[$PART:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @channel_sums
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<4x3x64x64xf32> into tensor<4x3x4096xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [4, 3, 16, 256]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x256xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{[a-z0-9]+}}, #[[$PART]]], iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NOT: linalg.generic
func.func @channel_sums(%x: tensor<4x3x64x64xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x3x64x64xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// Left alone: enough outputs for the GPU already (16384 rows of 8192) ...
// CHECK-LABEL: func.func @many_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @many_rows(%x: tensor<16384x8192xf32>, %init: tensor<16384xf32>) -> tensor<16384xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16384x8192xf32>) outs(%init : tensor<16384xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<16384xf32>
  return %s : tensor<16384xf32>
}

// -----

// ... a short reduction (2048) ...
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @short_rows(%x: tensor<8x2048xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x2048xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// ... a max with its argmax (two outputs) ...
// CHECK-LABEL: func.func @max_and_index
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @max_and_index(%x: tensor<2x65536xf32>, %m0: tensor<2xf32>, %i0: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x65536xf32>) outs(%m0, %i0 : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%in: f32, %m: f32, %i: i32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %gt = arith.cmpf ogt, %in, %m : f32
    %nm = arith.select %gt, %in, %m : f32
    %ni = arith.select %gt, %ki, %i : i32
    linalg.yield %nm, %ni : f32, i32
  } -> (tensor<2xf32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// ... a keepdim output (a constant 0 in its map) ...
// CHECK-LABEL: func.func @keepdim_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @keepdim_rows(%x: tensor<2x65536xf32>, %init: tensor<2x1xf32>) -> tensor<2x1xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x65536xf32>) outs(%init : tensor<2x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x1xf32>
  return %s : tensor<2x1xf32>
}

// -----

// ... and a prime length (no divisor to split by).
// CHECK-LABEL: func.func @prime_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @prime_rows(%x: tensor<2x65521xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x65521xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// The default lowering runs the split: six kernels for the sum (the scalar's
// fill, then a fill and a reduction per level, the last reduction), three for
// the max (its init is an argument), where it had two and one.
// GPU-COUNT-6: gpu.launch_func {{.*}} @sum_all_kernel{{(_[0-9]+)?}}::@sum_all_kernel blocks
// GPU-NOT: gpu.launch_func {{.*}} @sum_all_kernel
// GPU-COUNT-3: gpu.launch_func {{.*}} @row_max_kernel{{(_[0-9]+)?}}::@row_max_kernel blocks
// GPU-NOT: gpu.launch_func {{.*}} @row_max_kernel
