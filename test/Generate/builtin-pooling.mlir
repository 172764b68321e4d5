// RUN: cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-test-builtin-variants="strategy=conv" -o /dev/null | FileCheck %s
// RUN: cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-test-builtin-variants="strategy=serial-reduction" -o /dev/null | FileCheck %s --check-prefix=SERIAL
// RUN: rm -rf %t && cuda-agent-opt %s --agent-outline | cuda-agent-opt --agent-generate="samples=8 db=none verify=bundle:%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEN

// The conv strategy's kernels sum input x filter products (isMultiplyAdd,
// linalg's isContractionBody): generics with a convolution's maps and another
// body (a max pooling, a sum pooling, whose filter only gives the window's
// shape, and a max of products) are not products. The conv strategy says
// why; the serial reduction writes them, a thread per output element looping
// over the window, and an average's division as its epilogue.

func.func @pool_nchw_max(%x: tensor<1x4x10x10xf32>, %window: tensor<3x3xf32>) -> tensor<1x4x8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<1x4x10x10xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

func.func @pool_nhwc_sum(%x: tensor<2x10x10x8xf32>, %window: tensor<3x3xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<2x10x10x8xf32>, tensor<3x3xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %r : tensor<2x8x8x8xf32>
}

// torch's avg_pool2d(x, 3, stride=2, padding=1): a zero pad, a window sum and
// the division by the window (count_include_pad).
func.func @avg_pool_padded(%x: tensor<2x4x9x9xf32>) -> tensor<2x4x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %nine = arith.constant 9.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x4x9x9xf32> to tensor<2x4x11x11xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<2x4x5x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%p, %window : tensor<2x4x11x11xf32>, tensor<3x3xf32>) outs(%f : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x5x5xf32>) outs(%e : tensor<2x4x5x5xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.divf %v, %nine : f32
    linalg.yield %q : f32
  } -> tensor<2x4x5x5xf32>
  return %d : tensor<2x4x5x5xf32>
}

// torch's avg_pool3d(x, 3, stride=2, padding=1) as torch-mlir emits it: the
// padded input transposed to channels last, pooling_ndhwc_sum, the sums
// transposed back, then the division by the window.
func.func @avg_pool_3d(%x: tensor<1x5x6x6x6xf32>) -> tensor<1x5x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %n27 = arith.constant 27.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<1x5x6x6x6xf32> to tensor<1x5x8x8x8xf32>
  %el = tensor.empty() : tensor<1x8x8x8x5xf32>
  %last = linalg.transpose ins(%p : tensor<1x5x8x8x8xf32>) outs(%el : tensor<1x8x8x8x5xf32>) permutation = [0, 2, 3, 4, 1]
  %window = tensor.empty() : tensor<3x3x3xf32>
  %es = tensor.empty() : tensor<1x3x3x3x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%es : tensor<1x3x3x3x5xf32>) -> tensor<1x3x3x3x5xf32>
  %s = linalg.pooling_ndhwc_sum {dilations = dense<1> : vector<3xi64>, strides = dense<2> : vector<3xi64>}
      ins(%last, %window : tensor<1x8x8x8x5xf32>, tensor<3x3x3xf32>) outs(%f : tensor<1x3x3x3x5xf32>) -> tensor<1x3x3x3x5xf32>
  %e = tensor.empty() : tensor<1x5x3x3x3xf32>
  %back = linalg.transpose ins(%s : tensor<1x3x3x3x5xf32>) outs(%e : tensor<1x5x3x3x3xf32>) permutation = [0, 4, 1, 2, 3]
  %d = linalg.generic {indexing_maps = [affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>, affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%back : tensor<1x5x3x3x3xf32>) outs(%e : tensor<1x5x3x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.divf %v, %n27 : f32
    linalg.yield %q : f32
  } -> tensor<1x5x3x3x3xf32>
  return %d : tensor<1x5x3x3x3xf32>
}

// conv_2d_nhwc_hwcf's maps, the products combined by max instead of a sum.
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @max_of_products(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x12xf32>) -> tensor<1x8x8x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x12xf32>) -> tensor<1x8x8x12xf32>
  %r = linalg.generic {indexing_maps = [#in, #filter, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x12xf32>) outs(%f : tensor<1x8x8x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %m = arith.maximumf %o, %p : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x12xf32>
  return %r : tensor<1x8x8x12xf32>
}

// CHECK-LABEL: // ===== conv variants of @pool_nchw_max_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add of its input and filter (a pooling: the serial-reduction strategy's)
// CHECK-LABEL: // ===== conv variants of @pool_nhwc_sum_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add
// CHECK-LABEL: // ===== conv variants of @avg_pool_padded_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add
// CHECK-LABEL: // ===== conv variants of @max_of_products_region0 =====
// CHECK-NEXT: // no variants: a convolution whose body is not a multiply-add

// The max over the 3x3 window, the NaN-propagating maximum of the body.
// SERIAL-LABEL: // ===== serial-reduction variants of @pool_nchw_max_region0 =====
// SERIAL: ----- variant serial-t256 -----
// SERIAL: float acc = __int_as_float(0xff800000);
// SERIAL: for (int r4 = 0; r4 < 3; ++r4) {
// SERIAL: for (int r5 = 0; r5 < 3; ++r5) {
// SERIAL: acc = ca_maximum(acc, v0);
// SERIAL: out0[e] = (float)(acc);
// SERIAL-LABEL: // ===== serial-reduction variants of @pool_nhwc_sum_region0 =====
// SERIAL: acc = acc + v0;

// The padded average: the border read with bounds (the pad's zero outside),
// then the epilogue's division at the thread's element, before the store.
// SERIAL-LABEL: // ===== serial-reduction variants of @avg_pool_padded_region0 =====
// SERIAL: ----- variant serial-t256 -----
// SERIAL: float acc = __int_as_float(0x00000000);
// SERIAL: const bool [[IN:v[0-9]+]] = (unsigned long long)
// SERIAL: [[IN]] ? {{.*}} : __int_as_float(0x00000000);
// SERIAL: acc = acc + v
// SERIAL: const float [[AVG:v[0-9]+]] = (acc * (1.0f / __int_as_float(0x41100000)));
// SERIAL-NEXT: out0[e] = (float)([[AVG]]);

// The 3-D average: a thread per element of the output (NCDHW), which reads
// the sums (NDHWC) at a permutation of it (readAtElement): the window's
// input read through both transposes and the pad at (n, c, d, h, w). Every
// tensor has fewer than 2^30 elements: offsets are 32-bit, and the pad's
// bounds select the read's offset once (not each index), so the window's
// taps are constant offsets of one base.
// SERIAL-LABEL: // ===== serial-reduction variants of @avg_pool_3d_region0 =====
// SERIAL: ----- variant serial-t256 -----
// SERIAL: for (int e = blockIdx.x * (int)blockDim.x + threadIdx.x; e < 135; e += (int)gridDim.x * blockDim.x) {
// SERIAL: for (int r5 = 0; r5 < 3; ++r5) {
// SERIAL-NEXT: for (int r6 = 0; r6 < 3; ++r6) {
// SERIAL-NEXT: for (int r7 = 0; r7 < 3; ++r7) {
// SERIAL-NEXT: const bool [[IN3:v[0-9]+]] = (unsigned long long)(((((((e) / 9) % 3) * 2) + r5) - 1)) < 6ULL
// SERIAL-NEXT: in0[([[IN3]] ? (((((int)(((e) / 135)) * 5 + ((((e) / 27) % 5))) * 6 + (((((((e) / 9) % 3) * 2) + r5) - 1))) * 6 + (((((((e) / 3) % 3) * 2) + r6) - 1))) * 6 + ((((((e) % 3) * 2) + r7) - 1))) : 0)];
// SERIAL: (acc * (1.0f / __int_as_float(0x41d80000)))

// The max of products over the window and the channels.
// SERIAL-LABEL: // ===== serial-reduction variants of @max_of_products_region0 =====
// SERIAL: for (int r6 = 0; r6 < 8; ++r6) {
// SERIAL: acc = ca_maximum(acc,

// GEN: @pool_nchw_max_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: @pool_nhwc_sum_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: @avg_pool_padded_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: @avg_pool_3d_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: @max_of_products_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: @pool_wide_offsets_region0 (convolution, {{.*}}): default: verification deferred: 1 candidate(s)
// GEN: 6 job(s)

// A window over 2^30 elements or more: offsets stay 64-bit.
func.func @pool_wide_offsets(%x: tensor<1x1x32770x32768xf32>, %window: tensor<2x2xf32>) -> tensor<1x1x16385x16384xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x1x16385x16384xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x16385x16384xf32>) -> tensor<1x1x16385x16384xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<1x1x32770x32768xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x16385x16384xf32>) -> tensor<1x1x16385x16384xf32>
  return %r : tensor<1x1x16385x16384xf32>
}
// SERIAL-LABEL: // ===== serial-reduction variants of @pool_wide_offsets_region0 =====
// SERIAL: for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < 268451840; e += (long long)gridDim.x * blockDim.x) {
// SERIAL: for (long long r4 = 0; r4 < 2; ++r4) {
// SERIAL: in0[((((long long)(((e) / 268451840LL)) * 1 + ((((e) / 268451840LL) % 1LL))) * 32770 + ((((((e) / 16384LL) % 16385LL) * 2) + r4))) * 32768
