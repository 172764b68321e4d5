// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline --agent-emit-bundle="dir=%t" -o /dev/null
// RUN: cat %t/*/plan.json | FileCheck %s --check-prefix=PLAN

// A splat tensor constant read by a generic (torch-mlir passes scalars as
// `dense<0.0> : tensor<f32>`) is folded into the generic's body before
// outlining: the region reads the scalar, so no tensor constant crosses into
// it and its default lowering needs no constant buffer (which the builtin
// agent's kernels, reading the value as a literal, would not take).

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

func.func @where_zero(%c: tensor<8x32xf32>, %x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zeros = arith.constant dense<0.0> : tensor<f32>
  %halves = arith.constant dense<0.5> : tensor<8x32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %zeros, %x, %halves : tensor<8x32xf32>, tensor<f32>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %z: f32, %b: f32, %h: f32, %o: f32):
    %p = arith.cmpf ogt, %a, %h : f32
    %v = arith.select %p, %z, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
// CHECK-LABEL: func.func @where_zero(
//   CHECK-NOT:   dense<
//       CHECK:   call @where_zero_region0(%{{.+}}, %{{.+}}) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
//       CHECK: func.func private @where_zero_region0(
//   CHECK-NOT:   dense<
//       CHECK:   linalg.generic {indexing_maps = [#map, #map, #map]
//       CHECK:   ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
//       CHECK:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
//       CHECK:     arith.cmpf ogt, %{{.+}}, %[[HALF]]
//       CHECK:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:     arith.select %{{.+}}, %[[ZERO]], %{{.+}}

// The region's bundle: two inputs, one output, no constant buffer.
// PLAN-NOT: "constant"
// PLAN: "role": "input"
// PLAN-NOT: "constant"
