//===- RegionHash.cpp - Canonical hash of an outlined region ----------------===//
//
// Prints a region function in a form that only depends on what it computes
// and hashes that text with SHA-256.
//
//===----------------------------------------------------------------------===//

#include "cuda-agent/Outline/RegionHash.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string cuda_agent::printOpCanonically(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags()
                    .printGenericOpForm()
                    .useLocalScope()
                    .enableDebugInfo(false));
  return text;
}

std::string cuda_agent::printCanonicalRegion(func::FuncOp func) {
  // Work on a detached clone so that the caller's IR is untouched.
  OwningOpRef<func::FuncOp> clone(func.clone());
  clone->setSymName("region");
  SmallVector<StringAttr> dropped;
  for (NamedAttribute attr : clone->getOperation()->getDiscardableAttrs())
    if (attr.getName().strref().starts_with("cuda_agent."))
      dropped.push_back(attr.getName());
  for (StringAttr name : dropped)
    clone->getOperation()->removeDiscardableAttr(name);
  // Named linalg ops cache their indexing maps in an attribute the first time
  // someone asks for them; whether that happened must not change the hash.
  clone->walk([](Operation *op) {
    op->removeDiscardableAttr("linalg.memoized_indexing_maps");
  });

  return printOpCanonically(*clone);
}

std::string cuda_agent::computeRegionHash(func::FuncOp func) {
  std::string text = printCanonicalRegion(func);
  std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}
