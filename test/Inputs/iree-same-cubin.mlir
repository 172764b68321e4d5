// A region function as agent-generate leaves it, whose plan launches two
// kernels of one cubin with the same layout, grid and block (as the packed
// wgmma products' pack_a and pack_b), then a third. The cubin is a stand-in:
// IREE embeds objects without reading them. Used by
// test/Export/agent-export-iree-same-cubin.test.
module @same_cubin {
  func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {
    %0 = call @main_region0(%a) : (tensor<64xf32>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func private @main_region0(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "b0", kind = "contraction"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-three-kernels"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22workspace_bytes\22: 512, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}], \22launches\22: [{\22kernel\22: \22pack_a\22, \22object\22: \22kernel.cubin\22, \22grid\22: [2, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22, \22workspace\22]}, {\22kernel\22: \22pack_b\22, \22object\22: \22kernel.cubin\22, \22grid\22: [2, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22, \22workspace\22]}, {\22kernel\22: \22matmul\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [128, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22, \22workspace\22]}]}"}} {
    return %a : tensor<64xf32>
  }
}
