// RUN: rm -rf %t && cuda-agent-opt %s --agent-emit-bundle="dir=%t" -o /dev/null
// RUN: cat %t/plan.json | FileCheck %s

// A whole program whose default lowering copies a buffer (here: an input
// returned as a result, copied into its out-parameter) gets a copy step in
// its launch plan, after the kernel.

func.func @exp_and_passthrough(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256xf32>
  %y = linalg.exp ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  return %y, %x : tensor<256xf32>, tensor<256xf32>
}

// CHECK:      "launches": [
// CHECK:          "kernel": "exp_and_passthrough_kernel",
// CHECK:        {
// CHECK-NEXT:     "copy": {
// CHECK-NEXT:       "from": "in0",
// CHECK-NEXT:       "to": "out1"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: ],
