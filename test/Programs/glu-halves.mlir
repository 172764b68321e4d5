// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline 2> /dev/null | FileCheck %s --check-prefix=REGIONS
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined/plan.json
// torch: F.glu(x @ w, dim=1) with x of 8x16 and w of 16x32 f32: the product's
// first half times the sigmoid of its second half. The second half is read
// by the elementwise region through its map (columns d1 + 16 of the product),
// the first half (columns from 0, which linalg cannot take as a map over the
// shorter loop) through a view of the product split in two halves, at half 0:
// neither is copied.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @glu_halves(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e32 = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a = tensor.extract_slice %y[0, 0] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %b = tensor.extract_slice %y[0, 16] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %n = arith.negf %q : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %p, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}


// Lowered fully to LLVM by the default lowering alone, and by --agent-lower
// with an empty database (every region keeps its default lowering).
// LLVM-LABEL: llvm.func @glu_halves(
// LLVM: gpu.launch_func
// LLVM: llvm.call @mgpuStreamSynchronize
// AGENT-LABEL: llvm.func @glu_halves(
// AGENT: llvm.call @glu_halves_region0(

// Two regions: the product, then the GLU reading the product's view for its
// first half and the product whole for its second.
// REGIONS-DAG: #[[$HALF0:.+]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// REGIONS-DAG: #[[$HALF1:.+]] = affine_map<(d0, d1) -> (d0, d1 + 16)>
// REGIONS-LABEL: func.func @glu_halves(
// REGIONS-NEXT: %[[Y:.+]] = call @glu_halves_region0(%arg0, %arg1)
// REGIONS-NEXT: %[[V:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0], [1, 2]] output_shape [8, 2, 16]
// REGIONS-NEXT: call @glu_halves_region1(%[[V]], %[[Y]]) : (tensor<8x2x16xf32>, tensor<8x32xf32>) -> tensor<8x16xf32>
// REGIONS: func.func private @glu_halves_region1(
// REGIONS-SAME: bytes = 1536
// REGIONS: linalg.generic {indexing_maps = [#[[$HALF0]], #[[$HALF1]],

// Outlined first, the whole program runs the product's kernels and the GLU,
// no copy: the view is an alias of the product's buffer.
// OUTLINED: "launches"
// OUTLINED-COUNT-3: "kernel":
// OUTLINED-NOT: "kernel":
