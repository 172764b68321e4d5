// RUN: cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-test-builtin-variants="strategy=elementwise" -o /dev/null | FileCheck %s

// An op the builtin agent cannot spell in CUDA (math.clampf, which torch-mlir
// does not write: its clamp is a max and a min) leaves the region without a candidate,
// and the reason names it intact: every variant fails with the same message,
// and keeping the first must not read a string the next one reassigned.

func.func @complement(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %lo = arith.constant -1.0 : f32
    %hi = arith.constant 1.0 : f32
    %p = math.clampf %in to [%lo, %hi] : f32
    linalg.yield %p : f32
  } -> tensor<256xf32>
  return %y : tensor<256xf32>
}
// CHECK: // ===== elementwise variants of @complement_region0 =====
// CHECK-NEXT: // not written: cannot spell 'math.clampf' on f32 in CUDA C
