// Region functions as agent-generate leaves them, with plans that reshape
// buffers (views: a buffer under another shape, the same device pointer):
// an input read and an output written through views; a temporary written
// through a view by one launch and read whole by the next; and two the
// export cannot write: a kernel given a buffer and its view, a "view" with
// another number of elements. The cubins are stand-ins: IREE embeds objects
// without reading them. Used by test/Export/agent-export-iree-views.test and
// agent-export-iree-compile.test.
module @views {
  func.func @main(%a: tensor<4x16xf32>, %b: tensor<64xf32>) -> (tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    %0 = call @main_region0(%a) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %1 = call @main_region1(%b) : (tensor<64xf32>) -> tensor<64xf32>
    %2 = call @main_region2(%b) : (tensor<64xf32>) -> tensor<64xf32>
    %3 = call @main_region3(%b) : (tensor<64xf32>) -> tensor<64xf32>
    return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  func.func private @main_region0(%a: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {
      cuda_agent.region = {hash = "a0", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-flat"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [4, 16], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [4, 16], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22view0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22in0\22}, {\22name\22: \22view1\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22out0\22}], \22launches\22: [{\22kernel\22: \22flat\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22view0\22, \22view1\22]}]}"}} {
    return %a : tensor<4x16xf32>
  }
  func.func private @main_region1(%b: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "a1", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-two"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22tmp0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22temp\22}, {\22name\22: \22view0\22, \22shape\22: [8, 8], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22tmp0\22}], \22launches\22: [{\22kernel\22: \22first\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22view0\22]}, {\22kernel\22: \22second\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22tmp0\22, \22out0\22]}]}"}} {
    return %b : tensor<64xf32>
  }
  func.func private @main_region2(%b: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "a2", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-both"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22view0\22, \22shape\22: [8, 8], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22out0\22}], \22launches\22: [{\22kernel\22: \22k\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22, \22view0\22]}]}"}} {
    return %b : tensor<64xf32>
  }
  func.func private @main_region3(%b: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "a3", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-size"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22view0\22, \22shape\22: [8, 4], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22out0\22}], \22launches\22: [{\22kernel\22: \22k\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22view0\22]}]}"}} {
    return %b : tensor<64xf32>
  }
}
