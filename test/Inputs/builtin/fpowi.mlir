// math.fpowi (torch's x ** n after torch-mlir): a constant exponent from 1 to
// 4 is spelt as products, any other exponent through powf.
#id = affine_map<(d0) -> (d0)>
func.func @square(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %two = arith.constant 2 : i32
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %two : f32, i32
    linalg.yield %p : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
func.func @fifth(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %five = arith.constant 5 : i32
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %five : f32, i32
    linalg.yield %p : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
