// RUN: cuda-agent-opt %s --split-input-file --verify-diagnostics --agent-gpu-loops | FileCheck %s

// A rank-2 loop is tiled 8x32 with constant inner bounds and a guard.
func.func @rank2(%a: memref<64x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<64x1000xf32>
  }
  return
}
// CHECK-LABEL: func.func @rank2(
//   CHECK-DAG:   %[[C8:.+]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C32:.+]] = arith.constant 32 : index
//       CHECK:   %[[S0:.+]] = arith.muli %{{.+}}, %[[C8]]
//       CHECK:   %[[S1:.+]] = arith.muli %{{.+}}, %[[C32]]
//       CHECK:   scf.parallel ({{.+}}) = ({{.+}}) to (%c64, %c1000) step (%[[S0]], %[[S1]])
//       CHECK:     scf.parallel ({{.+}}) = ({{.+}}) to (%[[S0]], %[[S1]]) step (%c1, %c1)
//       CHECK:       scf.if
//  CHECK-NEXT:         memref.store


// -----

// A rank-1 loop is tiled by 256.
func.func @rank1(%a: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    memref.store %z, %a[%i] : memref<512xf32>
  }
  return
}
// CHECK-LABEL: func.func @rank1(
//       CHECK:   %[[C256:.+]] = arith.constant 256 : index
//       CHECK:   %[[S:.+]] = arith.muli %{{.+}}, %[[C256]]
//       CHECK:   scf.parallel ({{.+}}) = ({{.+}}) to (%c512) step (%[[S]])
//       CHECK:     scf.parallel ({{.+}}) = ({{.+}}) to (%[[S]]) step
//   CHECK-NOT:       scf.if
//       CHECK:       memref.store


// -----

// A rank-4 loop (NHWC) is collapsed to (N*H*W | C) first, then tiled 8x32.
func.func @rank4(%a: memref<1x30x30x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c30 = arith.constant 30 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c1, %c30, %c30, %c32) step (%c1, %c1, %c1, %c1) {
    memref.store %z, %a[%n, %h, %w, %c] : memref<1x30x30x32xf32>
  }
  return
}
// CHECK-LABEL: func.func @rank4(
//       CHECK:   arith.constant 8 : index
//       CHECK:   scf.parallel (%{{[^,]+}}, %{{[^,]+}}) = ({{.+}}) to ({{.+}}) step
//       CHECK:     scf.parallel (%{{[^,]+}}, %{{[^,]+}}) = ({{.+}}) to
//       CHECK:       scf.if
//       CHECK:         arith.remsi
//       CHECK:         memref.store


// -----

// A loop with a reduction result cannot be mapped by the default lowering.
func.func @reduction(%a: memref<512xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot map this scf.parallel to the GPU: the default lowering does not support loops with scf.reduce results}}
  %r = scf.parallel (%i) = (%c0) to (%c512) step (%c1) init (%z) -> f32 {
    %v = memref.load %a[%i] : memref<512xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}


// -----

// External declarations are left alone.
func.func private @external(memref<512xf32>)
// CHECK: func.func private @external(memref<512xf32>)

// -----

// math.fpowi gets an i32 exponent (torch-mlir writes `x ** 3` with an i64
// one, which the NVVM lowering would pass to libdevice's 32-bit __nv_powif
// parameter): a constant is narrowed exactly, another exponent is clamped
// to the i32 range and truncated.
func.func @powi(%a: memref<256xf32>, %n: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c3 = arith.constant 3 : i64
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %x = memref.load %a[%i] : memref<256xf32>
    %p = math.fpowi %x, %c3 : f32, i64
    %q = math.fpowi %p, %n : f32, i64
    memref.store %q, %a[%i] : memref<256xf32>
    scf.reduce
  }
  return
}
// CHECK-LABEL: func.func @powi(
//  CHECK-SAME:     %{{.*}}: memref<256xf32>, %[[N:.*]]: i64)
//       CHECK:   %[[C3:.*]] = arith.constant 3 : i32
//  CHECK-NEXT:   %[[P:.*]] = math.fpowi %{{.*}}, %[[C3]] : f32, i32
//  CHECK-NEXT:   %[[MIN:.*]] = arith.constant -2147483648 : i64
//  CHECK-NEXT:   %[[MAX:.*]] = arith.constant 2147483647 : i64
//  CHECK-NEXT:   %[[LO:.*]] = arith.maxsi %[[N]], %[[MIN]] : i64
//  CHECK-NEXT:   %[[HI:.*]] = arith.minsi %[[LO]], %[[MAX]] : i64
//  CHECK-NEXT:   %[[N32:.*]] = arith.trunci %[[HI]] : i64 to i32
//  CHECK-NEXT:   math.fpowi %[[P]], %[[N32]] : f32, i32

// -----

// More than 65535 row tiles (560000 rows of 8: a convolution's batch x output
// pixels at full batch) do not fit blockIdx.y: the row tiles go on blockIdx.x
// and the column tiles on blockIdx.y; the threads keep the usual mapping
// (the contiguous dimension on threadIdx.x).
func.func @many_rows(%a: memref<560000x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 560000 : index
  %cols = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<560000x64xf32>
  }
  return
}
// CHECK-LABEL: func.func @many_rows(
//       CHECK:   scf.parallel
//       CHECK:     scf.parallel
//       CHECK:       memref.store
//       CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
//       CHECK:   } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}

// -----

// Loops whose tiles fit the grid keep the innermost-first mapping that
// gpu-map-parallel-loops gives later (no mapping yet).
func.func @rows_at_the_limit(%a: memref<524280x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 524280 : index
  %cols = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<524280x64xf32>
  }
  return
}
// CHECK-LABEL: func.func @rows_at_the_limit(
//   CHECK-NOT:   mapping
//       CHECK:   return

// -----

// Too many tiles both ways for any mapping: an error, not a launch CUDA
// refuses.
func.func @too_many_tiles(%a: memref<560000x2200000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 560000 : index
  %cols = arith.constant 2200000 : index
  %z = arith.constant 0.0 : f32
  // expected-error @below {{cannot map this scf.parallel to the GPU: its tiles exceed CUDA's grid limits (70000, 68750 blocks)}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<560000x2200000xf32>
  }
  return
}

// -----

// The same after collapsing: KernelBench's conv output 128x128x126x126 (NCHW)
// is 2064384 rows of 126, 258048 row tiles: on blockIdx.x.
func.func @conv_output_full_batch(%a: memref<128x128x126x126xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c126 = arith.constant 126 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c128, %c128, %c126, %c126) step (%c1, %c1, %c1, %c1) {
    memref.store %z, %a[%i, %j, %k, %l] : memref<128x128x126x126xf32>
  }
  return
}
// CHECK-LABEL: func.func @conv_output_full_batch(
//       CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
//       CHECK:   } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>]}

// -----

// A gather's bounds assertion (torch-mlir's embedding) goes behind an scf.if on
// its failing condition: convert-parallel-loops-to-gpu refuses a loop body with
// a cf.assert at its top level, and would leave the loop on the host.
func.func @gather(%table: memref<50x32xf32>, %idx: memref<32xi64>, %out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c50 = arith.constant 50 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
    %t = memref.load %idx[%i] : memref<32xi64>
    %r = arith.index_cast %t : i64 to index
    %ok = arith.cmpi slt, %r, %c50 : index
    cf.assert %ok, "index must be smaller than dim size"
    %v = memref.load %table[%r, %j] : memref<50x32xf32>
    memref.store %v, %out[%i, %j] : memref<32x32xf32>
  }
  return
}
// CHECK-LABEL: func.func @gather(
//       CHECK:   scf.parallel
//       CHECK:     scf.parallel
//       CHECK:       %[[OK:.+]] = arith.cmpi slt
//  CHECK-NEXT:       %[[TRUE:.+]] = arith.constant true
//  CHECK-NEXT:       %[[FAILS:.+]] = arith.xori %[[OK]], %[[TRUE]] : i1
//  CHECK-NEXT:       scf.if %[[FAILS]] {
//  CHECK-NEXT:         cf.assert %[[OK]], "index must be smaller than dim size"
//  CHECK-NEXT:       }
//  CHECK-NEXT:       memref.load
