// A region function as agent-generate leaves it, whose one kernel writes two
// outputs of one shape (as the training batch norm's running mean and
// variance) and reads two equal constants (which IREE folds into one). The
// cubin is a stand-in: IREE embeds objects without reading them. Used by
// test/Export/agent-export-iree-twin-outputs.test.
module @twins {
  func.func @main(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %zeros = arith.constant dense<0.0> : tensor<64xf32>
    %also_zeros = arith.constant dense<0.0> : tensor<64xf32>
    %0:2 = call @main_region0(%a, %zeros, %also_zeros) : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
    return %0#0, %0#1 : tensor<64xf32>, tensor<64xf32>
  }
  func.func private @main_region0(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) attributes {
      cuda_agent.region = {hash = "c0", kind = "reduction"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-twins"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22in1\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22in2\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22out1\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22tmp0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22temp\22}, {\22name\22: \22tmp1\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22temp\22}], \22launches\22: [{\22kernel\22: \22both\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22in1\22, \22in2\22, \22out0\22, \22out1\22, \22tmp0\22, \22tmp1\22]}]}"}} {
    return %a, %b : tensor<64xf32>, tensor<64xf32>
  }
}
