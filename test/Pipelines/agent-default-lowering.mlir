// RUN: cuda-agent-opt %s --split-input-file --agent-default-lowering="host=gpu" | FileCheck %s --implicit-check-not=scf. --implicit-check-not=memref.load --implicit-check-not=memref.alloc
// RUN: cuda-agent-opt %s --split-input-file --agent-default-lowering | mlir-translate --split-input-file --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM --implicit-check-not=malloc
// RUN: cuda-agent-opt %s --split-input-file --agent-default-lowering="host=gpu keep-ptx=true chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=PTX

// MLIR's own lowering of each of the eight baseline tests. With host=gpu the
// host is straight-line func/arith/gpu code: constant grid and block sizes,
// device buffers only, no loop or load left on the host. Each kernel is its
// own gpu.binary holding an sm_90 cubin. The full lowering reaches LLVM IR
// that launches every kernel through the mgpu runtime and never calls malloc.
// keep-ptx attaches the PTX of each binary; chip and features reach the target.

// PTX: gpu.binary @add_relu_kernel {cuda_agent.ptx = "{{.*}}.version 7.0\0A.target sm_80{{.*}}.visible .entry add_relu_kernel(
// PTX-SAME: [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">, {{.*}}bin = "\7FELF

// Elementwise add + relu on 1024x1024: one 2-D launch, 8x32 threads, 32 along the rows.

#m = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_relu(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
// CHECK-LABEL: func.func @add_relu(
//  CHECK-SAME:     %{{.+}}: memref<1024x1024xf32>, %{{.+}}: memref<1024x1024xf32>, %{{.+}}: memref<1024x1024xf32>)
//       CHECK:   gpu.launch_func @add_relu_kernel::@add_relu_kernel blocks in (%c32, %c128, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   return
//       CHECK: gpu.binary @add_relu_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @add_relu(
//  LLVM-COUNT-1: call void @mgpuLaunchKernel(

// -----

// matmul + bias + relu: fill, matmul (serial k loop per thread) and epilogue are three launches.

#mb = affine_map<(d0, d1) -> (d1)>
#m = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm_bias_relu(%a: tensor<256x64xf32>, %b: tensor<64x128xf32>, %bias: tensor<128xf32>) -> tensor<256x128xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %r = linalg.generic {indexing_maps = [#m, #mb, #m], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x128xf32>, tensor<128xf32>) outs(%e2 : tensor<256x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}
// CHECK-LABEL: func.func @mm_bias_relu(
//  CHECK-SAME:     %{{.+}}: memref<256x64xf32>, %{{.+}}: memref<64x128xf32>, %{{.+}}: memref<128xf32>, %{{.+}}: memref<256x128xf32>)
//       CHECK:   gpu.alloc () : memref<256x128xf32>
//       CHECK:   gpu.launch_func @mm_bias_relu_kernel::@mm_bias_relu_kernel blocks in (%c4, %c32, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @mm_bias_relu_kernel_{{[0-9]+}}::@mm_bias_relu_kernel blocks in (%c4, %c32, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @mm_bias_relu_kernel_{{[0-9]+}}::@mm_bias_relu_kernel blocks in (%c4, %c32, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.dealloc
//       CHECK:   return
//  CHECK-COUNT-3: gpu.binary @mm_bias_relu_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @mm_bias_relu(
//  LLVM-COUNT-3: call void @mgpuLaunchKernel(

// -----

// linalg.softmax is decomposed first: four rank-1 launches (fills and row reductions, 256 threads) and two 2-D ones.

func.func @softmax(%a: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}
// CHECK-LABEL: func.func @softmax(
//  CHECK-SAME:     %{{.+}}: memref<64x1000xf32>, %{{.+}}: memref<64x1000xf32>)
//       CHECK:   gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.launch_func @softmax_kernel::@softmax_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @softmax_kernel_{{[0-9]+}}::@softmax_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @softmax_kernel_{{[0-9]+}}::@softmax_kernel blocks in (%c32, %c8, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @softmax_kernel_{{[0-9]+}}::@softmax_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @softmax_kernel_{{[0-9]+}}::@softmax_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @softmax_kernel_{{[0-9]+}}::@softmax_kernel blocks in (%c32, %c8, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.dealloc
//       CHECK:   return
//  CHECK-COUNT-6: gpu.binary @softmax_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @softmax(
//  LLVM-COUNT-6: call void @mgpuLaunchKernel(

// -----

// Row sum: fill and reduction are rank-1 launches of 256 threads, one thread per row.

func.func @rowsum(%a: tensor<512x1024xf32>) -> tensor<512xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %r = linalg.reduce ins(%a : tensor<512x1024xf32>) outs(%f : tensor<512xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<512xf32>
}
// CHECK-LABEL: func.func @rowsum(
//  CHECK-SAME:     %{{.+}}: memref<512x1024xf32>, %{{.+}}: memref<512xf32>)
//       CHECK:   gpu.launch_func @rowsum_kernel::@rowsum_kernel blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @rowsum_kernel_{{[0-9]+}}::@rowsum_kernel blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   return
//  CHECK-COUNT-2: gpu.binary @rowsum_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @rowsum(
//  LLVM-COUNT-2: call void @mgpuLaunchKernel(

// -----

// Transpose: one thread per output element.

func.func @transpose(%a: tensor<512x1024xf32>) -> tensor<1024x512xf32> {
  %e = tensor.empty() : tensor<1024x512xf32>
  %r = linalg.transpose ins(%a : tensor<512x1024xf32>) outs(%e : tensor<1024x512xf32>) permutation = [1, 0]
  return %r : tensor<1024x512xf32>
}
// CHECK-LABEL: func.func @transpose(
//  CHECK-SAME:     %{{.+}}: memref<512x1024xf32>, %{{.+}}: memref<1024x512xf32>)
//       CHECK:   gpu.launch_func @transpose_kernel::@transpose_kernel blocks in (%c16, %c128, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   return
//       CHECK: gpu.binary @transpose_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @transpose(
//  LLVM-COUNT-1: call void @mgpuLaunchKernel(

// -----

// f16 matmul with f32 accumulation (implicit extf): fill and matmul.

func.func @mm_f16(%a: tensor<256x64xf16>, %b: tensor<64x128xf16>) -> tensor<256x128xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x64xf16>, tensor<64x128xf16>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %mm : tensor<256x128xf32>
}
// CHECK-LABEL: func.func @mm_f16(
//  CHECK-SAME:     %{{.+}}: memref<256x64xf16>, %{{.+}}: memref<64x128xf16>, %{{.+}}: memref<256x128xf32>)
//       CHECK:   gpu.launch_func @mm_f16_kernel::@mm_f16_kernel blocks in (%c4, %c32, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @mm_f16_kernel_{{[0-9]+}}::@mm_f16_kernel blocks in (%c4, %c32, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   return
//  CHECK-COUNT-2: gpu.binary @mm_f16_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @mm_f16(
//  LLVM-COUNT-2: call void @mgpuLaunchKernel(

// -----

// NHWC convolution + bias + relu: the rank-4 loops are collapsed to (N*H*W = 900 | C = 32), 113 blocks of 8 rows.

#m4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#mb = affine_map<(n, h, w, c) -> (c)>
func.func @conv(%x: tensor<1x32x32x16xf32>, %w: tensor<3x3x16x32xf32>, %bias: tensor<32xf32>) -> tensor<1x30x30x32xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x30x30x32xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x32x32x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %e2 = tensor.empty() : tensor<1x30x30x32xf32>
  %r = linalg.generic {indexing_maps = [#m4, #mb, #m4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x30x30x32xf32>, tensor<32xf32>) outs(%e2 : tensor<1x30x30x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<1x30x30x32xf32>
  return %r : tensor<1x30x30x32xf32>
}
// CHECK-LABEL: func.func @conv(
//  CHECK-SAME:     %{{.+}}: memref<1x32x32x16xf32>, %{{.+}}: memref<3x3x16x32xf32>, %{{.+}}: memref<32xf32>, %{{.+}}: memref<1x30x30x32xf32>)
//       CHECK:   gpu.alloc () : memref<1x30x30x32xf32>
//       CHECK:   gpu.launch_func @conv_kernel::@conv_kernel blocks in (%c1, %c113, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @conv_kernel_{{[0-9]+}}::@conv_kernel blocks in (%c1, %c113, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.launch_func @conv_kernel_{{[0-9]+}}::@conv_kernel blocks in (%c1, %c113, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.dealloc
//       CHECK:   return
//  CHECK-COUNT-3: gpu.binary @conv_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @conv(
//  LLVM-COUNT-3: call void @mgpuLaunchKernel(

// -----

// Layernorm: two fills and two row reductions (rank 1) and the normalization (2-D); two temporaries.

#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
func.func @layernorm(%x: tensor<128x768xf32>, %g: tensor<768xf32>, %bt: tensor<768xf32>) -> tensor<128x768xf32> {
  %c0 = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<128xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#m, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x768xf32>) outs(%z1 : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<128xf32>) -> tensor<128xf32>
  %var = linalg.generic {indexing_maps = [#m, #r, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<128x768xf32>, tensor<128xf32>) outs(%z2 : tensor<128xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %r2 = arith.addf %d2, %acc : f32
    linalg.yield %r2 : f32
  } -> tensor<128xf32>
  %e3 = tensor.empty() : tensor<128x768xf32>
  %y = linalg.generic {indexing_maps = [#m, #r, #r, #c, #c, #m], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %var, %g, %bt : tensor<128x768xf32>, tensor<128xf32>, tensor<128xf32>, tensor<768xf32>, tensor<768xf32>) outs(%e3 : tensor<128x768xf32>) {
  ^bb0(%a: f32, %s: f32, %v: f32, %gg: f32, %bb: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %vr = arith.divf %v, %n : f32
    %ve = arith.addf %vr, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %t = arith.mulf %d, %rs : f32
    %t2 = arith.mulf %t, %gg : f32
    %t3 = arith.addf %t2, %bb : f32
    linalg.yield %t3 : f32
  } -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}
// CHECK-LABEL: func.func @layernorm(
//  CHECK-SAME:     %{{.+}}: memref<128x768xf32>, %{{.+}}: memref<768xf32>, %{{.+}}: memref<768xf32>, %{{.+}}: memref<128x768xf32>)
//       CHECK:   gpu.alloc () : memref<128xf32>
//       CHECK:   gpu.launch_func @layernorm_kernel::@layernorm_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @layernorm_kernel_{{[0-9]+}}::@layernorm_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.alloc () : memref<128xf32>
//       CHECK:   gpu.launch_func @layernorm_kernel_{{[0-9]+}}::@layernorm_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @layernorm_kernel_{{[0-9]+}}::@layernorm_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(
//       CHECK:   gpu.launch_func @layernorm_kernel_{{[0-9]+}}::@layernorm_kernel blocks in (%c24, %c16, %c1) threads in (%c32, %c8, %c1) args(
//       CHECK:   gpu.dealloc
//       CHECK:   gpu.dealloc
//       CHECK:   return
//  CHECK-COUNT-5: gpu.binary @layernorm_kernel{{(_[0-9]+)?}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// LLVM-LABEL: define void @layernorm(
//  LLVM-COUNT-5: call void @mgpuLaunchKernel(
