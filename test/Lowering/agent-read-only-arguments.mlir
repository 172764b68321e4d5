// RUN: cuda-agent-opt %s --agent-read-only-arguments | FileCheck %s
// RUN: cuda-agent-opt %s --agent-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// A public function's tensors are the caller's values: marked unwritable,
// so that bufferization copies %x before the slice is written into it.
// Non-tensor arguments, private functions and declarations are left alone.

func.func @insert(%x: tensor<4x16xf32>, %y: tensor<2x8xf32>, %n: index) -> tensor<4x16xf32> {
  %r = tensor.insert_slice %y into %x[1, 4] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
// CHECK-LABEL: func.func @insert(
//  CHECK-SAME:   %{{.*}}: tensor<4x16xf32> {bufferization.writable = false},
//  CHECK-SAME:   %{{.*}}: tensor<2x8xf32> {bufferization.writable = false},
//  CHECK-SAME:   %{{.*}}: index)

// The copy of the argument comes first, and the slice is written into it.
// BUF-LABEL: func.func @insert(
//  BUF-SAME:   %[[X:[a-z0-9]+]]: memref<4x16xf32
//       BUF:   %[[NEW:.*]] = memref.alloc()
//       BUF:   memref.copy %[[X]], %[[NEW]]
//       BUF:   %[[BOX:.*]] = memref.subview %[[NEW]][1, 4] [2, 8] [1, 1]
//       BUF:   memref.copy %{{.*}}, %[[BOX]]
//       BUF:   return %[[NEW]]

func.func private @region(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}
// CHECK-LABEL: func.func private @region(
//  CHECK-SAME:   %{{.*}}: tensor<4x16xf32>) -> tensor<4x16xf32>

func.func private @external(tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-LABEL: func.func private @external(tensor<4x16xf32>) -> tensor<4x16xf32>
