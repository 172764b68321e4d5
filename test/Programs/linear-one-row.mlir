// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: relu(nn.Linear(64, 32)(x)) with x of 1x64 f32, as torch-mlir writes
// it (the weight transposed, a fill, the matmul, the bias broadcast, add,
// relu). Outlined, it is one region: a matvec of the weight with the bias
// and relu, the input and result reshapes views.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @linear_one_row(%x: tensor<1x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%te : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32xf32>) -> tensor<1x32xf32>
  %m = linalg.matmul ins(%x, %t : tensor<1x64xf32>, tensor<64x32xf32>) outs(%f : tensor<1x32xf32>) -> tensor<1x32xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<32xf32>) outs(%e : tensor<1x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bb : tensor<1x32xf32>, tensor<1x32xf32>) outs(%e : tensor<1x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  } -> tensor<1x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x32xf32>) outs(%e : tensor<1x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.cmpf ugt, %a, %zero : f32
    %v = arith.select %c, %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<1x32xf32>
  return %r : tensor<1x32xf32>
}


// Lowered fully to LLVM by the default lowering alone, every kernel
// launched from the host; and by --agent-lower with an empty database
// (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @linear_one_row(
// LLVM-COUNT-6: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @linear_one_row(
// AGENT: llvm.call @linear_one_row_region0(
// AGENT-NOT: llvm.call @linear_one_row_region1(

// The whole-program bundle: 6 kernel launches and no copy step.
// PLAN: "launches"
// PLAN-NOT: "copy"

// Outlined first, one region without the transpose: 4 kernels, the input
// and the result views of in0 and out0.
// OUTLINED:      "role": "view",
// OUTLINED:      "view_of": "in0"
// OUTLINED:      "role": "view",
// OUTLINED:      "view_of": "out0"
// OUTLINED: "launches"
// OUTLINED-COUNT-4: "kernel":
// OUTLINED-NOT: "kernel":
