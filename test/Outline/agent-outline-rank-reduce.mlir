// Contractions with a unit dimension are ones of lower rank: the outliner
// rewrites them with upstream's rank-reducing patterns before grouping
// (lib/Outline/UnitDims.cpp), so their regions hold the named matvec, vecmat
// or matmul of lower rank and the caller reshapes around the call (views).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s
// RUN: cuda-agent-opt %s --split-input-file --agent-outline -o %t.mlir 2>/dev/null
// RUN: cuda-agent-opt %t.mlir --split-input-file --agent-test-builtin-variants="strategy=rows" -o /dev/null | FileCheck %s --check-prefix=ROWS

// torch's x @ w with a 128x1 w: the matmul with one column is a matvec over
// w's column, its fill a fill of the smaller result; the reshapes are views
// in the caller.
// CHECK-LABEL: func.func @one_column(
// CHECK-NEXT: %[[W:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<128x1xf32> into tensor<128xf32>
// CHECK-NEXT: %[[Y:.+]] = call @one_column_region0(%arg0, %[[W]]) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [64, 1]
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @one_column_region0(%arg0: tensor<64x128xf32>, %arg1: tensor<128xf32>) -> tensor<64xf32>
// CHECK: %[[F:.+]] = linalg.fill {{.*}} -> tensor<64xf32>
// CHECK-NEXT: linalg.matvec ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<128xf32>) outs(%[[F]] : tensor<64xf32>)
func.func @one_column(%x: tensor<64x128xf32>, %w: tensor<128x1xf32>) -> tensor<64x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x1xf32>) -> tensor<64x1xf32>
  %r = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x1xf32>) outs(%f : tensor<64x1xf32>) -> tensor<64x1xf32>
  return %r : tensor<64x1xf32>
}

// -----

// torch's x @ w with a 1x128 x: the matmul with one row is a vecmat.
// CHECK-LABEL: func.func @one_row(
// CHECK-NEXT: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<1x128xf32> into tensor<128xf32>
// CHECK-NEXT: call @one_row_region0(%[[X]], %arg1) : (tensor<128xf32>, tensor<128x64xf32>) -> tensor<64xf32>
// CHECK: func.func private @one_row_region0(
// CHECK: linalg.vecmat ins(%arg0, %arg1 : tensor<128xf32>, tensor<128x64xf32>)
func.func @one_row(%x: tensor<1x128xf32>, %w: tensor<128x64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x128xf32>, tensor<128x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// nn.Linear on one row as torch-mlir writes it (weight transpose, matmul,
// bias broadcast, add, relu): the matmul with one row is a vecmat of the
// transposed weight, which is a matvec of the weight (the transpose goes);
// the epilogue loses its unit dimension with it and stays in the region.
// CHECK-LABEL: func.func @linear_one_row(
// CHECK-NEXT: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<1x128xf32> into tensor<128xf32>
// CHECK-NEXT: %[[Y:.+]] = call @linear_one_row_region0(%arg1, %[[X]], %arg2) : (tensor<64x128xf32>, tensor<128xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [1, 64]
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @linear_one_row_region0(%arg0: tensor<64x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<64xf32>) -> tensor<64xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[P:.+]] = linalg.matvec ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<128xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[P]], %{{.+}} : tensor<64xf32>, tensor<64xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]}
// CHECK: arith.select
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear_one_row(%x: tensor<1x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%w : tensor<64x128xf32>) outs(%0 : tensor<128x64xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %m = linalg.matmul ins(%x, %t : tensor<1x128xf32>, tensor<128x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bb : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %z : f32
    %s = arith.select %c, %in, %z : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// nn.Linear with one output feature: the weight's 1x128 to 128x1 transpose
// only moves a unit dimension, so it is a view, the product a matvec, and
// the bias of one feature a rank-0 region argument.
// CHECK-LABEL: func.func @linear_one_feature(
// CHECK-NEXT: %[[W:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<1x128xf32> into tensor<128xf32>
// CHECK-NEXT: %[[B:.+]] = tensor.collapse_shape %arg2 [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT: %[[Y:.+]] = call @linear_one_feature_region0(%arg0, %[[W]], %[[B]]) : (tensor<32x128xf32>, tensor<128xf32>, tensor<f32>) -> tensor<32xf32>
// CHECK-NEXT: tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [32, 1]
// CHECK: func.func private @linear_one_feature_region0(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matvec ins(%arg0, %arg1 : tensor<32x128xf32>, tensor<128xf32>)
// CHECK: arith.addf
// The row kernel adds the one bias to every row's sum.
// ROWS-LABEL: rows variants of @linear_one_feature_region0
// ROWS: const float red0 = __int_as_float(0x00000000) + acc0;
// ROWS-NEXT: const float [[B:v[0-9]+]] = in2[0];
// ROWS-NEXT: const float [[Y:v[0-9]+]] = (red0 + [[B]]);
// ROWS: out0[row] = (float)([[Y]]);
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear_one_feature(%x: tensor<32x128xf32>, %w: tensor<1x128xf32>, %b: tensor<1xf32>) -> tensor<32x1xf32> {
  %z = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<128x1xf32>
  %t = linalg.transpose ins(%w : tensor<1x128xf32>) outs(%0 : tensor<128x1xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<32x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x1xf32>) -> tensor<32x1xf32>
  %m = linalg.matmul ins(%x, %t : tensor<32x128xf32>, tensor<128x1xf32>) outs(%f : tensor<32x1xf32>) -> tensor<32x1xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<1xf32>) outs(%e : tensor<32x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x1xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bb : tensor<32x1xf32>, tensor<32x1xf32>) outs(%e : tensor<32x1xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<32x1xf32>
  return %a : tensor<32x1xf32>
}

// -----

// One row with an epilogue is a vecmat with it: the split column reductions
// run the epilogue in their finish launch (a linear layer's transposed
// weight makes it a matvec instead, above).
// CHECK-LABEL: func.func @one_row_bias(
// CHECK-NEXT: tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<1x128xf32> into tensor<128xf32>
// CHECK-NEXT: call @one_row_bias_region0(%collapsed, %arg1, %arg2) : (tensor<128xf32>, tensor<128x64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: tensor.expand_shape
// CHECK-LABEL: func.func private @one_row_bias_region0(
// CHECK: linalg.vecmat ins(%arg0, %arg1 : tensor<128xf32>, tensor<128x64xf32>)
// CHECK: arith.addf
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @one_row_bias(%x: tensor<1x128xf32>, %w: tensor<128x64xf32>, %b: tensor<64xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x128xf32>, tensor<128x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<1x64xf32>, tensor<64xf32>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// A linear layer on one row whose input is computed in the region (a
// layer norm's normalization before it: here a relu) keeps its rank and the
// matmul kernels: the matvec's row kernels do not read a prologue over the
// reduced dimension.
// CHECK-LABEL: func.func private @linear_one_row_prologue_region0(
// CHECK: linalg.transpose
// CHECK: linalg.matmul {{.*}} -> tensor<1x64xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear_one_row_prologue(%x: tensor<1x128xf32>, %w: tensor<64x128xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x128xf32>
  %xr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1x128xf32>) outs(%e0 : tensor<1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %in, %z : f32
    linalg.yield %v : f32
  } -> tensor<1x128xf32>
  %0 = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%w : tensor<64x128xf32>) outs(%0 : tensor<128x64xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %m = linalg.matmul ins(%xr, %t : tensor<1x128xf32>, tensor<128x64xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %m : tensor<1x64xf32>
}

// -----

// A product with one column that accumulates onto a bias keeps its rank and
// the matmul kernels (the matrix-vector kernels start from a fill).
// CHECK-LABEL: func.func @bias_init(
// CHECK-NEXT: call @bias_init_region0(%arg0, %arg1, %arg2) : (tensor<32x128xf32>, tensor<128x1xf32>, tensor<1xf32>) -> tensor<32x1xf32>
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<32x128xf32>, tensor<128x1xf32>) outs(%{{.+}} : tensor<32x1xf32>)
#col = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias_init(%x: tensor<32x128xf32>, %w: tensor<128x1xf32>, %b: tensor<1xf32>) -> tensor<32x1xf32> {
  %e = tensor.empty() : tensor<32x1xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<1xf32>) outs(%e : tensor<32x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x1xf32>
  %m = linalg.matmul ins(%x, %w : tensor<32x128xf32>, tensor<128x1xf32>) outs(%bb : tensor<32x1xf32>) -> tensor<32x1xf32>
  return %m : tensor<32x1xf32>
}

// -----

// A batch_matmul of one batch is a matmul; with one column too, a matvec.
// CHECK-LABEL: func.func @batch_one(
// CHECK-NEXT: %[[A:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x32x16xf32> into tensor<32x16xf32>
// CHECK-NEXT: %[[B:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<1x16x64xf32> into tensor<16x64xf32>
// CHECK-NEXT: call @batch_one_region0(%[[A]], %[[B]]) : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
// CHECK: func.func private @batch_one_region0(
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<32x16xf32>, tensor<16x64xf32>)
// CHECK-LABEL: func.func @batch_one_column(
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : tensor<1x16x1xf32> into tensor<16xf32>
// CHECK: func.func private @batch_one_column_region0(
// CHECK: linalg.matvec ins(%arg0, %arg1 : tensor<32x16xf32>, tensor<16xf32>)
func.func @batch_one(%a: tensor<1x32x16xf32>, %b: tensor<1x16x64xf32>) -> tensor<1x32x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x32x16xf32>, tensor<1x16x64xf32>) outs(%f : tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
  return %r : tensor<1x32x64xf32>
}
func.func @batch_one_column(%a: tensor<1x32x16xf32>, %b: tensor<1x16x1xf32>) -> tensor<1x32x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x1xf32>) -> tensor<1x32x1xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<1x32x16xf32>, tensor<1x16x1xf32>) outs(%f : tensor<1x32x1xf32>) -> tensor<1x32x1xf32>
  return %r : tensor<1x32x1xf32>
}

// -----

// Batches of one column each: a batch_matvec.
// CHECK-LABEL: func.func @batched_columns(
// CHECK-NEXT: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2]] : tensor<4x16x1xf32> into tensor<4x16xf32>
// CHECK: func.func private @batched_columns_region0(
// CHECK: linalg.batch_matvec ins(%arg0, %arg1 : tensor<4x32x16xf32>, tensor<4x16xf32>)
func.func @batched_columns(%a: tensor<4x32x16xf32>, %b: tensor<4x16x1xf32>) -> tensor<4x32x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x32x1xf32>) -> tensor<4x32x1xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x16xf32>, tensor<4x16x1xf32>) outs(%f : tensor<4x32x1xf32>) -> tensor<4x32x1xf32>
  return %r : tensor<4x32x1xf32>
}

// -----

// One row by one column stays a matmul: a dot's rank-0 result has nothing
// to launch over.
// CHECK-LABEL: func.func @row_by_column(
// CHECK-NEXT: call @row_by_column_region0(%arg0, %arg1) : (tensor<1x128xf32>, tensor<128x1xf32>) -> tensor<1x1xf32>
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<1x128xf32>, tensor<128x1xf32>)
func.func @row_by_column(%x: tensor<1x128xf32>, %w: tensor<128x1xf32>) -> tensor<1x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x128xf32>, tensor<128x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// -----

// A matmul transposed by its indexing maps is not reduced (upstream's
// patterns take the default maps only).
// CHECK-LABEL: func.func @one_row_transposed_by_maps(
// CHECK-NEXT: call @one_row_transposed_by_maps_region0(%arg0, %arg1) : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
// CHECK: linalg.matmul indexing_maps
func.func @one_row_transposed_by_maps(%x: tensor<1x128xf32>, %w: tensor<64x128xf32>) -> tensor<1x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<1x128xf32>, tensor<64x128xf32>) outs(%f : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}
