//===- Passes.td - cuda-agent passes -----------------------*- tablegen -*-===//
//
// Every pass of cuda-agent-opt, in alphabetical order. Each pass is a thin
// wrapper over a reusable function of its component library.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_TRANSFORMS_PASSES
#define CUDA_AGENT_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"
include "cuda-agent/Transforms/AgentGenerateOptions.td"

def AgentDecomposeAggregatedPass
    : Pass<"agent-decompose-aggregated", "::mlir::func::FuncOp"> {
  let summary = "Decompose aggregated linalg ops such as linalg.softmax";
  let description = [{
    Replaces every aggregated linalg op (`linalg.softmax`, ...) whose operands
    and results are static-shape tensors by the linalg ops it stands for, via
    `AggregatedOpInterface::decomposeOperation`. Needed before
    `convert-linalg-to-parallel-loops`, which leaves aggregated ops alone.
    Ops on memrefs or dynamic shapes are left as they are.

    Before:
    ```mlir
    %r = linalg.softmax dimension(1) ins(%a : tensor<64x1000xf32>)
                                     outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    ```
    After:
    ```mlir
    %max = linalg.generic {... ["parallel", "reduction"]} ... arith.maxnumf ...
    %exp = linalg.generic {... ["parallel", "parallel"]} ... arith.subf, math.exp ...
    %sum = linalg.generic {... ["parallel", "reduction"]} ... arith.addf ...
    %r = linalg.generic {... ["parallel", "parallel"]} ... arith.divf ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}


def AgentDeviceBuffersPass
    : Pass<"agent-device-buffers", "::mlir::func::FuncOp"> {
  let summary = "Move host buffers to the device and check the host is straight-line";
  let description = [{
    Runs after `convert-parallel-loops-to-gpu`. Function arguments are taken
    to be device buffers; host `memref.alloc` becomes `gpu.alloc`,
    `memref.dealloc` becomes `gpu.dealloc`, `memref.copy` becomes
    `gpu.memcpy`, and every allocation that is neither freed nor returned is
    freed before the return.

    Reshapes of whole buffers (`memref.expand_shape`/`collapse_shape` of an
    argument or an allocation) stay on the host: pointer metadata, the same
    device pointer under another shape. Other views (subviews, reshapes of
    them) move into the kernels that read them. A result that is a reshape
    of a temporary is written in place: the temporary becomes the inverse
    reshape of the out-parameter and the copy goes away.

    The host must then be straight-line: one block of `arith.constant`,
    allocations, reshapes, copies, `gpu.launch`/`gpu.launch_func`,
    `func.call` and `func.return`. Any other op (a loop the GPU mapping left
    on the host, a `memref.load`, a `memref.dim` of a dynamic shape, ...) is
    an error that names it and the function, with a note saying why, for
    example `cannot run on the GPU: 'scf.for' was left on the host by the
    default lowering in @f`. External functions are left alone.

    Before:
    ```mlir
    func.func @f(%a: memref<64x1000xf32>, %out: memref<64x1000xf32>) {
      %t = memref.alloc() : memref<64xf32>
      gpu.launch blocks(...) in (...) threads(...) in (...) { ... }
      return
    }
    ```
    After:
    ```mlir
    func.func @f(%a: memref<64x1000xf32>, %out: memref<64x1000xf32>) {
      %t = gpu.alloc () : memref<64xf32>
      gpu.launch blocks(...) in (...) threads(...) in (...) { ... }
      gpu.dealloc %t : memref<64xf32>
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}


def AgentEmitBundlePass : Pass<"agent-emit-bundle", "::mlir::ModuleOp"> {
  let summary = "Write the default lowering of each region as a kernel bundle";
  let description = [{
    Lowers a copy of every outlined region (functions with
    `cuda_agent.region`) with `agent-default-lowering{host=gpu}` and writes
    its bundle to `DIR/<region hash>/`: `plan.json` (buffers with shape, dtype
    and role; the ordered launches with kernel, object, grid, block, shared
    bytes and arguments) and the kernel objects (cubin). A module without
    regions gets one bundle per public function: in `DIR/` when there is one,
    in `DIR/<function>/` otherwise. The module itself is left unchanged, so
    the pass can be followed by `agent-default-lowering`.

    With `whole-program=true`, the public functions get the bundles
    instead, each with the launches of the regions it calls: the regions
    that `agent-generate` gave a kernel launch that kernel. This is how a
    spliced program is checked against the all-default one.

    A function whose lowered host code is more than straight-line
    allocations, copies, launches and calls gets an error naming the op.

    Example:
    ```
    cuda-agent-opt model.mlir --agent-outline --agent-emit-bundle="dir=bundles"
    cuda-agent-run bundles/<region hash> --time
    ```
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"",
           "The directory the bundles are written to, for example "
           "`dir=build/bundles`.">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The GPU architecture the kernels are compiled for, for example "
           "`chip=sm_90`.">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "The NVVM target features, for example `features=+ptx80`.">,
    Option<"regionsOnly", "regions-only", "bool", /*default=*/"false",
           "Write bundles for outlined regions only, so that a module in which "
           "nothing was outlined writes none, for example `regions-only=true`.">,
    Option<"wholeProgram", "whole-program", "bool", /*default=*/"false",
           "Write one bundle per public function instead, following its calls "
           "into the regions (spliced ones launch their kernel), for example "
           "`whole-program=true`.">,
  ];
}


def AgentExportIreePass : Pass<"agent-export-iree", "::mlir::ModuleOp"> {
  let summary = "Write the module for IREE, verified kernels as hal.dispatch.extern";
  let description = [{
    Runs after `agent-generate`, on the outlined module on tensors, and
    leaves it unchanged. Writes `DIR/<module>.iree.mlir`: the module with
    every region that has a verified kernel (`cuda_agent.kernel`) replaced
    by one `hal.dispatch.extern` per launch of its plan, chained through
    tensors (outputs start as `tensor.empty`, the workspace and temporaries
    zeroed), the cubin embedded for devices of its plan's compute
    capability and the PTX as a second object for newer ones; every other
    region stays linalg for IREE's own codegen, and so does a region whose
    kernel cannot run on `chip` (built for a newer chip, or for another
    chip's arch-specific features, or taking more shared memory than a
    workgroup has there). Beside it: `DIR/sm90.flags` (`chip`'s explicit
    CUDA target, an `iree-compile` response file named after it: sm_80,
    sm_86, sm_87, sm_89 and sm_90 are known),
    `DIR/objects/*.cubin` (the cubins embedded), `DIR/<module>.iree.json`
    (each region's dispatches, or why it was not exported, and the buffer
    alignment each kernel needs: IREE guarantees 64 bytes) and
    `DIR/README` with the commands. The module is text, which IREE 3.13
    parses (not MLIR 22's bytecode); named elementwise ops (`linalg.add`,
    ...), which IREE 3.13 no longer has, are written as `linalg.generic`.
    `DIR/spec.mlir` replaces the regions in the user's own module; it has
    the regions whose ops occur in the module before outlining (`input`).

    Example:
    ```
    cuda-agent-opt m.mlir --agent-lower="verify=db db=k.db export=iree:out" -o /dev/null
    iree-compile out/m.iree.mlir @out/sm90.flags -o m.vmfb
    ```
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"",
           "The directory the IREE module is written to, for example "
           "`dir=build/iree`.">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The GPU architecture the module is compiled for, for example "
           "`chip=sm_90`.">,
    Option<"input", "input", "std::string", /*default=*/"",
           "The module before outlining (a file), in which the preprocessing "
           "spec looks for each region; under --agent-lower, the pipeline's "
           "input. Without it the spec replaces no region.">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}


def AgentGeneratePass : Pass<"agent-generate", "::mlir::ModuleOp"> {
  let summary = "Ask an agent for kernels per region, verify and time them, "
                "choose the winners";
  let description = [{
    The closed loop, per outlined region (functions with `cuda_agent.region`,
    on tensors; run it after `agent-outline` and before bufferization):
    build the region's kernel task, ask the agent for `samples` candidates
    per turn for up to `turns` turns, compile each with NVRTC (on `jobs`
    threads), check its launch plan, write it as a bundle next to the
    region's reference bundle (its default lowering), and verify and time
    them:

    - `verify=gpu` (default): runs `cuda-agent-run --jobs` here as a child
      process under a watchdog (`timeout` seconds per candidate). Without a
      GPU nothing is spliced and each region says why; that is not an error.
    - `verify=bundle:DIR`: writes the jobs to DIR for a GPU machine
      (`cuda-agent-run --jobs DIR` there, then `cuda-agent-db import-results
      DIR` here); nothing is spliced now.
    - `verify=db`: splices the best kernel the database verified earlier for
      the region's exact key (hash, chip, CUDA version, contract version),
      recompiled here; no agent and no GPU are needed.

    A region whose best verified candidate is at least `min-speedup` times
    faster than the default lowering gets `cuda_agent.kernel` (the plan and
    its cubin, for `agent-splice`); every region gets `cuda_agent.decision =
    {decision = "spliced" | "default", reason = "..."}`. Verified kernels
    and decisions go to the kernel database. One line per region goes to
    stderr as the work progresses; `report=PATH` writes the JSON report.

    Candidates never crash the compiler: a compile error, a bad plan, a
    wrong result, a fault or a hang is that candidate's verdict.

    Examples:
    ```
    cuda-agent-opt m.mlir --agent-outline --agent-generate="agent=replay replay-dir=kernels verify=bundle:jobs"
    cuda-agent-opt m.mlir --agent-outline --agent-generate="verify=db db=kernels.db report=report.json"
    ```
  }];
  // GenerateOptions.def, through AgentGenerateOptions.td.
  let options = AgentGenerateOptions;
}


def AgentGpuLoopsPass : Pass<"agent-gpu-loops", "::mlir::func::FuncOp"> {
  let summary = "Collapse and tile host scf.parallel loops for the GPU mapping";
  let description = [{
    Prepares every top-level host `scf.parallel` for
    `gpu-map-parallel-loops{mapping-policy=innermost-first}` and
    `convert-parallel-loops-to-gpu`. A loop of rank r > 2 is collapsed to
    rank 2 as (dims 0..r-2 | dim r-1); without that the loop is left on the
    host or runs its last dimension sequentially. Then a rank-1 loop is tiled
    by 256 and a rank-2 loop by 8x32 (32 along the contiguous dimension, which
    the mapping puts on threadIdx.x), with constant inner bounds and an
    `scf.if` guard for partial tiles. A rank-2 loop with more than 65535 row
    tiles (blockIdx.y's limit) gets its row tiles mapped to blockIdx.x and
    its column tiles to blockIdx.y here (a `mapping` attribute, which
    `gpu-map-parallel-loops` keeps); a loop whose tiles no mapping fits in
    CUDA's grid is an error. Loops with `scf.reduce` results are
    rejected. A `cf.assert` at the top of a loop body (torch-mlir's bounds
    checks of a gather's indices), which the conversion refuses there, is
    put behind an `scf.if` on its failing condition. Do not canonicalize between this pass and the conversion: the
    canonicalizer merges the tile loops again.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
      ... body ...
    }
    ```
    After:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c8, %c32) {
      scf.parallel (%ti, %tj) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
        ... %in = (%i + %ti < 64) and (%j + %tj < 1000) ...
        scf.if %in { ... body ... }
      }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}


def AgentGpuModuleToBinaryPass
    : Pass<"agent-gpu-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "Compile gpu.modules to cubins and keep their PTX";
  let description = [{
    Does what `gpu-module-to-binary{format=bin}` does, and attaches the PTX
    that was fed to ptxas as the string attribute `cuda_agent.ptx` on each
    `gpu.binary`. Every `gpu.module` needs exactly one target.

    Before:
    ```mlir
    gpu.module @f_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
      llvm.func @f_kernel(...) attributes {gpu.kernel, nvvm.kernel} { ... }
    }
    ```
    After:
    ```mlir
    gpu.binary @f_kernel [#gpu.object<#nvvm.target<...>, bin = "\7FELF...">]
        attributes {cuda_agent.ptx = "//\0A// Generated by LLVM NVPTX Back-End ..."}
    ```
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "The CUDA toolkit that provides ptxas and libdevice, for example "
           "`toolkit=/usr/local/cuda`; by default it is taken from "
           "$CUDA_ROOT, $CUDA_HOME or $CUDA_PATH.">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}


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
    layernorm, and a reduction over a convolution's output channels (at
    most 128 of them) joins the convolution's region when nothing else
    reads the convolution, as in "conv, scale, min over channels".
    Before grouping, generics that compute i1 masks are fused into the
    generics that read them, and splat tensor constants a generic reads are
    folded into its body, so that neither crosses a region boundary; a
    static `tensor.extract_slice` an elementwise op reads is folded into
    that op's indexing map (offsets and strides), so the region reads the
    slice in place instead of a copy. Aggregated ops such as `linalg.softmax` are decomposed first.

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


def AgentParallelLoopsOutwardPass
    : Pass<"agent-parallel-loops-outward", "::mlir::func::FuncOp"> {
  let summary = "Interchange linalg.generic loops so parallel loops come "
                "first; give ops without one a unit parallel loop";
  let description = [{
    Permutes the loops of every `linalg.generic` on tensors whose iterators
    have a reduction before a parallel loop (a column sum, say) so that all
    parallel loops come first, in their order, then the reductions.
    `convert-linalg-to-parallel-loops` then makes one parallel loop nest per
    op with the reduction inside it, instead of a host `scf.for` that would
    launch a kernel per step. The results are unchanged; only the loop order
    of the op is.

    A linalg op on tensors with no parallel loop at all (a sum of every
    element into a scalar, as a loss function ends; an op on rank-0 tensors;
    a fill of one; a `linalg.dot`, generalized first) gets a leading parallel
    loop of one iteration, its rank-0 outputs viewed as 1-element tensors
    (`tensor.expand_shape`, collapsed back after), so that it runs as a
    kernel of one thread instead of leaving its loads and stores on the host.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> (d1)>],
                    iterator_types = ["reduction", "parallel"]} ...
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                     affine_map<(d0, d1) -> (d0)>],
                    iterator_types = ["parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}


def AgentSplitLongReductionsPass
    : Pass<"agent-split-long-reductions", "::mlir::func::FuncOp"> {
  let summary = "Split reductions with few outputs into parallel partial "
                "reductions and a reduction of the partials";
  let description = [{
    The default lowering runs an op's reduction loops inside each of its
    threads, one thread per output element. An op with few outputs and a
    long reduction (a loss summing 134M elements into a scalar; a layer norm
    over 16 rows of 4M) would run on a handful of threads, each reading
    millions of elements in turn: seconds per call, for the verifier's
    reference and for every program that keeps the default kernel.

    This pass splits every linalg op on tensors with fewer than 16384 output
    elements and a reduction of at least 4096 elements per output with
    upstream's `linalg::splitReduction`: its reduction loops collapsed into
    one, then split into interleaved parts (neighbouring threads read
    neighbouring elements) reduced in parallel into a tensor of partials,
    which a second op reduces; again, until up to 65536 threads share the
    work and no part is shorter than 64 elements. Reduction loops that do not
    collapse into one (a batch norm's n, h and w around its channels) are
    split at the innermost (h and w collapsed) by the same rewrite of our
    own, which upstream's refuses for several reduction loops. Ops whose
    combiner has no neutral element, with several outputs, reading
    `linalg.index`, with a keepdim output (a constant 0 in its map), or whose
    reduction length has no suitable divisor are left alone. The order of
    the additions changes (the partials are more accurate, not less).

    Before:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> ()>],
                    iterator_types = ["reduction", "reduction"]}
        ins(%x : tensor<4096x32768xf32>) outs(%init : tensor<f32>) ...
    ```
    After: a generic into `tensor<65536xf32>` partials (each of 2048
    elements), one into `tensor<1024xf32>` (64 partials each), and the
    original reduction of the last 1024 into `%init`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def AgentPrintPromptPass : Pass<"agent-print-prompt", "::mlir::ModuleOp"> {
  let summary = "Print the chat prompt an LLM agent gets for each region "
                "(for tests)";
  let description = [{
    For every outlined region (on tensors), builds its kernel task and
    prints the conversation `agent=openai` would send on the first turn,
    one `// === <role> ===` header per message, so that tests pin the prompt
    (docs/llm-agents.md). The IR is not changed.

    Example: `cuda-agent-opt m.mlir --agent-outline --agent-print-prompt -o /dev/null`
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The GPU architecture the prompt names, for example `chip=sm_90`.">,
  ];
}


def AgentReadOnlyArgumentsPass
    : Pass<"agent-read-only-arguments", "::mlir::func::FuncOp"> {
  let summary = "Keep the tensors a public function receives unwritten";
  let description = [{
    Marks every tensor argument of a public function with a body
    `bufferization.writable = false`, so that `one-shot-bufferize` copies an
    argument before writing into it. Tensors are values: without the mark, a
    `tensor.insert_slice` into an argument bufferizes in place and writes
    into the caller's input buffer, which the runner rejects ("the plan
    wrote into input buffer"). Private functions (regions) are left to the
    module analysis, which copies at their call sites where needed.

    Before:
    ```mlir
    func.func @f(%x: tensor<4x16xf32>, %y: tensor<2x8xf32>) -> tensor<4x16xf32>
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<4x16xf32> {bufferization.writable = false},
                 %y: tensor<2x8xf32> {bufferization.writable = false}) -> tensor<4x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def AgentSplicePass : Pass<"agent-splice", "::mlir::ModuleOp"> {
  let summary = "Replace regions by launches of their verified kernels";
  let description = [{
    For every region function (`cuda_agent.region`) that carries the kernel
    `agent-generate` chose for it (`cuda_agent.kernel`: the plan and its
    cubins), or whose hash has a candidate bundle in `DIR/<hash>/` (a
    `plan.json` in the runner's format, the cubins it names, and optionally
    `kernel.cu`) when `dir` is given, replaces the region's
    body by `gpu.launch_func`s of those kernels from one `gpu.binary` per
    cubin, with `gpu.alloc`s for temporaries and workspace. The plan's input
    and output buffers must match the region's arguments. The plan's extra
    keys (agent, model, speedup, database key) and the source land in
    `cuda_agent.spliced`. Runs after bufferization with out-parameters;
    `agent-default-lowering` lowers the result with everything else.

    Before (bufferized region):
    ```mlir
    func.func private @f_region0(%in: memref<1024xf32>, %out: memref<1024xf32>)
        attributes {cuda_agent.region = {hash = "ab12...", ...}} {
      linalg.generic ... ins(%in ...) outs(%out ...)
      return
    }
    ```
    After:
    ```mlir
    gpu.binary @f_region0_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, bin = "\7FELF...">]
    func.func private @f_region0(%in: memref<1024xf32>, %out: memref<1024xf32>)
        attributes {cuda_agent.region = {...}, cuda_agent.spliced = {agent = "replay", ...}} {
      gpu.launch_func @f_region0_kernel::@relu blocks in (%c4, %c1, %c1)
          threads in (%c256, %c1, %c1) args(%in : memref<1024xf32>, %out : memref<1024xf32>)
      return
    }
    ```
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"",
           "A directory of verified candidate bundles, one per region hash, "
           "for example `dir=build/verified`; by default only the kernels "
           "attached by agent-generate are spliced.">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

def AgentStridedCopiesPass
    : Pass<"agent-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Lower copies into and out of strided views to parallel loops";
  let description = [{
    Runs after bufferization. A `memref.copy` with a strided operand (a
    `memref.subview`: what `tensor.extract_slice`, `insert_slice`,
    `tensor.concat` and a `tensor.pad`'s interior bufferize to) becomes an
    `scf.parallel` loop of loads and stores, which the default lowering runs
    as a copy kernel and the CPU reference as serial loops. Copies between
    whole buffers stay (they become `gpu.memcpy`). Copies inside loops or
    kernels and rank-0 copies are left alone.

    Before:
    ```mlir
    %v = memref.subview %out[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
    memref.copy %a, %v : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
    ```
    After:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      %x = memref.load %a[%i, %j] : memref<4x8xf32>
      memref.store %x, %v[%i, %j] : memref<4x8xf32, strided<[16, 1], offset: 8>>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def AgentTestBuiltinVariantsPass
    : Pass<"agent-test-builtin-variants", "::mlir::ModuleOp"> {
  let summary = "Print one builtin strategy's kernels for each region "
                "(for tests)";
  let description = [{
    For every outlined region (`cuda_agent.region`, on tensors), runs one
    strategy of the builtin agent and prints each variant it writes: its
    name, its launch plan and its kernel source, under a
    `// ===== <strategy> variants of @<function> =====` header (or the
    reason there is none), so that tests check kernel text without going
    through region hashes and bundle directories. Strategies, in the
    candidates' order: conv, matmul, transpose, elementwise, scan-chain,
    block-scan, rows-cluster, rows-exchange, rows-split, rows,
    rows-cluster-staged, serial-reduction. With `variant`, only
    the variants of those names are printed (a comma-separated list: a
    tiling's name differs between regions where, say, its sums are
    promoted). The IR is not changed.

    Example: `cuda-agent-opt m.mlir --agent-outline --agent-test-builtin-variants=strategy=rows -o /dev/null`
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"",
           "The builtin strategy whose variants are printed, for example "
           "`strategy=rows`.">,
    ListOption<"variants", "variant", "std::string",
               "Only the variants of these names, for example "
               "`variant=rows-g32-b256-v4-cached`; all by default.">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The GPU architecture the kernels are sized for, for example "
           "`chip=sm_90`.">,
    Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
           "agent-generate's `precision=`: `f32`, or `tf32` for the plain "
           "TF32 kernels of f32 products too; each region's header then "
           "shows the task's key, for example `precision=tf32`.">,
  ];
}

#endif // CUDA_AGENT_TRANSFORMS_PASSES
