//===- OracleBuilder.h - The f64 oracle of a region --------------*- C++ -*-===//
//
// The verifier's third opinion. The default lowering of a region computes in
// the region's own types: a long f32 reduction summed sequentially carries an
// error that a tree-summed candidate may not have. The oracle is the same
// region promoted to f64 (every f16/bf16/f32 value computed in f64, the
// inputs extended at entry, the outputs cast back at the return) and lowered
// the default way; cuda-agent-run measures both the reference's and the
// candidate's error against it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_PIPELINES_ORACLEBUILDER_H
#define CUDA_AGENT_PIPELINES_ORACLEBUILDER_H

#include "cuda-agent/Lowering/LaunchPlan.h"
#include "cuda-agent/Pipelines/DefaultLoweringPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::cuda_agent {

/// Its bundle is written to REFERENCE/<kOracleBundleName> (Protocol.h), inside
/// the reference's bundle, where cuda-agent-run looks for it.
///
/// Returns a module holding a copy of `region` (a function on tensors) with
/// the same name and signature whose body computes every f16, bf16 and f32
/// value in f64, or failure when there is nothing to promote (no such value)
/// or the promoted body does not verify (an op that ties a float type to
/// another, such as a bitcast). Emits no diagnostic on failure.
FailureOr<OwningOpRef<ModuleOp>> buildF64Oracle(func::FuncOp region);

/// The default lowering of buildF64Oracle(region), as a launch plan whose
/// buffers match the reference's (only temporaries differ); failure when
/// there is no oracle or it does not lower. Diagnostics of a failed lowering
/// go to the context's handlers.
FailureOr<LaunchPlan> lowerF64Oracle(func::FuncOp region,
                                     const DefaultLoweringOptions &options);

} // namespace mlir::cuda_agent

#endif // CUDA_AGENT_PIPELINES_ORACLEBUILDER_H
