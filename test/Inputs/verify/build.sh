#!/usr/bin/env bash
# Builds the verification fixtures into bundles:
#   bash test/Inputs/verify/build.sh OUTDIR
# writes OUTDIR/reference and OUTDIR/candidates/<name> (and the same under
# OUTDIR/matmul and OUTDIR/attention for those regions' fixtures), each a bundle
# directory with plan.json, k.cu and k.cubin (nvcc -cubin -arch=sm_90). Only
# the sources and plans are committed; the cubins are built here or on the GPU
# machine. NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) and
# ARCH (default sm_90) may be overridden from the environment.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1"
arch="${ARCH:-sm_90}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"

build() { # SOURCE_DIR DEST_DIR (and its f64 oracle, SOURCE_DIR/oracle, where there is one)
  mkdir -p "$2"
  cp "$1/plan.json" "$1/k.cu" "$2/"
  "$nvcc" -cubin -arch="$arch" -O3 -o "$2/k.cubin" "$1/k.cu"
  if [ -d "$1/oracle" ]; then
    build "$1/oracle" "$2/oracle"
  fi
}

# The add_relu fixtures (OUTDIR/reference, OUTDIR/candidates), the matmul
# ones (OUTDIR/matmul/reference, OUTDIR/matmul/candidates) and the attention
# ones (OUTDIR/attention/..., the reference with an f64 oracle).
for region in "" matmul/ attention/; do
  build "$here/${region}reference" "$out/${region}reference"
  for dir in "$here/${region}"candidates/*/; do
    build "$dir" "$out/${region}candidates/$(basename "$dir")"
  done
  echo "built $(ls "$out/${region}candidates" | wc -l) candidates and the reference in $out/$region"
done
