// The math dialect's float functions the builtin agent spells as CUDA C
// library calls (CudaExpr.cpp, getMathFunction, atan2 and copysign too),
// for builtin-math-functions.test: each in an elementwise region of its
// own over inputs in [-1, 1] (arguments moved into the function's domain
// where it is smaller), and expm1 in a linear layer's epilogue (a CELU),
// where an unspelled op used to cost the whole product its kernels.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @unary(%x: tensor<8x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>,
        tensor<8x64xf32>, tensor<8x64xf32>) {
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %r:6 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e, %e, %e, %e, %e, %e : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%v: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32, %o5: f32):
    %a = math.expm1 %v : f32
    %b = math.atan %v : f32
    %c = math.asin %v : f32
    %d = math.acos %v : f32
    %s0 = arith.addf %a, %b : f32
    %s1 = arith.addf %c, %d : f32
    %f = math.sinh %v : f32
    %g = math.cosh %v : f32
    %h = math.tan %v : f32
    %sq = arith.mulf %v, %v : f32
    %p1 = arith.addf %sq, %one : f32
    %i = math.acosh %p1 : f32
    %hv = arith.mulf %v, %half : f32
    %j = math.atanh %hv : f32
    %k = math.asinh %v : f32
    %s2 = arith.addf %f, %g : f32
    %s3 = arith.addf %h, %i : f32
    %s4 = arith.addf %j, %k : f32
    %l = math.log10 %p1 : f32
    %m = math.cbrt %v : f32
    %n = math.erfc %v : f32
    %s5 = arith.addf %l, %m : f32
    %s6 = arith.addf %s5, %n : f32
    %w = arith.mulf %v, %three : f32
    %q = math.roundeven %w : f32
    %t = math.round %w : f32
    %u = math.trunc %w : f32
    %at = math.atan2 %v, %w : f32
    %cs = math.copysign %one, %v : f32
    %s7 = arith.addf %q, %t : f32
    %s8 = arith.addf %s7, %u : f32
    %s9 = arith.addf %at, %cs : f32
    %s10 = arith.addf %s3, %s4 : f32
    linalg.yield %s0, %s1, %s2, %s10, %s6, %s8 : f32, f32, f32, f32, f32, f32
  } -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// A linear layer + CELU: max(0, y) + min(0, expm1(y)).
func.func @linear_celu(%x: tensor<16x32xf32>, %w: tensor<32x24xf32>, %b: tensor<24xf32>)
    -> tensor<16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x24xf32>) outs(%z : tensor<16x24xf32>) -> tensor<16x24xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x24xf32>, tensor<24xf32>) outs(%e : tensor<16x24xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %y = arith.addf %v, %c : f32
    %p = arith.maximumf %y, %zero : f32
    %m = math.expm1 %y : f32
    %n = arith.minimumf %m, %zero : f32
    %s = arith.addf %p, %n : f32
    linalg.yield %s : f32
  } -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}
