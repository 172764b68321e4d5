// Region functions as agent-generate leaves them (cuda_agent.region, and
// cuda_agent.kernel with the plan and its objects), with plans the example
// does not have: two launches sharing a zeroed workspace, a copy step,
// dynamic shared memory, a PTX with 8-byte vector loads, a plan with a view
// (more in iree-views.mlir); one whose copy makes two arguments one tensor
// (left to IREE); a region without a kernel. The cubins are stand-ins: IREE embeds objects
// without reading them. Used by test/Export/agent-export-iree-plans.test.
module @plans {
  func.func @main(%a: tensor<64xf32>, %b: tensor<4x16xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<4x16xf32>, tensor<64xf32>) {
    %0:2 = call @main_region0(%a) : (tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
    %1 = call @main_region1(%b) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = call @main_region2(%a) : (tensor<64xf32>) -> tensor<64xf32>
    %3 = call @main_region3(%2) : (tensor<64xf32>) -> tensor<64xf32>
    return %0#0, %0#1, %1, %3 : tensor<64xf32>, tensor<64xf32>, tensor<4x16xf32>, tensor<64xf32>
  }
  func.func private @main_region0(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) attributes {
      cuda_agent.region = {hash = "aa", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-two"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22workspace_bytes\22: 256, \22agent\22: \22replay\22, \22model\22: \22files\22, \22speedup\22: 3.5, \22verified_on\22: \22NVIDIA H200\22, \22ptx\22: \22.visible .entry first(\\n) {\\n\\tld.global.nc.v2.f32 \\t{%f1, %f2}, [%rd1];\\n}\\n\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22out1\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}], \22launches\22: [{\22kernel\22: \22first\22, \22object\22: \22kernel.cubin\22, \22grid\22: [2, 1, 1], \22block\22: [32, 1, 1], \22shared_bytes\22: 65536, \22args\22: [\22in0\22, \22out0\22, \22workspace\22]}, {\22copy\22: {\22from\22: \22out0\22, \22to\22: \22out1\22}}, {\22kernel\22: \22second\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out1\22, \22workspace\22]}]}"}} {
    return %a, %a : tensor<64xf32>, tensor<64xf32>
  }
  func.func private @main_region1(%b: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {
      cuda_agent.region = {hash = "bb", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-view"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [4, 16], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [4, 16], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22flat\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22view\22, \22view_of\22: \22out0\22}], \22launches\22: [{\22kernel\22: \22k\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22flat\22]}]}"}} {
    %e = tensor.empty() : tensor<4x16xf32>
    %r = linalg.copy ins(%b : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    return %r : tensor<4x16xf32>
  }
  func.func private @main_region2(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "cc", kind = "elementwise"}, cuda_agent.decision = {decision = "kept"}} {
    %e = tensor.empty() : tensor<64xf32>
    %r = linalg.add ins(%a, %a : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    return %r : tensor<64xf32>
  }
  func.func private @main_region3(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "dd", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-copy"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}, {\22name\22: \22tmp0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22temp\22}], \22launches\22: [{\22copy\22: {\22from\22: \22in0\22, \22to\22: \22tmp0\22}}, {\22kernel\22: \22k\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22tmp0\22, \22out0\22]}]}"}} {
    return %a : tensor<64xf32>
  }
}
