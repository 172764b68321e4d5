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
// math.powf with a constant float exponent (torch.norm's abs(x) ** 2.0): 2.0
// is x * x, any other exponent powf.
func.func @powf_square(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.powf %a, %two : f32
    linalg.yield %p : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
func.func @powf_half(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.powf %a, %half : f32
    linalg.yield %p : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
