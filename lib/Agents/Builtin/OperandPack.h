//===- OperandPack.h - Product operands packed into the workspace -*- C++ -*-===//
//
// Some products are fastest on operands the tensor cores cannot read as the
// region holds them: f32 operands must be split into TF32 parts (3xTF32) and
// wgmma reads TF32 tiles k-major only; 16-bit rows whose length is not a
// whole number of 16-byte chunks cannot be copied 16 bytes at a time. A pack
// kernel, the first launches of such a product's plan, writes each operand
// into the plan's workspace in the layout the product kernel copies at full
// speed: per batch, its rows (padded with zeros to a whole number of the
// product's tiles) k-major, each row cut into 128-byte slices of k (zero past
// K), every slice written as one or more parts in a fixed order; the parts
// are the product's steps. Each tile's step is stored whole, as the product
// kernel's shared memory holds it (its rows of 128 bytes, 16-byte chunk c of
// row r at c ^ (r % 8): wgmma's 128-byte swizzle), the steps of a tile one
// after the other, so one bulk copy (cp.async.bulk) fills a stage. With A's slices as
// (hi, hi, lo) and B's as (hi, lo, hi), a plain TF32 product over the packed
// rows is hi*hi + hi*lo + lo*hi: the 3xTF32 product, as accurate as f32.
// The pack reads the operand through the region's producers, in any layout,
// through a shared tile so that both its reads and its writes are coalesced.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_AGENT_AGENTS_BUILTIN_OPERANDPACK_H
#define CUDA_AGENT_AGENTS_BUILTIN_OPERANDPACK_H

#include "Matmul.h"

namespace mlir::cuda_agent::builtin {

/// What one part of a packed slice holds.
enum class PackPart {
  Value, ///< the element in its own type (16-bit operands)
  Hi,    ///< tf32(x), rounded to nearest
  Lo,    ///< tf32(x - tf32(x))
};

/// Operand A (`isA`) or B of a contraction as packed: `rows` rows per batch
/// (the operand's rows padded to `tileRows`, the product's tile), each
/// `steps` slices of `sliceK` elements (128 bytes) written as `parts`, at
/// `offsetBytes` into the workspace.
struct OperandPack {
  bool isA;
  int64_t rows, steps;
  int sliceK, tileRows;
  SmallVector<PackPart> parts;
  int64_t offsetBytes = 0;
  /// The product's k steps: every part of every slice.
  int64_t productSteps() const { return int64_t(parts.size()) * steps; }
  /// Bytes of one tile's step: what one bulk copy moves.
  int64_t tileStepBytes() const { return int64_t(tileRows) * 128; }
  /// Elements of one packed row: the product's reduction as it reads it.
  int64_t rowElements() const {
    return int64_t(parts.size()) * steps * sliceK;
  }
  /// Bytes of the packed operand over `batches` batches.
  int64_t bytes(int64_t batches) const {
    return batches * rows * rowElements() * (128 / sliceK);
  }
};

/// The pack of operand A (`isA`) or B of `c`: rows padded to a multiple of
/// `rowTile` (itself a multiple of 32), slices of 128 bytes of
/// `elementBytes` elements (4: TF32 parts, 2: the 16-bit value).
OperandPack planPack(const Contraction &c, bool isA, int rowTile,
                     int elementBytes, ArrayRef<PackPart> parts,
                     int64_t offsetBytes);

/// The device functions the pack kernels call, for a source before them.
StringRef getPackHelpers();

/// The source of the kernel `name` writing `pack` (the region's signature
/// with the workspace), without the prelude and getPackHelpers();
/// launched by packLaunch.
FailureOr<std::string> writePackKernel(const LinalgRegion &region,
                                       const Contraction &c,
                                       const OperandPack &pack,
                                       StringRef name, std::string &why);

/// The launch of the pack kernel `name`: a block per 32 rows and slice of
/// each batch. Fails past the grid's limits.
FailureOr<Launch> packLaunch(const Contraction &c, const OperandPack &pack,
                             StringRef name, std::string &why);

} // namespace mlir::cuda_agent::builtin

#endif // CUDA_AGENT_AGENTS_BUILTIN_OPERANDPACK_H
