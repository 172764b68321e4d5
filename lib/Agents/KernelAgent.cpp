//===- KernelAgent.cpp - The agent interface ------------------------------===//
//
// The interface's anchor, apart from the registry (AgentRegistry.cpp): the
// agent=torch module links this file but not the other backends.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Agents/KernelAgent.h"

using namespace mlir::cuda_agent;

KernelAgent::~KernelAgent() = default;
