// RUN: cuda-agent-opt %s --split-input-file --agent-strided-copies | FileCheck %s

// A copy into a strided view (a concatenation's or a pad's destination)
// becomes a parallel copy loop, which the default lowering runs as a kernel;
// a copy between whole buffers stays a copy (it becomes gpu.memcpy).
func.func @into_view(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %out: memref<4x16xf32>) {
  %v = memref.subview %out[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %a, %v : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}
// CHECK-LABEL: func.func @into_view(
//  CHECK-SAME:     %[[A:.+]]: memref<4x8xf32>, %[[B:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x16xf32>)
//   CHECK-DAG:   %[[C0:.+]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C4:.+]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
//   CHECK-DAG:   %[[V:.+]] = memref.subview %[[OUT]][0, 8] [4, 8] [1, 1]
//       CHECK:   scf.parallel (%[[I:.+]], %[[J:.+]]) = (%[[C0]], %[[C0]]) to (%[[C4]], %[[C8]]) step (%[[C1]], %[[C1]])
//  CHECK-NEXT:     %[[X:.+]] = memref.load %[[A]][%[[I]], %[[J]]]
//  CHECK-NEXT:     memref.store %[[X]], %[[V]][%[[I]], %[[J]]]
//       CHECK:   memref.copy %[[A]], %[[B]]

// -----

// A copy out of a slice, with a dynamic size, loops over the slice's sizes.
func.func @from_dynamic_slice(%a: memref<?x8xf32>, %out: memref<?x4xf32>, %n: index) {
  %s = memref.subview %a[0, 2] [%n, 4] [1, 1] : memref<?x8xf32> to memref<?x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %s, %out : memref<?x4xf32, strided<[8, 1], offset: 2>> to memref<?x4xf32>
  return
}
// CHECK-LABEL: func.func @from_dynamic_slice(
//       CHECK:   %[[S:.+]] = memref.subview
//       CHECK:   %[[N:.+]] = memref.dim %[[S]], %c0
//       CHECK:   scf.parallel ({{.+}}) = ({{.+}}) to (%[[N]], %c4{{.*}})
//   CHECK-NOT:   memref.copy
