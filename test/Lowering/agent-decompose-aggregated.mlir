// RUN: cuda-agent-opt %s --split-input-file --agent-decompose-aggregated | FileCheck %s

// linalg.softmax on static tensors becomes max-reduce, sub+exp, sum-reduce and
// div, which convert-linalg-to-parallel-loops can lower.

func.func @softmax(%a: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}
// CHECK-LABEL: func.func @softmax(
//   CHECK-NOT:   linalg.softmax
//       CHECK:   linalg.generic {{.*}}["parallel", "reduction"]
//       CHECK:     arith.maxnumf
//       CHECK:   linalg.generic {{.*}}["parallel", "parallel"]
//       CHECK:     math.exp
//       CHECK:   linalg.generic {{.*}}["parallel", "reduction"]
//       CHECK:     arith.addf
//       CHECK:   linalg.generic {{.*}}["parallel", "parallel"]
//       CHECK:     arith.divf

// -----

// Dynamic shapes are left alone.

func.func @dynamic(%a: tensor<?x1000xf32>, %e: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %r = linalg.softmax dimension(1) ins(%a : tensor<?x1000xf32>) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %r : tensor<?x1000xf32>
}
// CHECK-LABEL: func.func @dynamic(
//       CHECK:   linalg.softmax
