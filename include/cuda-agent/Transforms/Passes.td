//===- Passes.td - cuda-agent passes -----------------------*- tablegen -*-===//
//
// Every pass of cuda-agent-opt, in alphabetical order. Each pass is a thin
// wrapper over a reusable function of its component library.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TRANSFORMS_PASSES
#define CUDA_AGENT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def AgentOutlinePass : Pass<"agent-outline", "::mlir::ModuleOp"> {
  let summary = "Outline kernel-sized linalg regions into private functions";
  let description = [{
    Finds kernel regions in every function on tensors and outlines each into a
    private `func.func @<fn>_region<N>` that the original function calls.

    A region is a root linalg op (contraction, convolution, reduction, or a
    pure elementwise chain) together with the `linalg.fill`s, `tensor.empty`s
    and elementwise producers and consumers that fuse into it. With
    `fusion=rows` (the default), reductions over the same rows and the
    elementwise ops that consume them form one region, as in softmax and
    layernorm. Aggregated ops such as `linalg.softmax` are decomposed first.

    Every outlined function carries
    `cuda_agent.region = {hash = "<sha256>", kind = "...", flops = N, bytes = N}`.
    The hash is the SHA-256 of the region's canonical form: the outlined
    function with its ops and arguments in a canonical order, printed in
    generic form without locations and under a fixed name. SSA names, function
    names, locations and the order of independent ops do not change it;
    shapes, element types, constants, indexing maps and body ops do.

    Every op left outside a region gets a remark that says why (dynamic
    shape, unsupported element type, not a linalg op, ...).

    Before:
    ```mlir
    func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
      %e = tensor.empty() : tensor<64x16xf32>
      %z = arith.constant 0.0 : f32
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
      %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
                         outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
      return %m : tensor<64x16xf32>
    }
    ```
    After:
    ```mlir
    func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
      %0 = call @mm_region0(%a, %b) : (...) -> tensor<64x16xf32>
      return %0 : tensor<64x16xf32>
    }
    func.func private @mm_region0(...) -> tensor<64x16xf32> attributes {
        cuda_agent.region = {bytes = 15360 : i64, flops = 65536 : i64,
                             hash = "...", kind = "contraction"}} {
      ... tensor.empty, arith.constant, linalg.fill, linalg.matmul ...
    }
    ```
  }];
  let options = [
    Option<"fusion", "fusion", "::mlir::cuda_agent::FusionMode",
           /*default=*/"::mlir::cuda_agent::FusionMode::Rows",
           "How much to fuse around each root op, for example `fusion=elementwise`: "
           "`none` outlines every linalg op with only its fills and empties, "
           "`elementwise` also fuses elementwise producers and consumers, "
           "`rows` (the default) also joins reductions over the same rows.",
           [{::llvm::cl::values(
             clEnumValN(::mlir::cuda_agent::FusionMode::None, "none",
                        "one linalg op per region"),
             clEnumValN(::mlir::cuda_agent::FusionMode::Elementwise,
                        "elementwise", "fuse elementwise producers and consumers"),
             clEnumValN(::mlir::cuda_agent::FusionMode::Rows, "rows",
                        "also join reductions over the same rows"))}]>,
    Option<"remarkRegions", "remark-regions", "bool", /*default=*/"false",
           "Emit a remark on every outlined region with its kind, flops, "
           "bytes and hash, for example `remark-regions=true`.">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
  ];
}

#endif // CUDA_AGENT_TRANSFORMS_PASSES
