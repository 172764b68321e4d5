// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-opt %s --agent-outline -o %t/outlined.mlir
// RUN: %python %S/Inputs/make_bundle.py %t/outlined.mlir %S/Inputs/relu.cu %t/verified
// RUN: cuda-agent-opt %t/outlined.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" --agent-splice="dir=%t/verified" -o %t/spliced.mlir
// RUN: FileCheck %s < %t/spliced.mlir
// RUN: cuda-agent-opt %t/spliced.mlir --agent-default-lowering | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: rm -rf %t/bundle && cuda-agent-opt %t/spliced.mlir --agent-emit-bundle="dir=%t/bundle" -o /dev/null
// RUN: cat %t/bundle/*/plan.json | FileCheck %s --check-prefix=BUNDLE
// RUN: ls %t/bundle/* | FileCheck %s --check-prefix=FILES
// RUN: %python %S/Inputs/make_bundle.py %t/outlined.mlir %S/Inputs/relu.cu %t/wrong --shape 512
// RUN: not cuda-agent-opt %t/outlined.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" --agent-splice="dir=%t/wrong" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: %python %S/Inputs/make_bundle.py %t/outlined.mlir %S/Inputs/relu.cu %t/biggrid --grid-y 65536
// RUN: not cuda-agent-opt %t/outlined.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" --agent-splice="dir=%t/biggrid" 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: cuda-agent-opt %t/outlined.mlir --agent-splice | FileCheck %s --check-prefix=NODIR
// REQUIRES: nvcc

// A verified kernel for a region replaces the region's body by its launch;
// the rest of the program (the caller, the other region) is untouched and
// still lowers the default way, and the whole program lowers to LLVM.

#id = affine_map<(d0) -> (d0)>
func.func @relu_then_exp(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// CHECK-LABEL: func.func @relu_then_exp(
//       CHECK:   call @relu_then_exp_region0(
//       CHECK: gpu.binary @relu_then_exp_region0_relu  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, bin = "\7FELF
// CHECK-LABEL: func.func private @relu_then_exp_region0(
//  CHECK-SAME:     %[[IN:.+]]: memref<1024xf32>, %[[OUT:.+]]: memref<1024xf32>)
//  CHECK-SAME:     cuda_agent.region = {
//  CHECK-SAME:     cuda_agent.spliced = {agent = "replay", inputs = 1 : i64, model = "hand-written", source = "// A hand-written candidate{{.*}}", speedup = 1.500000e+00 : f64}
//   CHECK-DAG:   %[[C4:.+]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C256:.+]] = arith.constant 256 : index
//       CHECK:   gpu.launch_func  @relu_then_exp_region0_relu::@relu blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])  args(%[[IN]] : memref<1024xf32>, %[[OUT]] : memref<1024xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   return

// The spliced cubin is loaded and its kernel launched by name.
// LLVM: @relu_then_exp_region0_relu_binary = internal constant {{.*}} c"\7FELF
// LLVM: c"relu\00"
// LLVM: call void @mgpuLaunchKernel(

// The spliced region is a bundle again (so the runner can check it against
// the region's reference): the one launch of the spliced cubin, the input
// and output buffers of the region, and no tensor-level source.
// BUNDLE:      "name": "in0",
// BUNDLE-NEXT: "role": "input",
// BUNDLE:      "name": "out0",
// BUNDLE-NEXT: "role": "output",
// BUNDLE:      "args": [
// BUNDLE-NEXT:   "in0",
// BUNDLE-NEXT:   "out0"
// BUNDLE-NEXT: ],
// BUNDLE:      "kernel": "relu",
// BUNDLE-NEXT: "object": "relu_then_exp_region0_relu.cubin",
// FILES-NOT: region.mlir
// FILES: plan.json
// FILES: relu_then_exp_region0_relu.cubin
// FILES-NOT: region.mlir

// A plan beyond CUDA's grid limits is refused when it is read.
// GRID: launch 0: grid[1] = 65536 is above CUDA's limit 65535
// MISMATCH: error: cannot splice a kernel into this function: argument 0 of type 'memref<1024xf32>' does not match plan buffer 'in0'
// Without a directory only kernels attached by agent-generate are spliced:
// here there are none, and the region keeps its body.
// NODIR-NOT: gpu.binary
// NODIR: linalg.generic
// NODIR-NOT: gpu.binary
