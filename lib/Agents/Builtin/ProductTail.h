//===- ProductTail.h - How every product kernel ends ------------*- C++ -*-===//
//
// The end every product kernel shares (matmul and implicit-GEMM
// convolution; SIMT, mma.sync and TF32 tilings): the store loop over a
// thread's accumulators with the region's epilogue inside it, the grid of
// blocks over the product's tiles and the variant's name from its tiling.
// A kernel writes its own setup, loads and epilogue statements and hands
// them here.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_PRODUCTTAIL_H
#define CUDA_AGENT_AGENTS_BUILTIN_PRODUCTTAIL_H

#include "MatmulTf32.h"

namespace mlir::cuda_agent::builtin {

/// The product a kernel computes, as its tail sees it.
struct ProductShape {
  StringRef kernel; ///< the kernel's name ("matmul", "conv")
  int64_t M, N;
  int64_t batches = 1; ///< the grid's z extent
};

/// The launch of `threads`-thread blocks over the `bm` x `bn` tiles of `p`,
/// with `sharedBytes` of dynamic shared memory; fails past 65535 row tiles.
FailureOr<Launch> productLaunch(const ProductShape &p, int bm, int bn,
                                int threads, int64_t sharedBytes,
                                std::string &why);

/// The mma.sync (and TF32, wgmma) store loop over a thread's accumulators
/// of tiling `t`, skipping elements past `M` x `N`, with `epilogue` (the
/// statements at (m, n)) inside it: a kernel's last lines.
std::string fragmentStores(const MmaTiling &t, int64_t M, int64_t N,
                           StringRef epilogue);

/// Closes the source `src` of a product kernel of tiling `t`: the store
/// loop over its accumulators, `epilogue` in it (the statements at (m, n),
/// or the failure to write them, its reason in `why`), and the variant
/// named after the tiling that launches it.
FailureOr<Variant> closeProduct(const ProductShape &p, const Tiling &t,
                                std::string src,
                                FailureOr<std::string> epilogue,
                                std::string &why);
FailureOr<Variant> closeProduct(const ProductShape &p, const WarpTiling &t,
                                std::string src,
                                FailureOr<std::string> epilogue,
                                std::string &why);
FailureOr<Variant> closeProduct(const ProductShape &p, const MmaTiling &t,
                                std::string src,
                                FailureOr<std::string> epilogue,
                                std::string &why);
/// The TF32 mainloop's kernels: `split` names them, their launch takes
/// `sharedBytes` of dynamic shared memory.
FailureOr<Variant> closeProduct(const ProductShape &p, const Tf32Tiling &t,
                                Tf32Split split, int64_t sharedBytes,
                                std::string src,
                                FailureOr<std::string> epilogue,
                                std::string &why);

/// Closes the source `src` of a product kernel of the fragment layout of
/// `t` whose `stores` (its last lines, or the failure to write them) are
/// written whole: a reduction over the product's columns in the kernel's
/// tail, where fragmentStores would store each element. `threads`-thread
/// blocks with `sharedBytes` of dynamic shared memory launch it as the
/// variant `name`.
FailureOr<Variant> closeFragmentProduct(const ProductShape &p,
                                        const MmaTiling &t, int threads,
                                        int64_t sharedBytes, std::string name,
                                        std::string src,
                                        FailureOr<std::string> stores,
                                        std::string &why);

/// The name of an mma.sync tiling's variant ("mma-128x128x32-w2x4").
std::string mmaVariantName(const MmaTiling &t);

/// The name of a TF32 tiling's variant ("3xtf32-128x128x16-s3-w2x4").
std::string tf32VariantName(const Tf32Tiling &t, Tf32Split split);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_PRODUCTTAIL_H
