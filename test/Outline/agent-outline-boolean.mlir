// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="remark-regions=true" -verify-diagnostics -o /dev/null

// An i1 tensor between two generics (a mask: torch's isinf, where) is fused
// into the generic that reads it before outlining: the comparison moves into
// the reader's body, so the mask never crosses a region boundary (i1 is not
// a region element type) and both ops join the region.

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mask(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %eb = tensor.empty() : tensor<8x32xi1>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x32xf32>) outs(%eb : tensor<8x32xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<8x32xi1>
  // expected-remark @below {{outlined elementwise region @mask_region0}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %x, %y : tensor<8x32xi1>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %o: f32):
    %v = arith.select %c, %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
// CHECK-LABEL: func.func @mask(
//  CHECK-NEXT:   %[[R:.+]] = call @mask_region0(%{{.+}}, %{{.+}}) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
//  CHECK-NEXT:   return %[[R]]
//       CHECK: func.func private @mask_region0(
//   CHECK-NOT:   xi1>
//       CHECK:   arith.cmpf ogt
//  CHECK-NEXT:   arith.select
//   CHECK-NOT:   xi1>
//       CHECK:   return

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The mask is returned too: it stays outside every region (i1 cannot cross
// a boundary), and the select still reads the comparison in its own body.
func.func @mask_returned(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xi1>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %eb = tensor.empty() : tensor<8x32xi1>
  // expected-remark @below {{kept outside any kernel region: element type i1 is not supported}}
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x32xf32>) outs(%eb : tensor<8x32xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<8x32xi1>
  // expected-remark @below {{outlined elementwise region @mask_returned_region0}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %x, %y : tensor<8x32xi1>, tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%c: i1, %a: f32, %b: f32, %o: f32):
    %v = arith.select %c, %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x32xf32>
  return %r, %m : tensor<8x32xf32>, tensor<8x32xi1>
}
// CHECK-LABEL: func.func @mask_returned(
//       CHECK:   %[[M:.+]] = linalg.generic
//       CHECK:   } -> tensor<8x32xi1>
//       CHECK:   %[[R:.+]] = call @mask_returned_region0(%{{.+}}, %{{.+}}) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
//  CHECK-NEXT:   return %[[R]], %[[M]]
