// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-db --db %t/empty.db import %S/Inputs/empty.kernels.json > /dev/null
// RUN: cuda-agent-opt %s --agent-default-lowering | FileCheck %s --check-prefix=LLVM
// RUN: cuda-agent-opt %s --agent-lower="verify=db db=%t/empty.db" 2> %t/agent.log | FileCheck %s --check-prefix=AGENT
// RUN: cuda-agent-opt %s --agent-emit-bundle="dir=%t/program" -o /dev/null
// RUN: FileCheck %s --check-prefix=PLAN < %t/program/plan.json
// RUN: cuda-agent-opt %s --agent-outline -o %t/outlined.mlir 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUTLINED < %t/outlined.mlir
// torch: torch.logsumexp(x, dim=1, keepdim=True) as torch-mlir writes it: the row
// max (keepdim through a view), replaced by 0 where it is infinite (an i1 mask
// tensor between two generics), then log(sum(exp(x - max))) + max. x 16x100 f32.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @logsumexp(%x: tensor<16x100xf32>) -> tensor<16x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7FF0000000000000 : f64
  %zeros = arith.constant dense<0.0> : tensor<f32>
  %er = tensor.empty() : tensor<16xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x100xf32>) outs(%fm : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %mk = tensor.expand_shape %max [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %ek = tensor.empty() : tensor<16x1xf32>
  %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mk : tensor<16x1xf32>) outs(%ek : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.absf %a : f32
    linalg.yield %v : f32
  } -> tensor<16x1xf32>
  %eb = tensor.empty() : tensor<16x1xi1>
  %isinf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%abs : tensor<16x1xf32>) outs(%eb : tensor<16x1xi1>) {
  ^bb0(%a: f32, %o: i1):
    %w = arith.extf %a : f32 to f64
    %c = arith.cmpf oeq, %w, %inf : f64
    linalg.yield %c : i1
  } -> tensor<16x1xi1>
  %safe = linalg.generic {indexing_maps = [#id, #scalar, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%isinf, %zeros, %mk : tensor<16x1xi1>, tensor<f32>, tensor<16x1xf32>) outs(%ek : tensor<16x1xf32>) {
  ^bb0(%c: i1, %z: f32, %m: f32, %o: f32):
    %v = arith.select %c, %z, %m : f32
    linalg.yield %v : f32
  } -> tensor<16x1xf32>
  %e = tensor.empty() : tensor<16x100xf32>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %safe : tensor<16x100xf32>, tensor<16x1xf32>) outs(%e : tensor<16x100xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<16x100xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%ek : tensor<16x1xf32>) -> tensor<16x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<16x100xf32>) outs(%fs : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %safe : tensor<16x1xf32>, tensor<16x1xf32>) outs(%ek : tensor<16x1xf32>) {
  ^bb0(%s: f32, %m: f32, %o: f32):
    %l = math.log %s : f32
    %v = arith.addf %l, %m : f32
    linalg.yield %v : f32
  } -> tensor<16x1xf32>
  return %r : tensor<16x1xf32>
}

// Lowered fully to LLVM by the default lowering alone (9 kernels: the max's
// fill and reduction, abs, the isinf mask, the select, exp, the sum's fill and
// reduction, log + add), and by --agent-lower with an empty database.
// LLVM-LABEL: llvm.func @logsumexp(
// LLVM-COUNT-9: gpu.launch_func
// LLVM-NOT: gpu.launch_func
// AGENT-LABEL: llvm.func @logsumexp(
// AGENT: llvm.call @logsumexp_region0(

// The whole-program bundle: the keepdim is a view, no copy step.
// PLAN: "role": "view"
// PLAN-NOT: "copy"

// Outlined, the i1 mask is fused into the select that reads it (the outliner
// first fuses generics computing i1 tensors into their readers), so the whole
// row computation is one region: no i1 tensor is left.
// OUTLINED-LABEL: func.func @logsumexp(
// OUTLINED-NEXT: call @logsumexp_region0(%arg0) : (tensor<16x100xf32>) -> tensor<16xf32>
// OUTLINED-NOT: call @
// OUTLINED: func.func private @logsumexp_region0({{.*}}kind = "reduction"
// OUTLINED: arith.cmpf oeq, %{{.+}}, %{{.+}} : f64
// OUTLINED-NEXT: arith.select
// OUTLINED-NOT: xi1>
