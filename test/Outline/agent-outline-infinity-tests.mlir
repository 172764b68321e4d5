// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="remark-regions=true" -verify-diagnostics -o /dev/null

// torch's attention guards its softmax with where(all(s == -inf, -1), 0, p),
// which torch-mlir writes as an i1 tensor of comparisons (in f64) and an
// andi reduction of it. The outliner rewrites the reduction as the row's
// max compared with -inf once (lib/Outline/InfinityTests.cpp): no i1
// tensor is left, and the guard joins the row region of the softmax.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @guarded_softmax(%s: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %ninf64 = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %er = tensor.empty() : tensor<4xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{outlined reduction region @guarded_softmax_region0}}
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x16xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<4x16xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x16xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %eb = tensor.empty() : tensor<4x16xi1>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x16xf32>) outs(%eb : tensor<4x16xi1>) {
  ^bb0(%a: f32, %o: i1):
    %w = arith.extf %a : f32 to f64
    %c = arith.cmpf oeq, %w, %ninf64 : f64
    linalg.yield %c : i1
  } -> tensor<4x16xi1>
  %erb = tensor.empty() : tensor<4xi1>
  %ainit = linalg.fill ins(%true : i1) outs(%erb : tensor<4xi1>) -> tensor<4xi1>
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%masked : tensor<4x16xi1>) outs(%ainit : tensor<4xi1>) {
  ^bb0(%a: i1, %o: i1):
    %v = arith.andi %a, %o : i1
    linalg.yield %v : i1
  } -> tensor<4xi1>
  %r = linalg.generic {indexing_maps = [#row, #id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%all, %ex, %sum : tensor<4xi1>, tensor<4x16xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%g: i1, %a: f32, %t: f32, %o: f32):
    %p = arith.divf %a, %t : f32
    %v = arith.select %g, %zero, %p : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
// CHECK-LABEL: func.func @guarded_softmax(
//  CHECK-NEXT:   %[[R:.+]] = call @guarded_softmax_region0(%{{.+}}) : (tensor<4x16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:   return %[[R]]
//       CHECK: func.func private @guarded_softmax_region0(
//   CHECK-NOT:   xi1>
//   CHECK-DAG:   %[[NINF:.+]] = arith.constant 0xFF800000 : f32
//   CHECK-DAG:   %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32)
//       CHECK:   %[[GUARD:.+]] = linalg.generic {{.+}} outs(%[[INIT]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     arith.maximumf
//   CHECK-NOT:   xi1>
//       CHECK:   ins(%[[GUARD]], {{.+}} : tensor<4xf32>, tensor<4x16xf32>, tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[GMAX:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[BOUND:.+]] = arith.constant 0xFF800000 : f32
//  CHECK-NEXT:     %[[EQ:.+]] = arith.cmpf oeq, %[[GMAX]], %[[BOUND]] : f32
//       CHECK:     arith.select %[[EQ]]
//   CHECK-NOT:   xi1>
//       CHECK:   return

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The comparison in the reduction's own body, with +inf: all(x == +inf) is
// min(x) == +inf.
func.func @all_positive_infinity(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %inf = arith.constant 0x7F800000 : f32
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %erb = tensor.empty() : tensor<4xi1>
  %ainit = linalg.fill ins(%true : i1) outs(%erb : tensor<4xi1>) -> tensor<4xi1>
  // expected-remark @below {{outlined reduction region @all_positive_infinity_region0}}
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%ainit : tensor<4xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf oeq, %inf, %a : f32
    %v = arith.andi %o, %c : i1
    linalg.yield %v : i1
  } -> tensor<4xi1>
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%all, %x : tensor<4xi1>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%g: i1, %a: f32, %o: f32):
    %v = arith.select %g, %zero, %a : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
// CHECK-LABEL: func.func @all_positive_infinity(
//  CHECK-NEXT:   call @all_positive_infinity_region0(%{{.+}}) : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK: func.func private @all_positive_infinity_region0(
//   CHECK-NOT:   xi1>
//       CHECK:   arith.constant 0x7F800000 : f32
//       CHECK:     arith.minimumf
//       CHECK:     %[[INF:.+]] = arith.constant 0x7F800000 : f32
//  CHECK-NEXT:     arith.cmpf oeq, %{{.+}}, %[[INF]] : f32
//   CHECK-NOT:   xi1>
//       CHECK:   return

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// all(x == 0) has no extreme to compare: the i1 reduction stays outside
// every region, as before.
func.func @all_zero(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %erb = tensor.empty() : tensor<4xi1>
  // expected-remark @below {{kept outside any kernel region: element type i1 is not supported}}
  %ainit = linalg.fill ins(%true : i1) outs(%erb : tensor<4xi1>) -> tensor<4xi1>
  // expected-remark @below {{kept outside any kernel region: element type i1 is not supported}}
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%ainit : tensor<4xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf oeq, %a, %zero : f32
    %v = arith.andi %c, %o : i1
    linalg.yield %v : i1
  } -> tensor<4xi1>
  %e = tensor.empty() : tensor<4x16xf32>
  // expected-remark @below {{kept outside any kernel region: element type i1 is not supported}}
  %r = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%all, %x : tensor<4xi1>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%g: i1, %a: f32, %o: f32):
    %v = arith.select %g, %zero, %a : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
// CHECK-LABEL: func.func @all_zero(
//       CHECK:   arith.andi
//       CHECK:   } -> tensor<4xi1>
//   CHECK-NOT:   call @
//       CHECK:   return
