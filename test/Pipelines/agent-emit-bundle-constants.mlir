// RUN: rm -rf %t && cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s < %t/program/plan.json
// RUN: od -An -tx1 -v %t/program/const1.bin | FileCheck %s --check-prefix=BIAS
// RUN: od -An -tf4 -v %t/program/const0.bin | FileCheck %s --check-prefix=WEIGHT
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM

// What torch-mlir emits for nn.Linear with its parameters as constants: a
// dense_resource weight, transposed by a linalg.transpose, and a bias
// broadcast as the matmul's init. In the whole-program bundle each constant
// is a buffer of role "constant" whose bytes (the weight as the device holds
// it, row-major little-endian; a splat repeated) are a data file beside
// plan.json, uploaded by the runner; no copy step and no host data. Outlined
// first, the weight is an argument of the region call and the same buffer. Lowered to LLVM, each is uploaded once per call (mgpuMemcpy from
// the host global into its device buffer) before the first kernel.

#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense_resource<torch_weight> : tensor<4x3xf32>
  %b = arith.constant dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>
  %et = tensor.empty() : tensor<3x4xf32>
  %wt = linalg.transpose ins(%w : tensor<4x3xf32>) outs(%et : tensor<3x4xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<2x4xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<2x3xf32>, tensor<3x4xf32>) outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      torch_weight: "0x040000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041"
    }
  }
#-}

// CHECK:      "buffers": [
// CHECK:        "name": "in0",
// CHECK-NEXT:   "role": "input",
// CHECK:        "name": "out0",
// CHECK-NEXT:   "role": "output",
// CHECK:        "data": "const0.bin",
// CHECK-NEXT:   "dtype": "f32",
// CHECK-NEXT:   "name": "const0",
// CHECK-NEXT:   "role": "constant",
// CHECK-NEXT:   "shape": [
// CHECK-NEXT:     4,
// CHECK-NEXT:     3
// CHECK-NEXT:   ]
// CHECK:        "data": "const1.bin",
// CHECK-NEXT:   "dtype": "f32",
// CHECK-NEXT:   "name": "const1",
// CHECK-NEXT:   "role": "constant",
// CHECK-NEXT:   "shape": [
// CHECK-NEXT:     4
// CHECK-NEXT:   ]
// CHECK:      "launches": [
// CHECK-NOT:  "copy"
// CHECK:      "version": 1

// The splat bias, 0.5 four times.
// BIAS: 00 00 00 3f 00 00 00 3f 00 00 00 3f 00 00 00 3f
// The weight's blob without its 4-byte alignment header: 1 to 12.
// WEIGHT: 1 2 3 4
// WEIGHT-NEXT: 5 6 7 8
// WEIGHT-NEXT: 9 10 11 12

// Outlined, the splat bias is folded into the body of the generic that
// broadcasts it (agent-outline-splat-operands.mlir): only the weight is a
// constant buffer.
// OUTLINED: "name": "const0",
// OUTLINED-NEXT: "role": "constant",
// OUTLINED-NOT: "name": "const1",
// OUTLINED: "launches": [
// OUTLINED-NOT: "copy"
// OUTLINED: "version": 1

// LLVM: llvm.mlir.global private constant @{{.*}}(dense_resource<torch_weight> : tensor<4x3xf32>)
// LLVM-LABEL: llvm.func @linear(
// LLVM: llvm.call @mgpuMemAlloc(
// LLVM-NEXT: llvm.call @mgpuMemcpy(
// LLVM: llvm.call @mgpuMemAlloc(
// LLVM-NEXT: llvm.call @mgpuMemcpy(
// LLVM: gpu.launch_func
// LLVM: llvm.call @mgpuMemFree(
