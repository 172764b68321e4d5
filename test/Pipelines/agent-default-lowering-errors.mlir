// RUN: cuda-agent-opt %s --split-input-file --verify-diagnostics --agent-default-lowering -o /dev/null
// RUN: not cuda-agent-opt %s --split-input-file --agent-emit-bundle="dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUNDLE

// What the default lowering cannot place is an error at the tensor op's
// line, naming the op left on the host and the function, with a note saying
// why; never a crash. agent-emit-bundle reports the same and names the
// function whose bundle failed.

// A dynamic shape: the host would compute sizes from a device buffer.
func.func @dynamic(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+2 {{cannot run on the GPU: 'memref.dim' was left on the host by the default lowering in @dynamic}}
  // expected-note @+1 {{dynamic shapes are not supported: the default lowering needs static shapes}}
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %y = linalg.exp ins(%x : tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
// BUNDLE: error: cannot run on the GPU: 'memref.dim' was left on the host by the default lowering in @dynamic
// BUNDLE: error: the default lowering of this function failed

// -----

// Host control flow around kernels.
func.func @host_branch(%x: tensor<16xf32>, %c: i1) -> tensor<16xf32> {
  // expected-error @+2 {{cannot run on the GPU: 'scf.if' was left on the host by the default lowering in @host_branch}}
  // expected-note @+1 {{host control flow (scf.for, scf.if, scf.while) is not supported: only linalg ops become kernels}}
  %r = scf.if %c -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %y = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  } else {
    scf.yield %x : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
// BUNDLE: error: cannot run on the GPU: 'scf.if' was left on the host by the default lowering in @host_branch
// BUNDLE: error: the default lowering of this function failed

// -----

// A loop carrying a tensor across iterations fails in bufferization.
func.func @host_loop(%x: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %y = linalg.exp ins(%acc : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    // expected-error @+1 {{Yield operand #0 is not equivalent to the corresponding iter bbArg}}
    scf.yield %y : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
// BUNDLE: error: Yield operand #0 is not equivalent to the corresponding iter bbArg

// -----

// A scalar read of a tensor would read device memory on the host.
func.func @extract_scalar(%x: tensor<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+2 {{cannot run on the GPU: 'memref.load' was left on the host by the default lowering in @extract_scalar}}
  // expected-note @+1 {{the host would read or write device memory (a scalar tensor.extract or tensor.insert)}}
  %v = tensor.extract %x[%c0] : tensor<16xf32>
  return %v : f32
}
// BUNDLE: error: cannot run on the GPU: 'memref.load' was left on the host by the default lowering in @extract_scalar

// -----

// A constant tensor (a weight) becomes a device buffer (see
// agent-default-lowering-constants.mlir); a global the program may write is
// host state, and the error says so.
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @mutable_global(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{cannot run on the GPU: 'memref.get_global' was left on the host by the default lowering in @mutable_global}}
  // expected-note @+1 {{only constant globals with a static shape and an initial value (what a dense or dense_resource tensor constant bufferizes to) are uploaded to the device; this one is host state}}
  %m = memref.get_global @state : memref<4xf32>
  %c = bufferization.to_tensor %m restrict : memref<4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
// BUNDLE: error: cannot run on the GPU: 'memref.get_global' was left on the host by the default lowering in @mutable_global
