// RUN: cuda-agent-opt %s --agent-cpu-reference | FileCheck %s
// RUN: cuda-agent-opt %s --agent-cpu-reference | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: %clang -x ir %t.ll -O1 -shared -fPIC -Wno-override-module -o %t.so -lm
// RUN: %python %S/Inputs/run_cpu_reference.py %t.so
// REQUIRES: numpy

// The CPU reference of a region: serial loops behind a C-callable function
// taking one bare pointer per input, then per output. Compiled here with
// clang and called through ctypes, it must match NumPy.

func.func @softmax(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %e = tensor.empty() : tensor<16x100xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<16x100xf32>) outs(%e : tensor<16x100xf32>) -> tensor<16x100xf32>
  return %s : tensor<16x100xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%a: tensor<32x48xf16>, %b: tensor<48x24xf16>, %bias: tensor<24xf32>) -> tensor<32x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x24xf32>) -> tensor<32x24xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x48xf16>, tensor<48x24xf16>) outs(%f : tensor<32x24xf32>) -> tensor<32x24xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<32x24xf32>, tensor<24xf32>) outs(%e : tensor<32x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<32x24xf32>
  return %r : tensor<32x24xf32>
}

// CHECK-LABEL: llvm.func @softmax(
//  CHECK-SAME:     %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
//   CHECK-NOT:   gpu.
//       CHECK:   llvm.call @free
// CHECK-LABEL: llvm.func @matmul_bias_relu(
//  CHECK-SAME:     %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
