//===- Strategy.h - One way the builtin agent writes kernels ----*- C++ -*-===//
//
// The builtin agent's kernels come from strategies: each recognizes a class
// of regions (match) and writes its variants for one (addVariants), best
// guess first. propose() (BuiltinAgent.cpp) runs them in the order of
// getStrategies(); a region's candidates are the variants of every strategy
// that matches, in that order. A variant is a CUDA source and the launches
// that run it.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_STRATEGY_H
#define CUDA_AGENT_AGENTS_BUILTIN_STRATEGY_H

#include "cuda-agent/Target/GpuTarget.h"
#include "cuda-agent/Task/LinalgRegion.h"

#include "mlir/Support/LLVM.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::cuda_agent::builtin {

/// One kernel launch of a variant's plan.
struct Launch {
  std::string kernel;
  std::array<int64_t, 3> grid, block;
  int64_t sharedBytes = 0; ///< dynamic shared memory
};

/// What the user lets a kernel round (`precision=`): f32 products exact to
/// the f32 tolerance, or with their operands rounded to TF32 (verified
/// under TF32's tolerance, KernelTask::precision).
enum class Precision { F32, Tf32 };

/// A candidate kernel: its name, its source and how it is launched.
struct Variant {
  std::string name, source;
  std::vector<Launch> launches; ///< in order, on one stream
  int64_t workspaceBytes = 0;
  /// The arch it must be compiled for when not the target's chip: `sm_90a`
  /// for the arch-specific instructions (wgmma) of an sm_90 target.
  std::string arch;
};

/// The variants the strategies write for one region, in order, and why there
/// are none: the reason of the first strategy that did not match or the
/// first variant that could not be written.
struct VariantList {
  std::vector<Variant> variants;
  std::string why;

  /// Keeps `variant`, or its failure's `reason` when there is no reason yet.
  /// `reason` is a reference, not a StringRef: callers write it in the same
  /// call (`add(write(..., reason), reason)`), and a StringRef taken before
  /// the writer reassigned the string would dangle.
  void add(FailureOr<Variant> variant, const std::string &reason) {
    if (succeeded(variant))
      variants.push_back(std::move(*variant));
    else if (why.empty())
      why = reason;
  }
};

/// A class of regions and the kernels the builtin agent writes for it.
class Strategy {
public:
  virtual ~Strategy() = default;
  /// The name tests select it by (agent-test-builtin-variants).
  virtual StringRef getName() const = 0;
  /// Whether the strategy writes kernels for `region`; when not, `why` may
  /// say why (left empty when the region is another strategy's class).
  virtual bool match(const LinalgRegion &region, std::string &why) const = 0;
  /// Whether the strategy's kernels read the region's pads (`tensor.pad`s
  /// of inputs, LinalgRegion::pads) with bounds where match() accepts them:
  /// the others never see a region with a pad (readsRegionOps).
  virtual bool readsPads() const { return false; }
  /// Whether the strategy takes regions with reshapes, slices and pads of
  /// computed tensors (LinalgRegion::views, a blocked scan's chain): the
  /// others never see one (readsRegionOps).
  virtual bool readsViews() const { return false; }
  /// Whether the strategy writes regions with outputs assembled from parts
  /// (LinalgRegion::assemblies): the others never see one (readsRegionOps).
  virtual bool readsAssemblies() const { return false; }
  /// Appends the variants for a matched `region`, best guess first, sized
  /// for `target`, under the user's `precision` (which only the strategies
  /// whose kernels may round differently read).
  virtual void addVariants(const LinalgRegion &region, const GpuTarget &target,
                           Precision precision, VariantList &list) const = 0;
};

/// The strategies in the order propose() runs them.
ArrayRef<const Strategy *> getStrategies();

/// The strategy called `name`, or null.
const Strategy *findStrategy(StringRef name);

/// Every variant of `region` for `target` under `precision` from the
/// strategies in order; `why` says why there is none.
std::vector<Variant> writeVariants(const LinalgRegion &region,
                                   const GpuTarget &target, Precision precision,
                                   std::string &why);

/// All generics parallel and all outputs of one shape: the elementwise class
/// (Elementwise.cpp, Transpose.cpp); the other strategies take the rest.
bool isElementwise(const LinalgRegion &region);

/// Whether `g`'s body sums products of its inputs (float or integer; casts of
/// either allowed): a convolution's, where a pooling's is a max or a sum of
/// the input alone.
bool isMultiplyAdd(linalg::GenericOp g);

/// A contraction or convolution (not a pooling: isMultiplyAdd) in the
/// region: the class of the product strategies (Conv.cpp, Matmul.cpp), which
/// no other strategy takes.
bool hasProduct(const LinalgRegion &region);

/// Whether `strategy` is one of the product strategies.
bool takesProducts(const Strategy &strategy);

/// Whether `strategy` can read every pad and view of `region` (none, or it
/// reads them); when not, `why` says so. A strategy that does not read pads
/// would read the pad's source at the padded tensor's indices: a wrong
/// kernel.
bool readsRegionOps(const Strategy &strategy, const LinalgRegion &region,
                    std::string &why);

/// The strategies, one per file.
const Strategy &getConvStrategy();
const Strategy &getFlashAttentionStrategy();
const Strategy &getMatmulStrategy();
const Strategy &getTransposeStrategy();
const Strategy &getElementwiseStrategy();
const Strategy &getScanChainStrategy();
const Strategy &getBlockScanStrategy();
const Strategy &getRowsClusterStrategy();
const Strategy &getRowsClusterStagedStrategy();
const Strategy &getRowsExchangeStrategy();
const Strategy &getRowsSplitStrategy();
const Strategy &getRowsStrategy();
const Strategy &getSerialReductionStrategy();

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_STRATEGY_H
