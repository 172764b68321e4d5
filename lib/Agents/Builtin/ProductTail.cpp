//===- ProductTail.cpp - How every product kernel ends --------------------===//
//
// The store loops, launches and variant names of the product kernels
// (ProductTail.h): one place for what the matmul and convolution kernels
// of every tiling write the same way after their products.
//
//===----------------------------------------------------------------------===//

#include "ProductTail.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::cuda_agent;
using namespace mlir::cuda_agent::builtin;

FailureOr<Launch> cuda_agent::builtin::productLaunch(const ProductShape &p,
                                                     int bm, int bn,
                                                     int threads,
                                                     int64_t sharedBytes,
                                                     std::string &why) {
  Launch launch{p.kernel.str(),
                {(p.N + bn - 1) / bn, (p.M + bm - 1) / bm, p.batches},
                {threads, 1, 1},
                sharedBytes};
  if (launch.grid[1] > 65535) {
    why = "more than 65535 row tiles";
    return failure();
  }
  return launch;
}

std::string cuda_agent::builtin::fragmentStores(const MmaTiling &t, int64_t M,
                                               int64_t N, StringRef epilogue) {
  return tiles::mmaStoreLoop(t, M, N) + epilogue.str() +
         tiles::mmaStoreEnd().str();
}

namespace {
/// The tail every tiling shares: the store loop `storeLoop`, the
/// epilogue, `storeEnd`, then the variant `name` over the `bm` x `bn`
/// tiles.
FailureOr<Variant> close(const ProductShape &p, std::string src,
                         FailureOr<std::string> epilogue, StringRef storeLoop,
                         StringRef storeEnd, int bm, int bn, int threads,
                         int64_t sharedBytes, std::string name,
                         std::string &why) {
  if (failed(epilogue))
    return failure();
  src += storeLoop.str() + *epilogue + storeEnd.str();
  FailureOr<Launch> launch =
      productLaunch(p, bm, bn, threads, sharedBytes, why);
  if (failed(launch))
    return failure();
  return Variant{std::move(name), std::move(src), {*launch}};
}

/// closeFragmentProduct() around the store loop with `epilogue` in it.
FailureOr<Variant> closeFragments(const ProductShape &p, const MmaTiling &t,
                                  std::string src,
                                  FailureOr<std::string> epilogue,
                                  int threads, int64_t sharedBytes,
                                  std::string name, std::string &why) {
  if (failed(epilogue))
    return failure();
  return closeFragmentProduct(p, t, threads, sharedBytes, std::move(name),
                              std::move(src),
                              fragmentStores(t, p.M, p.N, *epilogue), why);
}
} // namespace

FailureOr<Variant> cuda_agent::builtin::closeFragmentProduct(
    const ProductShape &p, const MmaTiling &t, int threads,
    int64_t sharedBytes, std::string name, std::string src,
    FailureOr<std::string> stores, std::string &why) {
  if (failed(stores))
    return failure();
  return close(p, std::move(src), std::move(*stores), "", "", t.bm, t.bn,
               threads, sharedBytes, std::move(name), why);
}

std::string cuda_agent::builtin::mmaVariantName(const MmaTiling &t) {
  return llvm::formatv("mma-{0}x{1}x{2}-w{3}x{4}", t.bm, t.bn, t.bk, t.warpsM,
                       t.warpsN);
}

FailureOr<Variant> cuda_agent::builtin::closeProduct(
    const ProductShape &p, const Tiling &t, std::string src,
    FailureOr<std::string> epilogue, std::string &why) {
  return close(p, std::move(src), std::move(epilogue),
               tiles::simtStoreLoop(t, p.M, p.N), tiles::simtStoreEnd(), t.bm,
               t.bn, t.threads(), 0,
               llvm::formatv("simt-{0}x{1}x{2}-t{3}x{4}", t.bm, t.bn, t.bk,
                             t.tm, t.tn),
               why);
}

FailureOr<Variant> cuda_agent::builtin::closeProduct(
    const ProductShape &p, const WarpTiling &t, std::string src,
    FailureOr<std::string> epilogue, std::string &why) {
  const Tiling &s = t.tile;
  return close(p, std::move(src), std::move(epilogue),
               tiles::warpStoreLoop(t, p.M, p.N), tiles::simtStoreEnd(), s.bm,
               s.bn, s.threads(), 0,
               llvm::formatv("simt-{0}x{1}x{2}-t{3}x{4}-w{5}x{6}", s.bm, s.bn,
                             s.bk, s.tm, s.tn, t.warpsM, t.warpsN),
               why);
}

FailureOr<Variant> cuda_agent::builtin::closeProduct(
    const ProductShape &p, const MmaTiling &t, std::string src,
    FailureOr<std::string> epilogue, std::string &why) {
  return closeFragments(p, t, std::move(src), std::move(epilogue),
                        t.threads(), 0, mmaVariantName(t), why);
}

std::string cuda_agent::builtin::tf32VariantName(const Tf32Tiling &t,
                                                 Tf32Split split) {
  std::string sums =
      t.promoteSteps ? "-sum" + std::to_string(t.promoteSteps) : "";
  return llvm::formatv("{0}-{1}x{2}x{3}-s{4}-w{5}x{6}{7}",
                       split == Tf32Split::Three ? "3xtf32" : "tf32", t.bm,
                       t.bn, t.bk, t.stages, t.warpsM, t.warpsN, sums);
}

FailureOr<Variant> cuda_agent::builtin::closeProduct(
    const ProductShape &p, const Tf32Tiling &t, Tf32Split split,
    int64_t sharedBytes, std::string src, FailureOr<std::string> epilogue,
    std::string &why) {
  return closeFragments(p, t.mmaTiling(), std::move(src), std::move(epilogue),
                        t.threads(), sharedBytes, tf32VariantName(t, split),
                        why);
}
