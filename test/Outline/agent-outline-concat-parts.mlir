// A tensor.concat whose parts have one size along its dimension is written
// in parts before grouping (lib/Outline/ConcatParts.cpp): the result is a
// view (..., parts, size, ...), the elementwise op that computes a part alone
// writes it in place through a part index in its output map, a part nothing
// computes alone is copied in by a generic of its own, and a collapse_shape
// gives the concatenation's shape. The whole concatenation is one region.
// Kernels: Programs/builtin-emulated.test (concat_branches,
// concat_dense_block).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s

// Two branches of x: one region; the second part's init is the first's.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$P0:.+]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// CHECK-DAG: #[[$P1:.+]] = affine_map<(d0, d1) -> (d0, 1, d1)>
// CHECK-LABEL: func.func @branches(
// CHECK-NEXT: %[[R:.+]] = call @branches_region0(%arg0) : (tensor<8x16xf32>) -> tensor<8x2x16xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<8x2x16xf32> into tensor<8x32xf32>
// CHECK-NEXT: return %[[C]]
// CHECK: func.func private @branches_region0(
// CHECK-SAME: kind = "elementwise"
// CHECK: %[[E:.+]] = tensor.empty() : tensor<8x2x16xf32>
// CHECK: %[[A:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$P0]]]
// CHECK-SAME: outs(%[[E]] : tensor<8x2x16xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$P1]]]
// CHECK-SAME: outs(%[[A]] : tensor<8x2x16xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: tensor.concat
func.func @branches(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.exp ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.max ins(%x, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %c = tensor.concat dim(1) %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// -----

// A dense block's concatenation over channels (NCHW): the block's input is
// an argument, copied into part 0 by a generic of its own; the new features
// are written into part 1 where they are computed.
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$Q0:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d1, d2, d3)>
// CHECK-DAG: #[[$Q1:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, 1, d1, d2, d3)>
// CHECK-LABEL: func.func @dense_block(
// CHECK-NEXT: call @dense_block_region0(%arg0) : (tensor<2x8x4x4xf32>) -> tensor<2x2x8x4x4xf32>
// CHECK-NEXT: tensor.collapse_shape {{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x8x4x4xf32> into tensor<2x16x4x4xf32>
// CHECK: func.func private @dense_block_region0(
// CHECK: linalg.generic {indexing_maps = [#[[$ID4]], #[[$Q0]]]
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID4]], #[[$Q1]]]
// CHECK: arith.maximumf
func.func @dense_block(%x: tensor<2x8x4x4xf32>) -> tensor<2x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x4x4xf32>) outs(%e : tensor<2x8x4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %two : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x4x4xf32>
  %c = tensor.concat dim(1) %x, %f : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %c : tensor<2x16x4x4xf32>
}

// -----

// A branch another op also reads is copied into its part (its own region
// computes it once); the branch nothing else reads is written in place.
// CHECK-LABEL: func.func @shared_branch(
// CHECK: %[[EXP:.+]] = call @shared_branch_region{{[0-9]}}(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: call @shared_branch_region{{[0-9]}}({{.*}}) : ({{.*}}) -> tensor<3x4x8xf32>
// CHECK: tensor.collapse_shape {{.*}} : tensor<3x4x8xf32> into tensor<12x8xf32>
func.func @shared_branch(%x: tensor<4x8xf32>) -> (tensor<12x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.negf ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(0) %a, %b, %x : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<12x8xf32>
  return %c, %a : tensor<12x8xf32>, tensor<4x8xf32>
}

// -----

// Parts of different sizes, and parts nothing computes alone (a reduction's
// result, an argument), stay a concatenation, which joins the region of the
// parts computed for it alone as its output (RegionGrouping.cpp): the
// builtin agent's kernel branches on the parts' ranges (Programs/
// concat-unequal-dense.mlir). A reduction's result is read from memory by a
// region of its own that writes the whole concatenation.
// CHECK-LABEL: func.func @unequal_parts(
// CHECK-NEXT:    %[[U:.+]] = call @unequal_parts_region0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
// CHECK-NEXT:    return %[[U]]
// CHECK-LABEL: func.func private @unequal_parts_region0(
// CHECK:         %[[E:.+]] = linalg.exp
// CHECK-NEXT:    %[[C:.+]] = tensor.concat dim(1) %[[E]], %arg1
// CHECK-NEXT:    return %[[C]]
// CHECK-LABEL: func.func @reduced_part(
// CHECK-NEXT:    %[[S:.+]] = call @reduced_part_region0(%arg0)
// CHECK-NEXT:    %[[R:.+]] = call @reduced_part_region1(%[[S]], %arg1)
// CHECK-LABEL: func.func private @reduced_part_region1(
// CHECK-SAME:    kind = "elementwise"
// CHECK-NEXT:    tensor.concat dim(1) %arg0, %arg1
func.func @unequal_parts(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> tensor<4x24xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(1) %a, %y : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
  return %c : tensor<4x24xf32>
}
func.func @reduced_part(%x: tensor<4x8x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.reduce ins(%x : tensor<4x8x8xf32>) outs(%f : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %c = tensor.concat dim(1) %s, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// A part computed from a product: the part's writer does not join the
// product's region (whose kernels write whole outputs); it reads the product
// from memory, as the copy into the concatenation did before.
// CHECK-LABEL: func.func @product_part(
// CHECK: %[[P:.+]] = call @product_part_region0(%arg0, %arg1) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK: call @product_part_region1({{.*}}%[[P]]{{.*}}) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x2x8xf32>
// CHECK: func.func private @product_part_region0(
// CHECK-SAME: kind = "contraction"
// CHECK: func.func private @product_part_region1(
// CHECK-SAME: kind = "elementwise"
func.func @product_part(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.max ins(%p, %f : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = tensor.concat dim(1) %r, %y : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}
