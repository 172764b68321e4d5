// RUN: cuda-agent-opt %s --split-input-file --verify-diagnostics --agent-device-buffers | FileCheck %s

// Host temporaries become device allocations and copies become gpu.memcpy;
// every temporary that is neither freed nor returned is freed before the
// return. Calls stay: the callee is lowered on its own.

func.func private @region(memref<64xf32>, memref<64xf32>)
func.func @temporaries(%a: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64xf32>
  %u = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %a[%tx] : memref<64xf32>
    memref.store %v, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  call @region(%t, %u) : (memref<64xf32>, memref<64xf32>) -> ()
  memref.copy %u, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %u : memref<64xf32>
  return
}
// CHECK-LABEL: func.func private @region(memref<64xf32>, memref<64xf32>)
// CHECK-LABEL: func.func @temporaries(
//  CHECK-SAME:     %[[A:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<64xf32>)
//       CHECK:   %[[T:.+]] = gpu.alloc () : memref<64xf32>
//       CHECK:   %[[U:.+]] = gpu.alloc () : memref<64xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[A]]
//       CHECK:     memref.store %{{.+}}, %[[T]]
//       CHECK:   call @region(%[[T]], %[[U]])
//  CHECK-NEXT:   gpu.memcpy %[[OUT]], %[[U]] : memref<64xf32>, memref<64xf32>
//  CHECK-NEXT:   gpu.dealloc %[[U]] : memref<64xf32>
//  CHECK-NEXT:   gpu.dealloc %[[T]] : memref<64xf32>
//  CHECK-NEXT:   return

// -----

// A buffer the function returns (a dynamic shape, which
// buffer-results-to-out-params does not hoist) is not freed.

func.func @returned(%n: index) -> memref<?xf32> {
  %b = memref.alloc(%n) : memref<?xf32>
  return %b : memref<?xf32>
}
// CHECK-LABEL: func.func @returned(
//  CHECK-SAME:     %[[N:.+]]: index)
//  CHECK-NEXT:   %[[B:.+]] = gpu.alloc (%[[N]]) : memref<?xf32>
//  CHECK-NEXT:   return %[[B]]

// -----

// A loop left on the host means the default lowering failed to map it:
// report it instead of timing host code, and leave the function unchanged.

func.func @unmapped(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<16xf32>
  // expected-error @+2 {{cannot run on the GPU: 'scf.for' was left on the host by the default lowering in @unmapped}}
  // expected-note @+1 {{host control flow (scf.for, scf.if, scf.while) is not supported: only linalg ops become kernels}}
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %z, %a[%i] : memref<16xf32>
  }
  return
}

// -----

// A host memref.load would dereference a device pointer.

func.func @host_load(%a: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+2 {{cannot run on the GPU: 'memref.load' was left on the host by the default lowering in @host_load}}
  // expected-note @+1 {{the host would read or write device memory (a scalar tensor.extract or tensor.insert)}}
  %v = memref.load %a[%c0] : memref<16xf32>
  return %v : f32
}

// -----

// Control flow on the host is reported on the function.

// expected-error @+1 {{cannot run on the GPU: @branches has control flow on the host after the default lowering}}
func.func @branches(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}

// -----

// A reshape of a whole buffer is pointer metadata: it stays on the host and
// the kernel takes the reshaped buffer (the same device pointer). A result
// that is a reshape of a temporary is written in place: the temporary
// becomes the inverse reshape of the out-parameter and the copy goes away.

func.func @reshapes(%a: memref<16x64xf32>, %out: memref<16x1xf32>) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<16xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<16x64xf32> into memref<1024xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %flat[%tx] : memref<1024xf32>
    memref.store %v, %t[%tx] : memref<16xf32>
    gpu.terminator
  }
  %k = memref.expand_shape %t [[0, 1]] output_shape [16, 1] : memref<16xf32> into memref<16x1xf32>
  memref.copy %k, %out : memref<16x1xf32> to memref<16x1xf32>
  return
}
// CHECK-LABEL: func.func @reshapes(
//  CHECK-SAME:     %[[A:.+]]: memref<16x64xf32>, %[[OUT:.+]]: memref<16x1xf32>)
//   CHECK-NOT:   alloc
//       CHECK:   %[[T:.+]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]] : memref<16x1xf32> into memref<16xf32>
//       CHECK:   %[[FLAT:.+]] = memref.collapse_shape %[[A]] {{\[}}[0, 1]] : memref<16x64xf32> into memref<1024xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[FLAT]]
//       CHECK:     memref.store %{{.+}}, %[[T]]
//   CHECK-NOT:   memcpy
//   CHECK-NOT:   dealloc
//       CHECK:   return

// -----

// A view that is not a whole buffer (a slice) goes into the kernels that
// read it: the kernel takes the whole buffer and computes the view itself.

func.func @slice_in_kernel(%a: memref<4x8xf32>, %out: memref<2x4xf32>) {
  %c1 = arith.constant 1 : index
  %s = memref.subview %a[1, 2] [2, 4] [1, 1] : memref<4x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 10>>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %s[%ty, %tx] : memref<2x4xf32, strided<[8, 1], offset: 10>>
    memref.store %v, %out[%ty, %tx] : memref<2x4xf32>
    gpu.terminator
  }
  return
}
// CHECK-LABEL: func.func @slice_in_kernel(
//  CHECK-SAME:     %[[A:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<2x4xf32>)
//  CHECK-NEXT:   %[[C1:.+]] = arith.constant 1 : index
//  CHECK-NEXT:   gpu.launch
//  CHECK-NEXT:     %[[S:.+]] = memref.subview %[[A]][1, 2] [2, 4] [1, 1]
//  CHECK-NEXT:     memref.load %[[S]]

// -----

// A slice the host itself uses (here passed to a call) cannot be placed:
// the error names the op and the function and says why.

func.func private @takes_view(memref<2x4xf32, strided<[8, 1], offset: 10>>)
func.func @slice_on_host(%a: memref<4x8xf32>) {
  // expected-error @+2 {{cannot run on the GPU: 'memref.subview' was left on the host by the default lowering in @slice_on_host}}
  // expected-note @+1 {{a view that is not a whole buffer (a slice or a pad's interior) can only be read by kernels; here the host uses it}}
  %s = memref.subview %a[1, 2] [2, 4] [1, 1] : memref<4x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 10>>
  call @takes_view(%s) : (memref<2x4xf32, strided<[8, 1], offset: 10>>) -> ()
  return
}

// -----

// A weight (a dense or dense_resource tensor constant bufferizes to a
// constant memref.global) becomes one device buffer per global, uploaded
// once before its first use, and freed before the return: kernels, calls and
// reshapes read the device buffer, never the host global. The upload is the
// only host use of the global.

memref.global "private" constant @weight : memref<4x16xf32> = dense_resource<torch_weight>
memref.global "private" constant @bias : memref<16xf32> = dense<1.0>
func.func private @region(memref<64xf32>, memref<16xf32>, memref<16xf32>)
func.func @weights(%a: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %w = memref.get_global @weight : memref<4x16xf32>
  %b = memref.get_global @bias : memref<16xf32>
  %flat = memref.collapse_shape %w [[0, 1]] : memref<4x16xf32> into memref<64xf32>
  call @region(%flat, %b, %out) : (memref<64xf32>, memref<16xf32>, memref<16xf32>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %b[%tx] : memref<16xf32>
    %u = memref.load %w[%c1, %tx] : memref<4x16xf32>
    %s = arith.addf %v, %u : f32
    memref.store %s, %out[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}
{-#
  dialect_resources: {
    builtin: {
      torch_weight: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}
// CHECK-LABEL: func.func @weights(
//  CHECK-SAME:     %[[A:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<16xf32>)
//       CHECK:   %[[WH:.+]] = memref.get_global @weight : memref<4x16xf32>
//  CHECK-NEXT:   %[[W:.+]] = gpu.alloc () : memref<4x16xf32>
//  CHECK-NEXT:   gpu.memcpy %[[W]], %[[WH]] : memref<4x16xf32>, memref<4x16xf32>
//  CHECK-NEXT:   %[[BH:.+]] = memref.get_global @bias : memref<16xf32>
//  CHECK-NEXT:   %[[B:.+]] = gpu.alloc () : memref<16xf32>
//  CHECK-NEXT:   gpu.memcpy %[[B]], %[[BH]] : memref<16xf32>, memref<16xf32>
//  CHECK-NEXT:   %[[FLAT:.+]] = memref.collapse_shape %[[W]]
//  CHECK-NEXT:   call @region(%[[FLAT]], %[[B]], %[[OUT]])
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[B]]
//       CHECK:     memref.load %[[W]]
//   CHECK-NOT:   memref.get_global
//       CHECK:   gpu.dealloc %[[W]]
//       CHECK:   gpu.dealloc %[[B]]
//  CHECK-NEXT:   return
