// A tensor assembled from parts (lib/Outline/Assemblies.cpp: a static
// tensor.concat, an insert_slice) is a member of the region of the parts
// computed for it alone (elementwise ops that only the assembly reads), and
// that region's output; a part nothing computes alone (an argument, a value
// with other readers, a product's or a reduction's result) is read by the
// region as an input (lib/Outline/RegionGrouping.cpp). Inside a region
// only elementwise ops read an assembly, at the element they write (their
// results of its shape). The builtin agent's kernels branch on the parts'
// boxes: Programs/builtin-emulated.test (concat_branches, concat_dense_block,
// concat_unequal, concat_unequal_rows, insert_slice_residual, insert_box).
// RUN: cuda-agent-opt %s --split-input-file --agent-outline 2>/dev/null | FileCheck %s

// Two branches of x: one region, the concatenation its output.
// CHECK-LABEL: func.func @branches(
// CHECK-NEXT:    %[[B:.+]] = call @branches_region0(%arg0) : (tensor<8x16xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    return %[[B]]
// CHECK-LABEL: func.func private @branches_region0(
// CHECK-SAME:    kind = "elementwise"
// CHECK:         %[[EXP:.+]] = linalg.exp
// CHECK:         linalg.max
// CHECK:         %[[RELU:.+]] = linalg.generic
// CHECK:         %[[C:.+]] = tensor.concat dim(1) %[[EXP]], %[[RELU]]
// CHECK-NEXT:    return %[[C]]
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
// an argument, read into part 0; the new features are computed into part 1.
// CHECK-LABEL: func.func @dense_block(
// CHECK-NEXT:    call @dense_block_region0(%arg0) : (tensor<2x8x4x4xf32>) -> tensor<2x16x4x4xf32>
// CHECK-LABEL: func.func private @dense_block_region0(
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         tensor.concat dim(1) %arg0, %[[F]]
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

// A branch another op also reads is an input of the concatenation's region
// (its own region computes it once); the branch nothing else reads is
// computed in the concatenation's region.
// CHECK-LABEL: func.func @shared_branch(
// CHECK-NEXT:    %[[A:.+]] = call @shared_branch_region0(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.+]] = call @shared_branch_region1(%[[A]], %arg0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<12x8xf32>
// CHECK-NEXT:    return %[[S]], %[[A]]
// CHECK-LABEL: func.func private @shared_branch_region1(
// CHECK:         %[[N:.+]] = linalg.negf
// CHECK-NEXT:    tensor.concat dim(0) %arg0, %[[N]], %arg1
func.func @shared_branch(%x: tensor<4x8xf32>) -> (tensor<12x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.negf ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(0) %a, %b, %x : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<12x8xf32>
  return %c, %a : tensor<12x8xf32>, tensor<4x8xf32>
}

// -----

// Parts of different sizes: the same (Programs/concat-unequal-dense.mlir).
// A concatenation of a reduction's result and an argument is a region of its
// own that reads both and writes the whole concatenation.
// CHECK-LABEL: func.func @unequal_parts(
// CHECK-NEXT:    %[[U:.+]] = call @unequal_parts_region0(%arg0, %arg1) : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
// CHECK-NEXT:    return %[[U]]
// CHECK-LABEL: func.func private @unequal_parts_region0(
// CHECK:         %[[E:.+]] = linalg.exp
// CHECK-NEXT:    %[[UC:.+]] = tensor.concat dim(1) %[[E]], %arg1
// CHECK-NEXT:    return %[[UC]]
// CHECK-LABEL: func.func @reduced_part(
// CHECK-NEXT:    %[[R:.+]] = call @reduced_part_region0(%arg0)
// CHECK-NEXT:    call @reduced_part_region1(%[[R]], %arg1)
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

// A part computed from a product: its epilogue joins the product's region
// (whose kernels write whole outputs), and the concatenation's region reads
// the result from memory.
// CHECK-LABEL: func.func @product_part(
// CHECK-NEXT:    %[[P:.+]] = call @product_part_region0(%arg0, %arg1) : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    call @product_part_region1(%[[P]], %arg2) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
// CHECK-LABEL: func.func private @product_part_region0(
// CHECK-SAME:    kind = "contraction"
// CHECK:         linalg.matmul
// CHECK:         linalg.max
// CHECK-LABEL: func.func private @product_part_region1(
// CHECK-NEXT:    tensor.concat dim(1) %arg0, %arg1
func.func @product_part(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.max ins(%p, %f : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = tensor.concat dim(1) %r, %y : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// An insert_slice of a computed value into an argument (`out = x.clone();
// out[1:3, 4:12] = torch.tanh(y)`) is an assembly of two parts: the source
// on its box, the destination elsewhere. It joins the region of the tanh
// (computed for it alone), as the output.
// CHECK-LABEL: func.func @insert_box(
// CHECK-NEXT:    %[[I:.+]] = call @insert_box_region0(%arg1, %arg0) : (tensor<2x8xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[I]]
// CHECK-LABEL: func.func private @insert_box_region0(
// CHECK-SAME:    kind = "elementwise"
// CHECK:         %[[T:.+]] = linalg.generic
// CHECK:         %[[S:.+]] = tensor.insert_slice %[[T]] into %arg1[1, 4] [2, 8] [1, 1]
// CHECK-NEXT:    return %[[S]]
func.func @insert_box(%x: tensor<4x16xf32>, %y: tensor<2x8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %h = math.tanh %v : f32
    linalg.yield %h : f32
  } -> tensor<2x8xf32>
  %r = tensor.insert_slice %t into %x[1, 4] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// An elementwise op that reads an insert_slice at the element it writes
// joins the assembly's region: the kernel that writes each element from its
// part computes the exp there, and the assembly is not written at all.
// CHECK-LABEL: func.func @insert_then_read(
// CHECK-NEXT:    %[[E:.+]] = call @insert_then_read_region0(%arg1, %arg0)
// CHECK-NEXT:    return %[[E]]
// CHECK-LABEL: func.func private @insert_then_read_region0(
// CHECK:         %[[S:.+]] = tensor.insert_slice
// CHECK:         linalg.exp ins(%[[S]]
func.func @insert_then_read(%x: tensor<4x16xf32>, %y: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.negf ins(%y : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tensor.insert_slice %n into %x[0, 8] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %o = linalg.exp ins(%r : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// A DenseNet layer: the concatenation is returned (the next layer reads it)
// and its batch norm and ReLU read it elementwise: one region with both as
// outputs, each element of the concatenation read once.
// CHECK-LABEL: func.func @concat_then_norm(
// CHECK-NEXT:    %[[R:.+]]:2 = call @concat_then_norm_region0(%arg0, %arg1, %arg2)
// CHECK-NEXT:    return %[[R]]#1, %[[R]]#0
// CHECK-LABEL: func.func private @concat_then_norm_region0(
// CHECK:         %[[C:.+]] = tensor.concat dim(1)
// CHECK:         linalg.generic {{.*}} ins(%[[C]], %arg2 :
// CHECK:         %[[M:.+]] = linalg.max
// CHECK:         return %[[M]], %[[C]] : tensor<2x12x4xf32>, tensor<2x12x4xf32>
#chan = affine_map<(d0, d1, d2) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @concat_then_norm(%x: tensor<2x8x4xf32>, %f: tensor<2x4x4xf32>, %scale: tensor<12xf32>) -> (tensor<2x12x4xf32>, tensor<2x12x4xf32>) {
  %c = tensor.concat dim(1) %x, %f : (tensor<2x8x4xf32>, tensor<2x4x4xf32>) -> tensor<2x12x4xf32>
  %e = tensor.empty() : tensor<2x12x4xf32>
  %n = linalg.generic {indexing_maps = [#id3, #chan, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %scale : tensor<2x12x4xf32>, tensor<12xf32>) outs(%e : tensor<2x12x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<2x12x4xf32>
  %z = arith.constant 0.0 : f32
  %zs = linalg.fill ins(%z : f32) outs(%e : tensor<2x12x4xf32>) -> tensor<2x12x4xf32>
  %r = linalg.max ins(%n, %zs : tensor<2x12x4xf32>, tensor<2x12x4xf32>) outs(%e : tensor<2x12x4xf32>) -> tensor<2x12x4xf32>
  return %c, %r : tensor<2x12x4xf32>, tensor<2x12x4xf32>
}

// -----

// A reader that reads the assembly at another element than it writes (a
// transpose) is a region of its own: the kernel's branch knows the part of
// the element it writes only.
// CHECK-LABEL: func.func @concat_then_transpose(
// CHECK-NEXT:    %[[C:.+]] = call @concat_then_transpose_region0(
// CHECK-NEXT:    %[[T:.+]] = call @concat_then_transpose_region1(%[[C]])
// CHECK-NEXT:    return %[[T]]
func.func @concat_then_transpose(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %ex = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = tensor.concat dim(1) %ex, %y : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%c : tensor<8x16xf32>) outs(%e2 : tensor<16x8xf32>) permutation = [1, 0]
  return %t : tensor<16x8xf32>
}
