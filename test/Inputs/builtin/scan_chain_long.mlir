// torch.cumsum(x, dim=1) of a 2 x 16384 x, as cuda_agent.export writes it (the blocked
// scan of python/cuda_agent/_scan.py, three levels of whole blocks); generated with
// cuda_agent.export(Cumsum(), torch.randn(2, 16384), func_name="scan_chain_long").
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> ()>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map9 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map10 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#map11 = affine_map<(d0, d1, d2) -> ()>
#map12 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map13 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map14 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
module {
  func.func @scan_chain_long(%arg0: tensor<2x16384xf32>) -> tensor<2x16384xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<32xi32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<32xi32>) {
    ^bb0(%out: i32):
      %25 = linalg.index 0 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.trunci %26 : i64 to i32
      linalg.yield %27 : i32
    } -> tensor<32xi32>
    %expanded = tensor.expand_shape %1 [[0, 1]] output_shape [32, 1] : tensor<32xi32> into tensor<32x1xi32>
    %2 = tensor.empty() : tensor<32x32xi1>
    %3 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded, %1 : tensor<32x1xi32>, tensor<32xi32>) outs(%2 : tensor<32x32xi1>) {
    ^bb0(%in: i32, %in_14: i32, %out: i1):
      %25 = arith.cmpi sge, %in, %in_14 : i32
      linalg.yield %25 : i1
    } -> tensor<32x32xi1>
    %expanded_1 = tensor.expand_shape %arg0 [[0], [1, 2, 3]] output_shape [2, 512, 1, 32] : tensor<2x16384xf32> into tensor<2x512x1x32xf32>
    %4 = tensor.empty() : tensor<2x512x32x32xf32>
    %5 = linalg.generic {indexing_maps = [#map4, #map5, #map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %expanded_1, %cst_0 : tensor<32x32xi1>, tensor<2x512x1x32xf32>, tensor<f32>) outs(%4 : tensor<2x512x32x32xf32>) {
    ^bb0(%in: i1, %in_14: f32, %in_15: f32, %out: f32):
      %25 = arith.select %in, %in_14, %in_15 : f32
      linalg.yield %25 : f32
    } -> tensor<2x512x32x32xf32>
    %6 = tensor.empty() : tensor<2x512x32xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x512x32xf32>) -> tensor<2x512x32xf32>
    %8 = linalg.generic {indexing_maps = [#map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%5 : tensor<2x512x32x32xf32>) outs(%7 : tensor<2x512x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<2x512x32xf32>
    %extracted_slice = tensor.extract_slice %8[0, 0, 31] [2, 512, 1] [1, 1, 1] : tensor<2x512x32xf32> to tensor<2x512x1xf32>
    %collapsed = tensor.collapse_shape %extracted_slice [[0], [1, 2]] : tensor<2x512x1xf32> into tensor<2x512xf32>
    %expanded_2 = tensor.expand_shape %collapsed [[0], [1, 2, 3]] output_shape [2, 16, 1, 32] : tensor<2x512xf32> into tensor<2x16x1x32xf32>
    %9 = tensor.empty() : tensor<2x16x32x32xf32>
    %10 = linalg.generic {indexing_maps = [#map4, #map5, #map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %expanded_2, %cst_0 : tensor<32x32xi1>, tensor<2x16x1x32xf32>, tensor<f32>) outs(%9 : tensor<2x16x32x32xf32>) {
    ^bb0(%in: i1, %in_14: f32, %in_15: f32, %out: f32):
      %25 = arith.select %in, %in_14, %in_15 : f32
      linalg.yield %25 : f32
    } -> tensor<2x16x32x32xf32>
    %11 = tensor.empty() : tensor<2x16x32xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
    %13 = linalg.generic {indexing_maps = [#map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%10 : tensor<2x16x32x32xf32>) outs(%12 : tensor<2x16x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<2x16x32xf32>
    %extracted_slice_3 = tensor.extract_slice %13[0, 0, 31] [2, 16, 1] [1, 1, 1] : tensor<2x16x32xf32> to tensor<2x16x1xf32>
    %collapsed_4 = tensor.collapse_shape %extracted_slice_3 [[0], [1, 2]] : tensor<2x16x1xf32> into tensor<2x16xf32>
    %14 = tensor.empty() : tensor<16xi32>
    %15 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%14 : tensor<16xi32>) {
    ^bb0(%out: i32):
      %25 = linalg.index 0 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.trunci %26 : i64 to i32
      linalg.yield %27 : i32
    } -> tensor<16xi32>
    %expanded_5 = tensor.expand_shape %15 [[0, 1]] output_shape [16, 1] : tensor<16xi32> into tensor<16x1xi32>
    %16 = tensor.empty() : tensor<16x16xi1>
    %17 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded_5, %15 : tensor<16x1xi32>, tensor<16xi32>) outs(%16 : tensor<16x16xi1>) {
    ^bb0(%in: i32, %in_14: i32, %out: i1):
      %25 = arith.cmpi sge, %in, %in_14 : i32
      linalg.yield %25 : i1
    } -> tensor<16x16xi1>
    %expanded_6 = tensor.expand_shape %collapsed_4 [[0], [1, 2]] output_shape [2, 1, 16] : tensor<2x16xf32> into tensor<2x1x16xf32>
    %18 = tensor.empty() : tensor<2x16x16xf32>
    %19 = linalg.generic {indexing_maps = [#map9, #map10, #map11, #map12], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %expanded_6, %cst_0 : tensor<16x16xi1>, tensor<2x1x16xf32>, tensor<f32>) outs(%18 : tensor<2x16x16xf32>) {
    ^bb0(%in: i1, %in_14: f32, %in_15: f32, %out: f32):
      %25 = arith.select %in, %in_14, %in_15 : f32
      linalg.yield %25 : f32
    } -> tensor<2x16x16xf32>
    %20 = tensor.empty() : tensor<2x16xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<2x16xf32>) -> tensor<2x16xf32>
    %22 = linalg.generic {indexing_maps = [#map12, #map13], iterator_types = ["parallel", "parallel", "reduction"]} ins(%19 : tensor<2x16x16xf32>) outs(%21 : tensor<2x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<2x16xf32>
    %extracted_slice_7 = tensor.extract_slice %22[0, 0] [2, 15] [1, 1] : tensor<2x16xf32> to tensor<2x15xf32>
    %padded = tensor.pad %extracted_slice_7 low[0, 1] high[0, 0] {
    ^bb0(%arg1: index, %arg2: index):
      tensor.yield %cst : f32
    } : tensor<2x15xf32> to tensor<2x16xf32>
    %expanded_8 = tensor.expand_shape %padded [[0], [1, 2]] output_shape [2, 16, 1] : tensor<2x16xf32> into tensor<2x16x1xf32>
    %23 = linalg.generic {indexing_maps = [#map12, #map14, #map12], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %expanded_8 : tensor<2x16x32xf32>, tensor<2x16x1xf32>) outs(%11 : tensor<2x16x32xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %25 = arith.addf %in, %in_14 : f32
      linalg.yield %25 : f32
    } -> tensor<2x16x32xf32>
    %collapsed_9 = tensor.collapse_shape %23 [[0], [1, 2]] : tensor<2x16x32xf32> into tensor<2x512xf32>
    %extracted_slice_10 = tensor.extract_slice %collapsed_9[0, 0] [2, 511] [1, 1] : tensor<2x512xf32> to tensor<2x511xf32>
    %padded_11 = tensor.pad %extracted_slice_10 low[0, 1] high[0, 0] {
    ^bb0(%arg1: index, %arg2: index):
      tensor.yield %cst : f32
    } : tensor<2x511xf32> to tensor<2x512xf32>
    %expanded_12 = tensor.expand_shape %padded_11 [[0], [1, 2]] output_shape [2, 512, 1] : tensor<2x512xf32> into tensor<2x512x1xf32>
    %24 = linalg.generic {indexing_maps = [#map12, #map14, #map12], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %expanded_12 : tensor<2x512x32xf32>, tensor<2x512x1xf32>) outs(%6 : tensor<2x512x32xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %25 = arith.addf %in, %in_14 : f32
      linalg.yield %25 : f32
    } -> tensor<2x512x32xf32>
    %collapsed_13 = tensor.collapse_shape %24 [[0], [1, 2]] : tensor<2x512x32xf32> into tensor<2x16384xf32>
    return %collapsed_13 : tensor<2x16384xf32>
  }
}
