// RUN: cuda-agent-opt %s --split-input-file --agent-outline="fusion=none" | FileCheck %s --check-prefix=NONE
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="fusion=elementwise" | FileCheck %s --check-prefix=ELEM
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="fusion=rows" | FileCheck %s --check-prefix=ROWS
// RUN: cuda-agent-opt %s --split-input-file --agent-outline | FileCheck %s --check-prefix=ROWS
// RUN: cuda-agent-opt %s --split-input-file --agent-outline="remark-regions=true" -verify-diagnostics -o /dev/null
// RUN: not cuda-agent-opt %s --split-input-file --agent-outline="fusion=everything" 2>&1 | FileCheck %s --check-prefix=BAD

// The fusion option decides how far a region reaches around its root. A
// decomposed softmax has two row reductions (max, sum) and two elementwise
// ops (exp, divide):
//  - none: every linalg op is a region of its own (fills are cloned in);
//  - elementwise: each reduction takes the elementwise ops that consume it;
//  - rows: both reductions run over the same rows, so one region.

// BAD: for the --fusion option: Cannot find option named 'everything'!

func.func @softmax(%x: tensor<32x512xf32>) -> tensor<32x512xf32> {
  %e = tensor.empty() : tensor<32x512xf32>
  // expected-remark @below {{outlined reduction region @softmax_region0: 81920 flops, 131072 bytes, hash}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<32x512xf32>)
                                   outs(%e : tensor<32x512xf32>) -> tensor<32x512xf32>
  return %s : tensor<32x512xf32>
}
// NONE-LABEL: func.func @softmax(
//  NONE-NEXT:   %[[MAX:.+]] = call @softmax_region0(%[[X:.+]]) : (tensor<32x512xf32>) -> tensor<32xf32>
//  NONE-NEXT:   %[[EXP:.+]] = call @softmax_region1(%[[X]], %[[MAX]])
//  NONE-NEXT:   %[[SUM:.+]] = call @softmax_region2(%[[EXP]])
//  NONE-NEXT:   %[[DIV:.+]] = call @softmax_region3(%[[EXP]], %[[SUM]])
//  NONE-NEXT:   return %[[DIV]]
//      NONE: func.func private @softmax_region0({{.*}}kind = "reduction"
//      NONE: func.func private @softmax_region1({{.*}}kind = "elementwise"
//      NONE: func.func private @softmax_region2({{.*}}kind = "reduction"
//      NONE: func.func private @softmax_region3({{.*}}kind = "elementwise"

// ELEM-LABEL: func.func @softmax(
//  ELEM-NEXT:   %[[EXP:.+]] = call @softmax_region0(%{{.+}}) : (tensor<32x512xf32>) -> tensor<32x512xf32>
//  ELEM-NEXT:   %[[DIV:.+]] = call @softmax_region1(%[[EXP]])
//  ELEM-NEXT:   return %[[DIV]]
//      ELEM: func.func private @softmax_region0({{.*}}kind = "reduction"
//      ELEM:   arith.maxnumf
//      ELEM:   math.exp
//  ELEM-NOT:   arith.divf
//      ELEM: func.func private @softmax_region1({{.*}}kind = "reduction"
//      ELEM:   arith.addf
//      ELEM:   arith.divf

// ROWS-LABEL: func.func @softmax(
//  ROWS-NEXT:   %[[R:.+]] = call @softmax_region0(%{{.+}}) : (tensor<32x512xf32>) -> tensor<32x512xf32>
//  ROWS-NEXT:   return %[[R]]
//      ROWS: func.func private @softmax_region0({{.*}}kind = "reduction"
//      ROWS:   arith.maxnumf
//      ROWS:   math.exp
//      ROWS:   arith.addf
//      ROWS:   arith.divf
//  ROWS-NOT: func.func private @softmax_region1

// -----

// Reductions over different rows never share a region, even with
// fusion=rows: a row sum and a column sum of the same input stay apart.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @row_and_column(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<64xf32>
  %ec = tensor.empty() : tensor<128xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<128xf32>) -> tensor<128xf32>
  // expected-remark @below {{outlined reduction region @row_and_column_region0}}
  %rs = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  // expected-remark @below {{outlined reduction region @row_and_column_region1}}
  %cs = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%fc : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rs, %cs : tensor<64xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
// The row sum takes the product as its epilogue; the column sum is its own
// region and feeds it.
// ROWS-LABEL: func.func @row_and_column(
//  ROWS-SAME:     %[[X:.+]]: tensor<64x128xf32>)
//  ROWS-NEXT:   %[[CS:.+]] = call @row_and_column_region1(%[[X]]) : (tensor<64x128xf32>) -> tensor<128xf32>
//  ROWS-NEXT:   %[[Y:.+]] = call @row_and_column_region0(%[[X]], %[[CS]]) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
//  ROWS-NEXT:   return %[[Y]]
//      ROWS: func.func private @row_and_column_region0(
//      ROWS:   iterator_types = ["parallel", "reduction"]
//      ROWS:   arith.mulf
//      ROWS: func.func private @row_and_column_region1(
//      ROWS:   iterator_types = ["reduction", "parallel"]
//  ROWS-NOT:   arith.mulf

// -----

// A product's result broadcast by its reader (a squeeze-excitation's
// x * w[:, :, None, None]) is no epilogue: the sigmoid, which keeps the
// product's indices, fuses; the broadcast multiply is a region of its own.
// ELEM-LABEL: func.func @broadcast_product(
// ELEM: %[[W:.+]] = call @broadcast_product_region0(%arg1, %arg2)
// ELEM: call @broadcast_product_region1(%arg0, %[[W]])
// ELEM: func.func private @broadcast_product_region0(
// ELEM-SAME: kind = "contraction"
// ELEM: math.exp
// ELEM: func.func private @broadcast_product_region1(
// ELEM-SAME: kind = "elementwise"
// ROWS-LABEL: func.func @broadcast_product(
// ROWS: call @broadcast_product_region0(
// ROWS: call @broadcast_product_region1(
#bcast = affine_map<(d0, d1, d2) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast_product(%x: tensor<2x16x64xf32>, %a: tensor<2x4xf32>, %b: tensor<4x16xf32>) -> tensor<2x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  // expected-remark @below {{outlined contraction region @broadcast_product_region0}}
  %p = linalg.matmul ins(%a, %b : tensor<2x4xf32>, tensor<4x16xf32>) outs(%acc : tensor<2x16xf32>) -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %x0 = math.exp %n : f32
    %d = arith.addf %x0, %one : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  %ex = tensor.empty() : tensor<2x16x64xf32>
  // expected-remark @below {{outlined elementwise region @broadcast_product_region1}}
  %r = linalg.generic {indexing_maps = [#id3, #bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %w : tensor<2x16x64xf32>, tensor<2x16xf32>) outs(%ex : tensor<2x16x64xf32>) {
  ^bb0(%v: f32, %g: f32, %o: f32):
    %m = arith.mulf %v, %g : f32
    linalg.yield %m : f32
  } -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// A per-column scale that two products' epilogues read (a batch norm's
// 1 / sqrt(var + eps) after each phase of a split transposed convolution)
// is a region of its own: in the first product's region it would be an
// output of another shape than the product, which no product kernel
// writes.
// ROWS-LABEL: func.func @shared_scale(
// ROWS: %[[S:.*]] = call @shared_scale_region0(%arg3) : (tensor<8xf32>) -> tensor<8xf32>
// ROWS: call @shared_scale_region1(%arg0, %arg1, %[[S]]) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// ROWS: call @shared_scale_region2(%arg0, %arg2, %[[S]]) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
#col = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @shared_scale(%a: tensor<4x16xf32>, %b1: tensor<16x8xf32>, %b2: tensor<16x8xf32>, %v: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %ev = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{outlined elementwise region @shared_scale_region0}}
  %s = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v : tensor<8xf32>) outs(%ev : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %eps : f32
    %r = math.rsqrt %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{outlined contraction region @shared_scale_region1}}
  %p1 = linalg.matmul ins(%a, %b1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%p1, %s : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  // expected-remark @below {{outlined contraction region @shared_scale_region2}}
  %p2 = linalg.matmul ins(%a, %b2 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%p2, %s : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r1, %r2 : tensor<4x8xf32>, tensor<4x8xf32>
}
