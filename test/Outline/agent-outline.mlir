// RUN: cuda-agent-opt %s --agent-outline --split-input-file --verify-diagnostics | FileCheck %s

// A matmul with its zero fill and a bias + gelu (tanh) epilogue is one
// contraction region; the fill and empty are cloned into it, and each use of
// the shared empty gets its own copy (so each result bufferizes to its own
// buffer).

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_gelu(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>,
                            %bias: tensor<256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
                     outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<128x256xf32>, tensor<256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608 : f32
    %s = arith.addf %x, %y : f32
    %s3 = arith.mulf %s, %s : f32
    %s4 = arith.mulf %s3, %s : f32
    %k = arith.constant 0.044715 : f32
    %s5 = arith.mulf %s4, %k : f32
    %s6 = arith.addf %s, %s5 : f32
    %s7 = arith.mulf %s6, %c : f32
    %t = math.tanh %s7 : f32
    %t1 = arith.addf %t, %one : f32
    %t2 = arith.mulf %t1, %half : f32
    %t3 = arith.mulf %t2, %s : f32
    linalg.yield %t3 : f32
  } -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}
// CHECK-LABEL: func.func @matmul_bias_gelu(
//  CHECK-SAME:     %[[A:.+]]: tensor<128x64xf32>, %[[B:.+]]: tensor<64x256xf32>, %[[BIAS:.+]]: tensor<256xf32>)
//  CHECK-NEXT:   %[[R:.+]] = call @matmul_bias_gelu_region0(%[[A]], %[[B]], %[[BIAS]])
//  CHECK-NEXT:   return %[[R]]
// CHECK-LABEL: func.func private @matmul_bias_gelu_region0(
//  CHECK-SAME:     tensor<128x64xf32>, %{{.+}}: tensor<64x256xf32>, %{{.+}}: tensor<256xf32>) -> tensor<128x256xf32>
//  CHECK-SAME:     cuda_agent.region = {bytes = 230400 : i64, flops = 4521984 : i64, hash = "{{[0-9a-f]{64}"}}, kind = "contraction"}
//       CHECK:   %[[E0:.+]] = tensor.empty() : tensor<128x256xf32>
//  CHECK-NEXT:   %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E0]] :
//  CHECK-NEXT:   %[[MM:.+]] = linalg.matmul {{.*}} outs(%[[F]] :
//  CHECK-NEXT:   %[[E1:.+]] = tensor.empty() : tensor<128x256xf32>
//  CHECK-NEXT:   %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : {{.*}}) outs(%[[E1]] :
//       CHECK:     math.tanh
//       CHECK:   return %[[EPI]]

// -----

// An MLP block: two matmuls are two regions; each takes its bias + relu
// epilogue, and the hidden activation crosses between them.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<32x64xf32>, %w1: tensor<64x256xf32>, %b1: tensor<256xf32>,
               %w2: tensor<256x64xf32>, %b2: tensor<64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x256xf32>)
                      outs(%f1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<32x256xf32>, tensor<256xf32>) outs(%e1 : tensor<32x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x256xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<32x256xf32>, tensor<256x64xf32>)
                      outs(%f2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b2 : tensor<32x64xf32>, tensor<64xf32>) outs(%e2 : tensor<32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
// CHECK-LABEL: func.func @mlp(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<32x64xf32>, %[[W1:[^:]+]]: tensor<64x256xf32>, %[[B1:[^:]+]]: tensor<256xf32>, %[[W2:[^:]+]]: tensor<256x64xf32>, %[[B2:[^:]+]]: tensor<64xf32>)
//  CHECK-NEXT:   %[[H:.+]] = call @mlp_region0(%[[X]], %[[W1]], %[[B1]])
//  CHECK-NEXT:   %[[Y:.+]] = call @mlp_region1(%[[H]], %[[W2]], %[[B2]])
//  CHECK-NEXT:   return %[[Y]]
// CHECK-LABEL: func.func private @mlp_region0(
//  CHECK-SAME:     kind = "contraction"
//       CHECK:   linalg.matmul
//       CHECK:   arith.maximumf
//   CHECK-NOT:   linalg.matmul
// CHECK-LABEL: func.func private @mlp_region1(
//  CHECK-SAME:     kind = "contraction"
//       CHECK:   linalg.matmul
//       CHECK:   arith.addf

// -----

// linalg.softmax is decomposed first; its max, exp, sum and divide run over
// the same rows and form one reduction region.

func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>)
                                   outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %s : tensor<64x1000xf32>
}
// CHECK-LABEL: func.func @softmax(
//  CHECK-NEXT:   %[[R:.+]] = call @softmax_region0(%{{.+}}) : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
//  CHECK-NEXT:   return %[[R]]
// CHECK-LABEL: func.func private @softmax_region0(
//  CHECK-SAME:     bytes = 512000 : i64, flops = 320000 : i64, hash = "{{[0-9a-f]{64}"}}, kind = "reduction"
//   CHECK-NOT:   linalg.softmax
//       CHECK:   arith.maxnumf
//       CHECK:   math.exp
//       CHECK:   arith.addf
//       CHECK:   arith.divf
//       CHECK:   return

// -----

// Layernorm over a residual add, with f16 storage and f32 math: the two
// row reductions (mean, variance) and everything around them are one
// region, which also returns the residual stream.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
func.func @layernorm_residual(%x: tensor<64x768xf16>, %res: tensor<64x768xf16>,
                              %g: tensor<768xf16>, %b: tensor<768xf16>)
    -> (tensor<64x768xf16>, tensor<64x768xf16>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e16 = tensor.empty() : tensor<64x768xf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %res : tensor<64x768xf16>, tensor<64x768xf16>) outs(%e16 : tensor<64x768xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<64x768xf16>
  %er = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<64x768xf16>) outs(%acc : tensor<64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sum : tensor<64xf32>) outs(%er : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.divf %a, %n : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h, %mean : tensor<64x768xf16>, tensor<64xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%a: f16, %m: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %d = arith.subf %w, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sq : tensor<64xf32>) outs(%er : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %var = arith.divf %a, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %mean, %rstd, %g, %b : tensor<64x768xf16>, tensor<64xf32>, tensor<64xf32>, tensor<768xf16>, tensor<768xf16>)
      outs(%e16 : tensor<64x768xf16>) {
  ^bb0(%a: f16, %m: f32, %r: f32, %gg: f16, %bb: f16, %o: f16):
    %w = arith.extf %a : f16 to f32
    %d = arith.subf %w, %m : f32
    %nrm = arith.mulf %d, %r : f32
    %gw = arith.extf %gg : f16 to f32
    %bw = arith.extf %bb : f16 to f32
    %sc = arith.mulf %nrm, %gw : f32
    %sh = arith.addf %sc, %bw : f32
    %t = arith.truncf %sh : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x768xf16>
  return %y, %h : tensor<64x768xf16>, tensor<64x768xf16>
}
// CHECK-LABEL: func.func @layernorm_residual(
//  CHECK-NEXT:   %[[R:.+]]:2 = call @layernorm_residual_region0(
//  CHECK-SAME:     -> (tensor<64x768xf16>, tensor<64x768xf16>)
//  CHECK-NEXT:   return %[[R]]#{{[01]}}, %[[R]]#{{[01]}}
// CHECK-LABEL: func.func private @layernorm_residual_region0(
//  CHECK-SAME:     kind = "reduction"
// The divisor and epsilon captured by the bodies are cloned into the region.
//       CHECK:   arith.extf
//       CHECK:   arith.constant 7.680000e+02 : f32
//       CHECK:   arith.constant 9.99999974E-6 : f32
//       CHECK:   math.rsqrt
//       CHECK:   arith.truncf
//       CHECK:   return
//   CHECK-NOT:   linalg.generic

// -----

// A batched matmul with its fill is a contraction region.

func.func @batch_matmul(%a: tensor<8x64x32xf16>, %b: tensor<8x32x48xf16>) -> tensor<8x64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64x48xf32>) -> tensor<8x64x48xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<8x64x32xf16>, tensor<8x32x48xf16>)
                           outs(%f : tensor<8x64x48xf32>) -> tensor<8x64x48xf32>
  return %m : tensor<8x64x48xf32>
}
// CHECK-LABEL: func.func @batch_matmul(
//  CHECK-NEXT:   call @batch_matmul_region0
// CHECK-LABEL: func.func private @batch_matmul_region0(
//  CHECK-SAME:     bytes = 155648 : i64, flops = 1572864 : i64, hash = "{{[0-9a-f]{64}"}}, kind = "contraction"
//       CHECK:   linalg.fill
//       CHECK:   linalg.batch_matmul

// -----

// An NHWC convolution with a bias + relu epilogue is a convolution region.

#nhwc = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>
func.func @conv_bias_relu(%x: tensor<2x18x18x16xf32>, %w: tensor<3x3x16x32xf32>,
                          %bias: tensor<32xf32>) -> tensor<2x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x18x18x16xf32>, tensor<3x3x16x32xf32>)
      outs(%f : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #ch, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x16x16x32xf32>, tensor<32xf32>) outs(%e : tensor<2x16x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x16x16x32xf32>
  return %r : tensor<2x16x16x32xf32>
}
// CHECK-LABEL: func.func @conv_bias_relu(
//  CHECK-NEXT:   call @conv_bias_relu_region0
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @conv_bias_relu_region0(
//  CHECK-SAME:     kind = "convolution"
//       CHECK:   linalg.conv_2d_nhwc_hwcf
//       CHECK:   arith.maximumf

// -----

// A pure elementwise chain (add, relu, cast) with no root op is one
// elementwise region.

#id = affine_map<(d0) -> (d0)>
func.func @elementwise_chain(%a: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %s = linalg.add ins(%a, %b : tensor<4096xf32>, tensor<4096xf32>) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<4096xf32>) outs(%e : tensor<4096xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4096xf32>
  %e16 = tensor.empty() : tensor<4096xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<4096xf32>) outs(%e16 : tensor<4096xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4096xf16>
  return %h : tensor<4096xf16>
}
// CHECK-LABEL: func.func @elementwise_chain(
//  CHECK-NEXT:   call @elementwise_chain_region0
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @elementwise_chain_region0(
//  CHECK-SAME:     bytes = 40960 : i64, flops = 8192 : i64, hash = "{{[0-9a-f]{64}"}}, kind = "elementwise"
//       CHECK:   linalg.add
//       CHECK:   arith.maximumf
//       CHECK:   arith.truncf

// -----

// Transposes and broadcasts are elementwise: they fuse with what they feed.

func.func @transpose_broadcast(%x: tensor<64x128xf32>, %v: tensor<64xf32>) -> tensor<128x64xf32> {
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  %b = linalg.broadcast ins(%v : tensor<64xf32>) outs(%e : tensor<128x64xf32>) dimensions = [0]
  %s = linalg.add ins(%t, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %s : tensor<128x64xf32>
}
// CHECK-LABEL: func.func @transpose_broadcast(
//  CHECK-NEXT:   call @transpose_broadcast_region0
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @transpose_broadcast_region0(
//  CHECK-SAME:     kind = "elementwise"
//   CHECK-DAG:   linalg.transpose
//   CHECK-DAG:   linalg.broadcast
//       CHECK:   linalg.add

// -----

// Dynamic shapes are left alone, with a remark that says why.

#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  // expected-remark @below {{kept outside any kernel region: it has a dynamic shape (tensor<?xf32>)}}
  %s = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
// CHECK-LABEL: func.func @dynamic(
//  CHECK-NEXT:   linalg.add
//   CHECK-NOT:   call

// -----

// Unsupported element types and ops that are not linalg stay outside; the
// supported op after the reshape still gets its own region.

#id = affine_map<(d0) -> (d0)>
func.func @leftovers(%a: tensor<64xi8>, %b: tensor<8x8xf32>) -> (tensor<64xi8>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xi8>
  // expected-remark @below {{kept outside any kernel region: element type i8 is not supported (f32, f16, bf16, f64, i32 and i64 are)}}
  %n = linalg.add ins(%a, %a : tensor<64xi8>, tensor<64xi8>) outs(%e : tensor<64xi8>) -> tensor<64xi8>
  // expected-remark @below {{kept outside any kernel region: 'tensor.collapse_shape' is not a linalg op}}
  %c = tensor.collapse_shape %b [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  %e32 = tensor.empty() : tensor<64xf32>
  %x = linalg.exp ins(%c : tensor<64xf32>) outs(%e32 : tensor<64xf32>) -> tensor<64xf32>
  return %n, %x : tensor<64xi8>, tensor<64xf32>
}
// CHECK-LABEL: func.func @leftovers(
//       CHECK:   linalg.add
//       CHECK:   tensor.collapse_shape
//       CHECK:   call @leftovers_region0
// CHECK-LABEL: func.func private @leftovers_region0(
//  CHECK-SAME:     kind = "elementwise"
//       CHECK:   linalg.exp

// -----

// Running the pass again leaves outlined regions alone.

func.func private @already_region0(%a: tensor<16xf32>) -> tensor<16xf32> attributes {cuda_agent.region = {hash = "x", kind = "elementwise", flops = 0 : i64, bytes = 0 : i64}} {
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.exp ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %x : tensor<16xf32>
}
// CHECK-LABEL: func.func private @already_region0(
//  CHECK-NEXT:   tensor.empty
//  CHECK-NEXT:   linalg.exp
//   CHECK-NOT:   func.func private @already_region0_region0
