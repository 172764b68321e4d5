// RUN: cuda-agent-opt %s --agent-outline | FileCheck %s

// The region hash depends on what the region computes, not on how the
// program spells it: @first and @second differ in function and value names,
// argument order, locations and the order of two independent ops, and get the
// same hash and the same canonical argument order. Changing a shape, an
// element type or a constant changes the hash.

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @first(%x: tensor<128x64xf32>, %y: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %e = tensor.empty() : tensor<128x64xf32>
  %a = linalg.exp ins(%x : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %b = linalg.negf ins(%y : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}
// CHECK-LABEL: func.func @first(
//  CHECK-SAME:     %[[X:.+]]: tensor<128x64xf32>, %[[Y:.+]]: tensor<128x64xf32>)
//  CHECK-NEXT:   call @first_region0(%[[X]], %[[Y]])
// CHECK-LABEL: func.func private @first_region0(
//  CHECK-SAME:     hash = "[[$HASH:[0-9a-f]{64}]]"

func.func @second(%negated: tensor<128x64xf32>, %exped: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %init = tensor.empty() : tensor<128x64xf32> loc("somewhere.py":3:4)
  %n = linalg.negf ins(%negated : tensor<128x64xf32>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32> loc("somewhere.py":4:4)
  %m = linalg.exp ins(%exped : tensor<128x64xf32>) outs(%init : tensor<128x64xf32>) -> tensor<128x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %n : tensor<128x64xf32>, tensor<128x64xf32>) outs(%init : tensor<128x64xf32>) {
  ^bb0(%in0: f32, %in1: f32, %unused: f32):
    %t = arith.addf %in0, %in1 : f32
    %cst = arith.constant 0.0 : f32
    %relu = arith.maximumf %t, %cst : f32
    linalg.yield %relu : f32
  } -> tensor<128x64xf32>
  return %sum : tensor<128x64xf32>
}
// The exp operand comes first in the canonical order, whatever the source
// order of arguments and ops.
// CHECK-LABEL: func.func @second(
//  CHECK-SAME:     %[[NEG:.+]]: tensor<128x64xf32>, %[[EXP:.+]]: tensor<128x64xf32>)
//  CHECK-NEXT:   call @second_region0(%[[EXP]], %[[NEG]])
// CHECK-LABEL: func.func private @second_region0(
//  CHECK-SAME:     hash = "[[$HASH]]"

func.func @other_shape(%x: tensor<128x32xf32>, %y: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %e = tensor.empty() : tensor<128x32xf32>
  %a = linalg.exp ins(%x : tensor<128x32xf32>) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %b = linalg.negf ins(%y : tensor<128x32xf32>) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<128x32xf32>, tensor<128x32xf32>) outs(%e : tensor<128x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x32xf32>
  return %c : tensor<128x32xf32>
}
// CHECK-LABEL: func.func private @other_shape_region0(
//   CHECK-NOT:     hash = "[[$HASH]]"
//  CHECK-SAME:     hash = "{{[0-9a-f]{64}"}}

func.func @other_dtype(%x: tensor<128x64xf16>, %y: tensor<128x64xf16>) -> tensor<128x64xf16> {
  %e = tensor.empty() : tensor<128x64xf16>
  %a = linalg.exp ins(%x : tensor<128x64xf16>) outs(%e : tensor<128x64xf16>) -> tensor<128x64xf16>
  %b = linalg.negf ins(%y : tensor<128x64xf16>) outs(%e : tensor<128x64xf16>) -> tensor<128x64xf16>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<128x64xf16>, tensor<128x64xf16>) outs(%e : tensor<128x64xf16>) {
  ^bb0(%p: f16, %q: f16, %o: f16):
    %zero = arith.constant 0.0 : f16
    %s = arith.addf %p, %q : f16
    %r = arith.maximumf %s, %zero : f16
    linalg.yield %r : f16
  } -> tensor<128x64xf16>
  return %c : tensor<128x64xf16>
}
// CHECK-LABEL: func.func private @other_dtype_region0(
//   CHECK-NOT:     hash = "[[$HASH]]"
//  CHECK-SAME:     hash = "{{[0-9a-f]{64}"}}

func.func @other_constant(%x: tensor<128x64xf32>, %y: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %e = tensor.empty() : tensor<128x64xf32>
  %a = linalg.exp ins(%x : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %b = linalg.negf ins(%y : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<128x64xf32>, tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %six = arith.constant 6.0 : f32
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %six : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}
// CHECK-LABEL: func.func private @other_constant_region0(
//   CHECK-NOT:     hash = "[[$HASH]]"
//  CHECK-SAME:     hash = "{{[0-9a-f]{64}"}}
