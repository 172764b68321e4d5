// A generic whose body gathers from a tensor with tensor.extract (an
// upsampling's source index, a replicate pad's clamped one) joins a region:
// the gathered tensor becomes the region's input, read at any element, so
// the gather stays apart from the ops that compute that tensor (other
// threads write the elements it reads) and fuses with its elementwise
// consumers. The builtin agent's elementwise kernels read the input at the
// computed indices (unsigned index divisions and integer absolute values
// spelled as such); each candidate is computed on the CPU against the
// region's CPU reference.
// REQUIRES: nvrtc, host-clang, numpy
// RUN: cuda-agent-opt %s --agent-outline | FileCheck %s
// RUN: cuda-agent-opt %s --agent-outline -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t && cuda-agent-opt %s --agent-outline --agent-generate="db=none verify=bundle:%t/jobs" -o /dev/null 2> %t/gen.err
// RUN: FileCheck %s --check-prefix=GEN --input-file=%t/gen.err
// RUN: %python %inputs/builtin/emulate/emulate_jobs.py cuda-agent-opt mlir-translate %clang %t/jobs | FileCheck %s --check-prefix=EMULATED

#id = affine_map<(d0, d1) -> (d0, d1)>

// The gather and the tanh after it: one region that reads x.
// CHECK-LABEL: func.func @upsample_tanh(
// CHECK-NEXT: call @upsample_tanh_region0(%arg0) : (tensor<4x6xf32>) -> tensor<8x12xf32>
// CHECK-NEXT: return
// CHECK: func.func private @upsample_tanh_region0(%arg0: tensor<4x6xf32>)
// CHECK-SAME: bytes = 480
// CHECK-SAME: kind = "elementwise"
// CHECK: tensor.extract %arg0[
// CHECK: math.tanh
func.func @upsample_tanh(%x: tensor<4x6xf32>) -> tensor<8x12xf32> {
  %e = tensor.empty() : tensor<8x12xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x12xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %si = arith.divui %i, %c2 : index
    %sj = arith.divui %j, %c2 : index
    %v = tensor.extract %x[%si, %sj] : tensor<4x6xf32>
    linalg.yield %v : f32
  } -> tensor<8x12xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<8x12xf32>) outs(%e : tensor<8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<8x12xf32>
  return %t : tensor<8x12xf32>
}

// The exp computes what the gather reads: two regions, the second gathering
// from the first's output.
// CHECK-LABEL: func.func @exp_then_gather(
// CHECK-NEXT: %[[EXP:.+]] = call @exp_then_gather_region0(%arg0)
// CHECK-NEXT: call @exp_then_gather_region1(%[[EXP]]) : (tensor<4x6xf32>) -> tensor<8x12xf32>
// CHECK: func.func private @exp_then_gather_region0(
// CHECK: math.exp
// CHECK: func.func private @exp_then_gather_region1(%arg0: tensor<4x6xf32>)
// CHECK-NOT: math.exp
// CHECK: tensor.extract %arg0[

func.func @exp_then_gather(%x: tensor<4x6xf32>) -> tensor<8x12xf32> {
  %e0 = tensor.empty() : tensor<4x6xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x6xf32>) outs(%e0 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x6xf32>
  %e = tensor.empty() : tensor<8x12xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x12xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %si = arith.divui %i, %c2 : index
    %sj = arith.divui %j, %c2 : index
    %v = tensor.extract %ex[%si, %sj] : tensor<4x6xf32>
    linalg.yield %v : f32
  } -> tensor<8x12xf32>
  return %g : tensor<8x12xf32>
}

// A reflecting gather, x[i, 5 - |5 - j|] for 8 columns of a 6-column x, its
// index's absolute value a math.absi on i64 (llabs in the kernels).
// CHECK-LABEL: func.func @reflect(
// CHECK-NEXT: call @reflect_region0(%arg0) : (tensor<4x6xf32>) -> tensor<4x8xf32>
func.func @reflect(%x: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : i64
    %j64 = arith.index_cast %j : index to i64
    %d = arith.subi %c5, %j64 : i64
    %a = math.absi %d : i64
    %r = arith.subi %c5, %a : i64
    %ri = arith.index_cast %r : i64 to index
    %v = tensor.extract %x[%i, %ri] : tensor<4x6xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// A gather at indices read from a tensor (an embedding's tokens) stays with
// the default lowering: the verifier's random integers are no valid indices.
// CHECK-LABEL: func.func @embedding(
// CHECK-NOT: call @
// CHECK: return
// REMARK: remark: kept outside any kernel region: its body gathers at an index read from a tensor
func.func @embedding(%tokens: tensor<4xi64>, %table: tensor<10x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%tokens : tensor<4xi64>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%t: i64, %out: f32):
    %row = arith.index_cast %t : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<10x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// GEN: @upsample_tanh_region0 (elementwise, {{.*}}): default: verification deferred: 3 candidate(s)
// GEN: @exp_then_gather_region1 (elementwise, {{.*}}): default: verification deferred: 3 candidate(s)
// GEN: @reflect_region0 (elementwise, {{.*}}): default: verification deferred: 3 candidate(s)
// EMULATED-NOT: FAIL
// EMULATED: ok   upsample_tanh flat-v4-t256 max_rel_err
// EMULATED: ok   exp_then_gather flat-v4-t256 max_rel_err
// EMULATED: ok   reflect flat-v4-t256 max_rel_err
// EMULATED-NOT: FAIL
