// RUN: rm -rf %t && cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s < %t/program/plan.json
// RUN: od -An -tx1 -v %t/program/const0.bin | FileCheck %s --check-prefix=MASK
// RUN: od -An -tx1 -v %t/program/const1.bin | FileCheck %s --check-prefix=SPLAT

// An i1 constant (the lower-triangular mask of a causal attention, as
// torch-mlir writes it) is a constant buffer of dtype i1 whose data file
// holds a byte per element, 0 or 1, as the device reads an i1 memref; MLIR
// packs the dense attribute by bits, and a splat `true` is 1 in every byte.

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal(%s: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %mask = arith.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %all = arith.constant dense<true> : tensor<3x3xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %all, %s : tensor<3x3xi1>, tensor<3x3xi1>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {
  ^bb0(%m: i1, %a: i1, %x: f32, %o: f32):
    %keep = arith.andi %m, %a : i1
    %v = arith.select %keep, %x, %ninf : f32
    linalg.yield %v : f32
  } -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

// CHECK:        "data": "const0.bin",
// CHECK-NEXT:   "dtype": "i1",
// CHECK-NEXT:   "name": "const0",
// CHECK-NEXT:   "role": "constant",
// CHECK:        "data": "const1.bin",
// CHECK-NEXT:   "dtype": "i1",
// CHECK:      "launches": [
// CHECK-NOT:  "copy"

// MASK: 01 00 00 01 01 00 01 01 01
// MASK-NOT: {{.}}
// SPLAT: 01 01 01 01 01 01 01 01 01
// SPLAT-NOT: {{.}}
