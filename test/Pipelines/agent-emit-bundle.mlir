// RUN: rm -rf %t && cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t" | FileCheck %s --check-prefix=IR
// RUN: cat %t/*/plan.json | FileCheck %s
// RUN: ls %t/* | FileCheck %s --check-prefix=FILES
// RUN: rm -rf %t.whole && cuda-agent-opt %s --agent-emit-bundle="dir=%t.whole" -o /dev/null
// RUN: cat %t.whole/plan.json | FileCheck %s --check-prefix=WHOLE
// RUN: not cuda-agent-opt %s --agent-emit-bundle 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not cuda-agent-opt %s --agent-default-lowering --agent-emit-bundle="dir=%t.late" 2>&1 | FileCheck %s --check-prefix=LATE

// agent-emit-bundle writes the default lowering of each outlined region as a
// bundle under DIR/<region hash>/ (plan.json + one cubin per kernel) and
// leaves the IR as it was. Without regions, the public function is the
// bundle, in DIR itself.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_scale(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x128xf32>, tensor<64xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// IR: func.func @row_scale(
// IR:   call @row_scale_region0
// IR: func.func private @row_scale_region0({{.*}}tensor<64x128xf32>) -> tensor<64x128xf32>
// IR-NOT: gpu.binary

// llvm::json writes keys in sorted order.
// CHECK:      "buffers": [
// CHECK:        "dtype": "f32",
// CHECK-NEXT:   "name": "in0",
// CHECK-NEXT:   "role": "input",
// CHECK-NEXT:   "shape": [
// CHECK-NEXT:     64,
// CHECK-NEXT:     128
// CHECK-NEXT:   ]
// CHECK:        "name": "out0",
// CHECK-NEXT:   "role": "output",
// CHECK:        "name": "tmp0",
// CHECK-NEXT:   "role": "temp",
// CHECK-NEXT:   "shape": [
// CHECK-NEXT:     64
// CHECK-NEXT:   ]
// CHECK:      "chip": "sm_90",
// CHECK-NEXT: "launches": [
// The fill, the serial row sum (one thread per row, 64 rows in one block of
// 256 threads), and the divide on 8x32 tiles.
// CHECK:        "args": [
// CHECK-NEXT:     "tmp0"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "block": [
// CHECK-NEXT:     256,
// CHECK-NEXT:     1,
// CHECK-NEXT:     1
// CHECK-NEXT:   ],
// CHECK-NEXT:   "grid": [
// CHECK-NEXT:     1,
// CHECK-NEXT:     1,
// CHECK-NEXT:     1
// CHECK-NEXT:   ],
// CHECK-NEXT:   "kernel": "row_scale_region0_kernel",
// CHECK-NEXT:   "object": "row_scale_region0_kernel.cubin",
// CHECK-NEXT:   "shared_bytes": 0
// CHECK:        "args": [
// CHECK-NEXT:     "in0",
// CHECK-NEXT:     "tmp0"
// CHECK-NEXT:   ],
// CHECK:        "object": "row_scale_region0_kernel_0.cubin",
// CHECK:        "args": [
// CHECK-NEXT:     "in0",
// CHECK-NEXT:     "tmp0",
// CHECK-NEXT:     "out0"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "block": [
// CHECK-NEXT:     32,
// CHECK-NEXT:     8,
// CHECK-NEXT:     1
// CHECK-NEXT:   ],
// CHECK-NEXT:   "grid": [
// CHECK-NEXT:     4,
// CHECK-NEXT:     8,
// CHECK-NEXT:     1
// CHECK-NEXT:   ],
// CHECK-NEXT:   "kernel": "row_scale_region0_kernel",
// CHECK-NEXT:   "object": "row_scale_region0_kernel_1.cubin",
// CHECK:      "version": 1

// FILES: plan.json
// FILES: row_scale_region0_kernel.cubin
// FILES: row_scale_region0_kernel_0.cubin
// FILES: row_scale_region0_kernel_1.cubin

// WHOLE: "kernel": "row_scale_kernel"
// WHOLE: "object": "row_scale_kernel.cubin"

// NODIR: agent-emit-bundle needs a directory
// LATE: error: no outlined region and no public function on tensors to write a bundle for (agent-emit-bundle must run before agent-default-lowering)
