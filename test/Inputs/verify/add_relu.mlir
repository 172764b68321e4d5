// The region the verification fixtures are written for: out0 = relu(in0 +
// in1) over 1000x1000 f32 (not a multiple of 256 on purpose). to_replay.py
// turns the fixtures into replay candidates for its outlined region.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_relu(%a: tensor<1000x1000xf32>, %b: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<1000x1000xf32>, tensor<1000x1000xf32>) outs(%e : tensor<1000x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}
