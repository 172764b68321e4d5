// RUN: cuda-agent-opt %s --agent-gpu-module-to-binary | FileCheck %s

// Like gpu-module-to-binary{format=bin}, plus the PTX that ptxas compiled.

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    llvm.func @k(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
// CHECK: gpu.binary @k {cuda_agent.ptx = "{{.*}}.version 8.0\0A.target sm_90{{.*}}.visible .entry k(
// CHECK-SAME: [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF
// CHECK-NOT: gpu.module
