// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-outline --agent-emit-bundle="dir=%t/outlined whole-program=true" -o /dev/null 2> /dev/null
// RUN: cuda-agent-opt %s --agent-outline 2>&1 | FileCheck %s --check-prefix=OUTLINE
// RUN: cuda-agent-opt %s --agent-outline 2>/dev/null | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" | FileCheck %s --check-prefix=KERNEL
// torch: out = x.clone(); out[2] = torch.tanh(y) * s; out[4] = z (rows
// assigned, torch's select_scatter) with x of 6x16 and y, s, z of 16 f32:
// each insert_slice drops the row's unit dimension (a rank-reducing insert).
#v = affine_map<(d0) -> (d0)>
func.func @insert_rows(%x: tensor<6x16xf32>, %y: tensor<16xf32>, %s: tensor<16xf32>,
                       %z: tensor<16xf32>) -> tensor<6x16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %t = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%y, %s : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %h = math.tanh %a : f32
    %m = arith.mulf %h, %b : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %r = tensor.insert_slice %t into %x[2, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<6x16xf32>
  %q = tensor.insert_slice %z into %r[4, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<6x16xf32>
  return %q : tensor<6x16xf32>
}

// LLVM-LABEL: llvm.func @insert_rows(
// LLVM: gpu.launch_func
// AGENT-LABEL: llvm.func @insert_rows(
// AGENT: llvm.call @insert_rows_region0(

// Outlined, the rows get sources of the box's rank: the generic computes a
// 1x16 row itself (its inputs expanded at the call, views), in the region
// of the insert it feeds; z is expanded at the call too. An assembly is not
// read inside a region, so the second insert is a region of its own.
// OUTLINE-LABEL: func.func @insert_rows(
// OUTLINE-NOT: tensor.insert_slice
// OUTLINE: %[[R:.*]] = call @insert_rows_region0(
// OUTLINE: %[[Z:.*]] = tensor.expand_shape %arg3 {{\[}}[0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
// OUTLINE-NEXT: call @insert_rows_region1(%[[Z]], %[[R]])
// OUTLINE: func.func private @insert_rows_region0(
// OUTLINE-NOT: tensor.expand_shape
// OUTLINE: %[[E:.*]] = tensor.empty() : tensor<1x16xf32>
// OUTLINE: linalg.generic
// OUTLINE-SAME: outs(%[[E]] : tensor<1x16xf32>)
// OUTLINE: tensor.insert_slice %{{.*}} into %{{.*}}[2, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<6x16xf32>
// OUTLINE: func.func private @insert_rows_region1(
// OUTLINE: tensor.insert_slice %arg0 into %arg1[4, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<6x16xf32>

// One kernel writes the computed row and x elsewhere.
// KERNEL: ----- variant flat-v4-t256 -----
// KERNEL: if (i0 >= 2 && i0 < 3) {
// KERNEL: tanhf
