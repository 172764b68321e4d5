// A reduction over outer loops with two outputs of one shape: a channel sum
// (KernelBench level 2's ConvTranspose3d + Sum + LayerNorm, after the split
// transposed convolution's phases are assembled) and the f64 copy of it that
// torch-mlir's layer norm reads. The serial kernel writes both at the
// thread's element (SerialReduction.cpp); before, the region got no
// candidate. The kernel compiles with NVRTC and is computed on the CPU
// against the region's CPU reference (f64 outputs compared too).
// REQUIRES: nvrtc, host-clang, numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-agent-opt %s --agent-outline --agent-generate="db=none verify=bundle:%t/jobs" -o /dev/null 2> %t/gen.err
// RUN: FileCheck %s --check-prefix=GEN --input-file=%t/gen.err
// RUN: cuda-agent-opt %s --agent-outline -o %t/o.mlir
// RUN: cuda-agent-opt %t/o.mlir --agent-test-builtin-variants="strategy=serial-reduction" -o /dev/null | FileCheck %s --check-prefix=KERNEL
// RUN: %python %inputs/builtin/emulate/emulate_jobs.py cuda-agent-opt mlir-translate %clang --prefixes=serial- %t/jobs | FileCheck %s --check-prefix=EMULATED

#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#sum = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @channel_sum(%x: tensor<2x8x5x5x5xf32>) -> (tensor<2x5x5x5xf64>, tensor<2x5x5x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x5x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x5x5xf32>) -> tensor<2x5x5x5xf32>
  %s = linalg.generic {indexing_maps = [#in, #sum], iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x5x5x5xf32>) outs(%f : tensor<2x5x5x5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x5x5x5xf32>
  %e64 = tensor.empty() : tensor<2x5x5x5xf64>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x5x5x5xf32>) outs(%e64 : tensor<2x5x5x5xf64>) {
  ^bb0(%a: f32, %o: f64):
    %w = arith.extf %a : f32 to f64
    linalg.yield %w : f64
  } -> tensor<2x5x5x5xf64>
  return %d, %s : tensor<2x5x5x5xf64>, tensor<2x5x5x5xf32>
}

// GEN: @channel_sum_region0 (reduction, {{.*}}): default: verification deferred: 1 candidate(s)
// KERNEL: serial-reduction variants of @channel_sum_region0
// KERNEL: out0[e] = (double)(
// KERNEL: out1[e] = (float)(acc);
// EMULATED-NOT: FAIL
// EMULATED: ok   channel_sum serial-t256 max_rel_err
// EMULATED: emulated 1 candidate(s)
