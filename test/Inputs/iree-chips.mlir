// Region functions whose kernels were built for different chips, for the
// IREE export's target checks (test/Export/agent-export-iree-chips.test).
// The cubins are stand-ins: IREE embeds objects without reading them.
module @chips {
  func.func @main(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    %0 = call @main_ampere(%a) : (tensor<64xf32>) -> tensor<64xf32>
    %1 = call @main_hopper_wgmma(%a) : (tensor<64xf32>) -> tensor<64xf32>
    %2 = call @main_big_shared(%a) : (tensor<64xf32>) -> tensor<64xf32>
    return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  // Built for sm_80, no shared memory: runs on every known chip (its PTX on the newer ones).
  func.func private @main_ampere(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "c0", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-ampere"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_80\22, \22ptx\22: \22.visible .entry ampere(\\n) {\\n}\\n\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}], \22launches\22: [{\22kernel\22: \22ampere\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22]}]}"}} {
    %e = tensor.empty() : tensor<64xf32>
    %r = linalg.copy ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    return %r : tensor<64xf32>
  }
  // Built for sm_90a (arch-specific: wgmma): runs on sm_90 only, and has no PTX object.
  func.func private @main_hopper_wgmma(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "c1", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-hopper_wgmma"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_90a\22, \22ptx\22: \22.visible .entry hopper_wgmma(\\n) {\\n}\\n\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}], \22launches\22: [{\22kernel\22: \22hopper_wgmma\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 0, \22args\22: [\22in0\22, \22out0\22]}]}"}} {
    %e = tensor.empty() : tensor<64xf32>
    %r = linalg.copy ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    return %r : tensor<64xf32>
  }
  // Built for sm_80 with 120000 bytes of shared memory: more than an sm_86 or sm_89 workgroup has.
  func.func private @main_big_shared(%a: tensor<64xf32>) -> tensor<64xf32> attributes {
      cuda_agent.region = {hash = "c2", kind = "elementwise"},
      cuda_agent.kernel = {objects = {kernel.cubin = "\7FELF-big_shared"},
        plan = "{\22version\22: 1, \22chip\22: \22sm_80\22, \22ptx\22: \22.visible .entry big_shared(\\n) {\\n}\\n\22, \22buffers\22: [{\22name\22: \22in0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22input\22}, {\22name\22: \22out0\22, \22shape\22: [64], \22dtype\22: \22f32\22, \22role\22: \22output\22}], \22launches\22: [{\22kernel\22: \22big_shared\22, \22object\22: \22kernel.cubin\22, \22grid\22: [1, 1, 1], \22block\22: [64, 1, 1], \22shared_bytes\22: 120000, \22args\22: [\22in0\22, \22out0\22]}]}"}} {
    %e = tensor.empty() : tensor<64xf32>
    %r = linalg.copy ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    return %r : tensor<64xf32>
  }
}
